import { api } from './http';

/** Ledger helpers for tests of other areas: a fresh ledger, funding from world, and balances. */
export async function newLedger(prefix = 'orch'): Promise<string> {
  const name = `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
  const res = await api('POST', `/api/ledger/v2/${name}`, { body: {} });
  if (res.status !== 204) throw new Error(`ledger creation failed: ${res.status} ${res.text}`);
  return name;
}

export async function fund(ledger: string, account: string, amount: number | bigint, asset = 'USD/2'): Promise<void> {
  const res = await api('POST', `/api/ledger/v2/${ledger}/transactions`, { body: { postings: [{ source: 'world', destination: account, amount, asset }] } });
  if (res.status >= 300) throw new Error(`funding failed: ${res.status} ${res.text}`);
}

export async function balance(ledger: string, account: string, asset = 'USD/2'): Promise<bigint> {
  const res = await api('GET', `/api/ledger/v2/${ledger}/accounts/${account}`);
  if (res.status !== 200) throw new Error(`account read failed: ${res.status} ${res.text}`);
  return BigInt(res.body.data.volumes?.[asset]?.balance ?? 0);
}
