import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createDb, type Db } from '../../db/knex';
import { upsertAccounts, type ProviderAccount } from '../../areas/payments/accounts/accounts';
import { accountId, connectorId } from '../../areas/payments/ids';
import { stringifyJson } from '../../lib/json';
import { api } from './http';

export const suffix = (): string => randomUUID().slice(0, 8);
export const testDb = (): Db => createDb(process.env.TEST_DATABASE_URL as string, { poolMax: 3 });

/** A connector row with accounts, without a fetch workflow: data for tests of the resources around it. */
export async function seedConnector(
  db: Db,
  accounts: Array<Partial<ProviderAccount> & { reference: string }>,
): Promise<{ connectorID: string; accountIDs: string[] }> {
  const connectorID = connectorId('simulated');
  await db('payments_connectors').insert({
    id: connectorID,
    provider: 'simulated',
    name: `seed-${suffix()}`,
    config: JSON.stringify({}),
    uninstalled_at: db.fn.now(),
  });
  await upsertAccounts(
    db,
    connectorID,
    'simulated',
    accounts.map((a) => ({ type: 'INTERNAL', createdAt: new Date(0), metadata: {}, raw: {}, ...a })),
  );
  return { connectorID, accountIDs: accounts.map((a) => accountId(connectorID, a.reference)) };
}

/** A fresh directory for a simulated connector, inside the platform's DATA_DIR. */
export function simulatedDirectory(files: Record<string, unknown> = {}): string {
  const dir = path.join(process.env.TEST_PLATFORM_DATA_DIR as string, 'simulated', suffix());
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) writeJson(dir, name, content);
  return dir;
}

export function writeJson(dir: string, name: string, content: unknown): void {
  fs.writeFileSync(path.join(dir, `${name}.tmp`), stringifyJson(content));
  fs.renameSync(path.join(dir, `${name}.tmp`), path.join(dir, name));
}

export async function installSimulated(dir: string, pollingPeriod = '1s'): Promise<string> {
  const res = await api('POST', '/api/payments/v3/connectors/install/simulated', {
    body: { name: `sim-${suffix()}`, directory: dir, pollingPeriod },
  });
  if (res.status !== 202) throw new Error(`install failed: ${res.status} ${res.text}`);
  return res.body.data;
}

export async function paymentsOf(connectorID: string): Promise<any[]> {
  const query = encodeURIComponent(JSON.stringify({ $match: { connectorID } }));
  const res = await api('GET', `/api/payments/payments?pageSize=1000&query=${query}`);
  if (res.status !== 200) throw new Error(`list failed: ${res.status} ${res.text}`);
  return res.body.cursor.data;
}

/** The id of a connector's schedule of one kind (accounts, balances, payments, conversions, orders), as the API lists it. */
export async function connectorScheduleId(connectorID: string, kind: string): Promise<string> {
  const res = await api('GET', `/api/payments/v3/connectors/${connectorID}/schedules`);
  if (res.status !== 200) throw new Error(`schedules: ${res.status} ${res.text}`);
  const schedule = (res.body.cursor.data as Array<{ id: string; kind: string }>).find((s) => s.kind === kind);
  if (!schedule) throw new Error(`no ${kind} schedule for ${connectorID}`);
  return schedule.id;
}
