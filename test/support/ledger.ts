import { randomBytes } from 'node:crypto';
import { api } from './http';

/** A fresh ledger with a unique name (all test files share one database). */
export async function newLedger(prefix = 'test'): Promise<string> {
  const name = `${prefix}-${randomBytes(6).toString('hex')}`;
  const res = await api('POST', `/api/ledger/v2/${name}`);
  if (res.status !== 204) throw new Error(`creating ledger ${name}: ${res.status} ${res.text}`);
  return name;
}

export const posting = (source: string, destination: string, amount: number | bigint, asset = 'USD/2') => ({ source, destination, amount, asset });

/** POST a v2 transaction; returns the raw response. */
export function postTransaction(ledger: string, body: unknown, headers: Record<string, string> = {}, query = '') {
  return api('POST', `/api/ledger/v2/${ledger}/transactions${query}`, { body, headers });
}
