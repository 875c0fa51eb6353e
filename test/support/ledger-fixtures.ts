import { api } from './http';

/** Ledger helpers for tests of other areas: funding from world, and balances (a fresh ledger: newLedger in ./ledger). */

export async function fund(ledger: string, account: string, amount: number | bigint, asset = 'USD/2'): Promise<void> {
  const res = await api('POST', `/api/ledger/v2/${ledger}/transactions`, {
    body: { postings: [{ source: 'world', destination: account, amount, asset }] },
  });
  if (res.status >= 300) throw new Error(`funding failed: ${res.status} ${res.text}`);
}

export async function balance(ledger: string, account: string, asset = 'USD/2'): Promise<bigint> {
  const res = await api('GET', `/api/ledger/v2/${ledger}/accounts/${account}`);
  if (res.status !== 200) throw new Error(`account read failed: ${res.status} ${res.text}`);
  return BigInt(res.body.data.volumes?.[asset]?.balance ?? 0);
}
