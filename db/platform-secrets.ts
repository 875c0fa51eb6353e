import { randomBytes } from 'node:crypto';
import type { Executor } from './knex';

/** The row of `platform_secrets` that signs list cursors (api/pagination.ts). */
export const CURSOR_SIGNING_KEY = 'cursor-signing-key';

/**
 * A random secret of the deployment. It lives in PostgreSQL, so every API replica holds the same one and a restart
 * keeps it. Migration 009 creates the cursor key; a row an operator deleted (to rotate it) is created again here, and
 * processes starting together all keep the first one written.
 */
export async function platformSecret(db: Executor, name: string): Promise<Buffer> {
  await db('platform_secrets')
    .insert({ name, value: randomBytes(32) })
    .onConflict('name')
    .ignore();
  const row = await db('platform_secrets').where({ name }).first('value');
  return row.value as Buffer;
}

/** The key of list cursors: CURSOR_SIGNING_KEY when the deployment sets one, otherwise the stored secret. */
export async function cursorSigningKey(db: Executor, override?: string): Promise<Buffer> {
  return override ? Buffer.from(override, 'utf8') : platformSecret(db, CURSOR_SIGNING_KEY);
}
