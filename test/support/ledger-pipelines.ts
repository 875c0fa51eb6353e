import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { api } from './http';
import { postTransaction, posting } from './ledger';

/**
 * A second database on the test PostgreSQL server, for the postgres exporter driver: its URL (with the test server's
 * credentials, over 127.0.0.1, which the test allow-list lets through) and a drop.
 */
export async function scratchDatabase(
  prefix = 'export',
): Promise<{ url: string; query: <T>(sql: string, params?: unknown[]) => Promise<T[]>; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.hostname = '127.0.0.1';
  url.pathname = `/${name}`;
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  return {
    url: url.toString(),
    query: async <T>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as T[],
    drop: async () => {
      await client.end();
      const dropper = new Client({ connectionString: process.env.TEST_DATABASE_URL });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}

/** Writes `count` changes of every kind the ledger logs (transactions, metadata set and deleted, reverts). */
export async function writeLogs(ledger: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const kind = i % 4;
    if (kind === 0 || kind === 3) {
      const res = await postTransaction(ledger, { postings: [posting('world', `users:${i}`, 100 + i)], metadata: { n: String(i) } });
      if (res.status !== 200) throw new Error(`transaction: ${res.status} ${res.text}`);
    } else if (kind === 1) {
      const res = await api('POST', `/api/ledger/v2/${ledger}/accounts/users:${i - 1}/metadata`, { body: { tier: String(i) } });
      if (res.status !== 204) throw new Error(`metadata: ${res.status} ${res.text}`);
    } else {
      const res = await api('DELETE', `/api/ledger/v2/${ledger}/accounts/users:${i - 2}/metadata/tier`);
      if (res.status !== 204) throw new Error(`delete metadata: ${res.status} ${res.text}`);
    }
  }
}

/** The ledger's logs, oldest first, as GET .../logs gives them (ids as numbers). */
export async function ledgerLogs(ledger: string): Promise<Array<{ id: number; type: string; data: unknown; date: string; hash?: string }>> {
  const all: Array<{ id: number; type: string; data: unknown; date: string; hash?: string }> = [];
  let path = `/api/ledger/v2/${ledger}/logs?pageSize=1000`;
  for (;;) {
    const res = await api('GET', path);
    if (res.status !== 200) throw new Error(`logs: ${res.status} ${res.text}`);
    all.push(...res.body.cursor.data);
    if (!res.body.cursor.hasMore) break;
    path = `/api/ledger/v2/${ledger}/logs?cursor=${res.body.cursor.next}`;
  }
  return all.reverse();
}
