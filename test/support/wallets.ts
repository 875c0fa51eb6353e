import { randomBytes } from 'node:crypto';
import { api } from './http';

export const unique = (): string => randomBytes(4).toString('hex');

export async function newWallet(name = `w-${unique()}`, metadata: Record<string, string> = {}): Promise<string> {
  const res = await api('POST', '/api/wallets/wallets', { body: { name, metadata } });
  if (res.status !== 201) throw new Error(`wallet: ${res.status} ${res.text}`);
  return res.body.data.id;
}

export const credit = (id: string, amount: number, extra: Record<string, unknown> = {}) =>
  api('POST', `/api/wallets/wallets/${id}/credit`, { body: { amount: { asset: 'USD/2', amount }, ...extra } });

export const debit = (id: string, amount: number, extra: Record<string, unknown> = {}) =>
  api('POST', `/api/wallets/wallets/${id}/debit`, { body: { amount: { asset: 'USD/2', amount }, ...extra } });

export const mainBalance = async (id: string): Promise<number> =>
  (await api('GET', `/api/wallets/wallets/${id}`)).body.data.balances.main.assets['USD/2'] ?? 0;
