import { api } from '../../support/http';
import { newLedger, posting, postTransaction } from '../../support/ledger';
import { clockPast, isDefined, pollUntil } from '../../support/eventually';
import { installSimulated, simulatedDirectory, suffix, writeJson } from '../../support/payments';

/** A payments account id as the simulated connector's accounts get it (areas/payments/ids.ts). */
export const accountIdOf = (connectorID: string, reference: string) =>
  Buffer.from(JSON.stringify({ ConnectorID: connectorID, Reference: reference })).toString('base64url');

/** The pool's balances by asset, read through the API (optionally at an instant). */
export async function poolBalances(poolID: string, at?: Date): Promise<Record<string, bigint>> {
  const res = await api('GET', `/api/payments/v3/pools/${poolID}/balances${at ? `?at=${at.toISOString()}` : ''}`);
  if (res.status !== 200) throw new Error(`pool balances: ${res.status} ${res.text}`);
  return Object.fromEntries((res.body.data as Array<{ asset: string; amount: number | bigint }>).map((b) => [b.asset, BigInt(b.amount)]));
}

export interface Bank {
  dir: string;
  connectorID: string;
  poolID: string;
  /** Rewrites the connector's balances file and waits until the pool shows them. */
  setBalances(balances: Record<string, bigint>): Promise<void>;
}

const same = (a: Record<string, bigint>, b: Record<string, bigint>) =>
  JSON.stringify(
    Object.entries(a)
      .map(([k, v]) => [k, String(v)])
      .sort(),
  ) ===
  JSON.stringify(
    Object.entries(b)
      .map(([k, v]) => [k, String(v)])
      .sort(),
  );

/** A simulated connector with one INTERNAL account, `main`, in a pool of its own, holding `balances` (fetched). */
export async function simulatedBank(balances: Record<string, bigint>): Promise<Bank> {
  const file = (b: Record<string, bigint>) => Object.entries(b).map(([asset, amount]) => ({ accountReference: 'main', asset, amount }));
  const dir = simulatedDirectory({
    'accounts.json': [{ reference: 'main', name: 'Main', type: 'INTERNAL', defaultAsset: 'USD/2' }],
    'balances.json': file(balances),
  });
  const connectorID = await installSimulated(dir, '1s');
  const poolID: string = await pollUntil(
    async () => {
      const res = await api('POST', '/api/payments/v3/pools', {
        body: { name: `recon-${suffix()}`, accountIDs: [accountIdOf(connectorID, 'main')] },
      });
      return res.status === 201 ? res.body.data : undefined;
    },
    isDefined,
    { timeoutMs: 30_000, what: 'the simulated account fetched' },
  );
  const setBalances = async (next: Record<string, bigint>) => {
    writeJson(dir, 'balances.json', file(next));
    await pollUntil(async () => (same(await poolBalances(poolID), next) ? true : undefined), isDefined, {
      timeoutMs: 30_000,
      what: 'the balances fetched',
    });
  };
  await pollUntil(async () => (same(await poolBalances(poolID), balances) ? true : undefined), isDefined, {
    timeoutMs: 30_000,
    what: 'the balances fetched',
  });
  return { dir, connectorID, poolID, setBalances };
}

export async function uninstall(connectorID: string): Promise<void> {
  await api('DELETE', `/api/payments/v3/connectors/${connectorID}`);
}

/** A ledger where `world` funded `users:001` with each amount: `world` then holds minus the total, per asset. */
export async function fundedLedger(amounts: Record<string, bigint>): Promise<string> {
  const ledger = await newLedger('recon');
  for (const [asset, amount] of Object.entries(amounts)) {
    const res = await postTransaction(ledger, { postings: [posting('world', 'users:001', amount, asset)] });
    if (res.status !== 200 && res.status !== 201) throw new Error(`transaction: ${res.status} ${res.text}`);
  }
  return ledger;
}

/** Waits until the clock is past `instant` (so it is in the past for the API), by the smallest step. */
export async function pastOf(instant: Date): Promise<Date> {
  await clockPast(instant.getTime());
  return instant;
}
