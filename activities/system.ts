import type { Db } from '../db/knex';

/** Activities that check the platform itself. */
export function createSystemActivities(db: Db) {
  return {
    async echo(message: string): Promise<{ echoed: string; databaseTime: string }> {
      const { rows } = await db.raw('SELECT now() AS now');
      return { echoed: message, databaseTime: new Date(rows[0].now).toISOString() };
    },
  };
}

export type SystemActivities = ReturnType<typeof createSystemActivities>;
