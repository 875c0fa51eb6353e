import type { Db } from '../../../db/knex';
import { upsertAccounts, upsertBalances, type ProviderAccount } from '../../../areas/payments/accounts/accounts';
import { accountId, paymentId } from '../../../areas/payments/ids';
import type { ProviderPayment } from '../../../areas/payments/payments/payments';
import { upsertPayments } from '../../../areas/payments/payments/payments-upsert';
import { inTransaction } from '../../../db/errors';
import { connectorLabel } from '../../../areas/payments/ids';
import { api } from '../../support/http';
import { installSimulated, seedConnector, simulatedDirectory, testDb } from '../../support/payments';
import { temporalClient } from '../../support/temporal';

/**
 * Fetched provider data is upserted in batched statements (500 rows each): these tests prove the batches store exactly
 * what one-by-one upserts stored (rows, adjustments, merged metadata, events in input order) and stay idempotent.
 */
describe('payments ingestion in batches', () => {
  let db: Db;
  beforeAll(() => (db = testDb()));
  afterAll(async () => db.destroy());

  const payment = (j: number, extra: Partial<ProviderPayment> = {}): ProviderPayment => ({
    reference: `p-${j}`,
    createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, j)),
    type: j % 2 ? 'PAY-IN' : 'PAYOUT',
    status: 'SUCCEEDED',
    scheme: 'visa',
    asset: 'EUR/2',
    amount: 10n ** 25n + BigInt(j),
    sourceAccountReference: j % 3 ? 'src' : undefined,
    destinationAccountReference: 'dst',
    metadata: { n: String(j), quote: 'it\'s "quoted" \\ {a,b}' },
    raw: { j, big: 10n ** 30n },
    ...extra,
  });
  const events = async (connectorID: string, type: string): Promise<string[]> => {
    const { rows } = await db.raw(
      "SELECT payload::jsonb AS p FROM events_outbox WHERE app = 'payments' AND type = ? AND payload::jsonb->>'connectorID' = ? ORDER BY seq",
      [type, connectorID],
    );
    return rows.map((r: any) => r.p.reference ?? r.p.asset);
  };
  const count = async (table: string, where: Record<string, string>): Promise<number> =>
    Number(((await db(table).where(where).count('* as n')) as any[])[0].n);

  it('stores 1,203 payments over three batches exactly, with one adjustment and one event each, then changes nothing on a refetch', async () => {
    const { connectorID } = await seedConnector(db, [{ reference: 'src' }, { reference: 'dst' }]);
    const input = Array.from({ length: 1203 }, (_, j) => payment(j));
    const first = await inTransaction(db, (trx) => upsertPayments(trx, connectorID, input));
    expect(first.changed).toBe(1203);
    expect(first.ids).toEqual(input.map((p) => paymentId(connectorID, p.reference)));

    const rows = await db('payments_payments').where({ connector_id: connectorID }).orderBy('created_at');
    expect(rows).toHaveLength(1203);
    const sample = rows[1201];
    expect(sample).toMatchObject({
      id: paymentId(connectorID, 'p-1201'),
      reference: 'p-1201',
      type: 'PAY-IN',
      status: 'SUCCEEDED',
      scheme: 'visa',
      asset: 'EUR/2',
      amount: (10n ** 25n + 1201n).toString(),
      initial_amount: (10n ** 25n + 1201n).toString(),
      source_account_id: accountId(connectorID, 'src'),
      destination_account_id: accountId(connectorID, 'dst'),
      metadata: { n: '1201', quote: 'it\'s "quoted" \\ {a,b}' },
      created_at: new Date(Date.UTC(2024, 0, 1, 0, 0, 1201)),
    });
    expect(rows[0].source_account_id).toBeNull();
    // Big integers inside raw survive as exact numbers (read back as text to avoid JS number rounding).
    const { rows: raw } = await db.raw("SELECT raw->>'big' AS big FROM payments_payments WHERE id = ?", [sample.id]);
    expect(raw[0].big).toBe((10n ** 30n).toString());
    const { rows: sums } = await db.raw(
      'SELECT sum(p.amount)::text AS total, count(DISTINCT a.id)::int AS adjustments FROM payments_payments p JOIN payments_adjustments a ON a.payment_id = p.id WHERE p.connector_id = ?',
      [connectorID],
    );
    expect(sums[0]).toEqual({ total: (10n ** 25n * 1203n + (1202n * 1203n) / 2n).toString(), adjustments: 1203 });
    expect(await events(connectorID, 'SAVED_PAYMENT')).toEqual(input.map((p) => p.reference));

    const again = await inTransaction(db, (trx) => upsertPayments(trx, connectorID, input));
    expect(again.changed).toBe(0);
    expect(await events(connectorID, 'SAVED_PAYMENT')).toHaveLength(1203);

    // One new state among the 1,203: one change, one adjustment, one event.
    const changed = input.map((p, j) => (j === 700 ? { ...p, status: 'REFUNDED', amount: 0n, updatedAt: new Date(Date.UTC(2024, 1, 1)) } : p));
    expect((await inTransaction(db, (trx) => upsertPayments(trx, connectorID, changed))).changed).toBe(1);
    expect((await events(connectorID, 'SAVED_PAYMENT')).slice(1203)).toEqual(['p-700']);
    const refunded = await db('payments_payments')
      .where({ id: paymentId(connectorID, 'p-700') })
      .first();
    expect(refunded).toMatchObject({ status: 'REFUNDED', amount: '0', initial_amount: (10n ** 25n + 700n).toString() });
    expect((await db('payments_adjustments').where({ payment_id: refunded.id }).orderBy('seq')).map((a) => a.status)).toEqual([
      'SUCCEEDED',
      'REFUNDED',
    ]);
  });

  it('upserts a payment listed twice in order: the later state wins, metadata merges, both states are adjustments', async () => {
    const { connectorID } = await seedConnector(db, [{ reference: 'src' }, { reference: 'dst' }]);
    const input = [
      payment(1, { status: 'PENDING', metadata: { a: '1' } }),
      payment(2),
      payment(1, { status: 'SUCCEEDED', updatedAt: new Date(Date.UTC(2024, 0, 2)), metadata: { b: '2' } }),
    ];
    expect((await inTransaction(db, (trx) => upsertPayments(trx, connectorID, input))).changed).toBe(3);
    const p1 = await db('payments_payments')
      .where({ id: paymentId(connectorID, 'p-1') })
      .first();
    expect(p1).toMatchObject({ status: 'SUCCEEDED', metadata: { a: '1', b: '2' } });
    expect((await db('payments_adjustments').where({ payment_id: p1.id }).orderBy('seq')).map((a) => a.status)).toEqual(['PENDING', 'SUCCEEDED']);
    expect(await events(connectorID, 'SAVED_PAYMENT')).toEqual(['p-1', 'p-2', 'p-1']);
    // As one-by-one upserts did: refetching both states moves the row to PENDING and back (two changes), adds no
    // adjustment and ends on the later state.
    expect((await inTransaction(db, (trx) => upsertPayments(trx, connectorID, input))).changed).toBe(2);
    expect(await count('payments_adjustments', { payment_id: p1.id })).toBe(2);
    expect(await db('payments_payments').where({ id: p1.id }).first()).toMatchObject({ status: 'SUCCEEDED', metadata: { a: '1', b: '2' } });
    expect((await inTransaction(db, (trx) => upsertPayments(trx, connectorID, [input[2], input[1]]))).changed).toBe(0);
  });

  it('stores 1,100 accounts and their balances in batches, once, and only what changed afterwards', async () => {
    const { connectorID } = await seedConnector(db, []);
    const accounts: ProviderAccount[] = Array.from({ length: 1100 }, (_, i) => ({
      reference: `a-${i}`,
      type: i % 2 ? 'INTERNAL' : 'EXTERNAL',
      name: i % 3 ? `Account ${i}` : undefined,
      defaultAsset: i % 5 ? 'EUR/2' : undefined,
      createdAt: new Date(Date.UTC(2024, 0, 1, 0, i)),
      metadata: { i: String(i) },
      raw: { i },
    }));
    expect(await inTransaction(db, (trx) => upsertAccounts(trx, connectorID, 'simulated', accounts))).toBe(1100);
    expect(await count('payments_accounts', { connector_id: connectorID })).toBe(1100);
    expect(
      await db('payments_accounts')
        .where({ id: accountId(connectorID, 'a-3') })
        .first(),
    ).toMatchObject({
      reference: 'a-3',
      type: 'INTERNAL',
      name: null,
      default_asset: 'EUR/2',
      metadata: { i: '3' },
      raw: { i: 3 },
      created_at: new Date(Date.UTC(2024, 0, 1, 0, 3)),
    });
    expect(await events(connectorID, 'SAVED_ACCOUNT')).toEqual(accounts.map((a) => a.reference));
    expect(await inTransaction(db, (trx) => upsertAccounts(trx, connectorID, 'simulated', accounts))).toBe(0);
    const renamed = accounts.map((a, i) => (i === 900 ? { ...a, name: 'Renamed' } : a));
    expect(await inTransaction(db, (trx) => upsertAccounts(trx, connectorID, 'simulated', renamed))).toBe(1);
    expect((await events(connectorID, 'SAVED_ACCOUNT')).slice(1100)).toEqual(['a-900']);

    const balances = [
      ...accounts.map((a, i) => ({ accountReference: a.reference, asset: 'EUR/2', amount: 10n ** 22n + BigInt(i) })),
      { accountReference: 'unknown', asset: 'EUR/2', amount: 5n },
      { accountReference: 'a-0', asset: 'USD/2', amount: 7n },
    ];
    expect(await inTransaction(db, (trx) => upsertBalances(trx, connectorID, 'simulated', balances))).toBe(1101);
    expect(await count('payments_balances', { account_id: accountId(connectorID, 'unknown') })).toBe(0);
    expect(
      (
        await db('payments_balances')
          .where({ account_id: accountId(connectorID, 'a-1099'), asset: 'EUR/2' })
          .first()
      ).balance,
    ).toBe((10n ** 22n + 1099n).toString());
    const balanceEvents = await events(connectorID, 'SAVED_BALANCE');
    expect(balanceEvents).toHaveLength(1101);
    expect(balanceEvents.slice(-2)).toEqual(['EUR/2', 'USD/2']);
    expect(await inTransaction(db, (trx) => upsertBalances(trx, connectorID, 'simulated', balances))).toBe(0);
    // The same key twice: both are applied in order, the last amount stays.
    const twice = [
      { accountReference: 'a-5', asset: 'EUR/2', amount: 1n },
      { accountReference: 'a-5', asset: 'EUR/2', amount: 2n },
    ];
    expect(await inTransaction(db, (trx) => upsertBalances(trx, connectorID, 'simulated', twice))).toBe(2);
    expect(
      (
        await db('payments_balances')
          .where({ account_id: accountId(connectorID, 'a-5'), asset: 'EUR/2' })
          .first()
      ).balance,
    ).toBe('2');
  });
});

describe('a simulated connector with 10,000 payments', () => {
  let db: Db;
  beforeAll(() => (db = testDb()));
  afterAll(async () => db.destroy());

  it('ingests them all in its install task, then a reset with nothing changed writes and emits nothing', async () => {
    const { client, connection } = await temporalClient();
    try {
      const accounts = Array.from({ length: 200 }, (_, i) => ({ reference: `acc-${i}`, type: 'INTERNAL' }));
      const payments = Array.from({ length: 10_000 }, (_, j) => ({
        reference: `pay-${j}`,
        type: 'PAY-IN',
        status: j % 10 ? 'SUCCEEDED' : 'PENDING',
        amount: 1000 + j,
        asset: 'EUR/2',
        scheme: 'sepa credit',
        createdAt: new Date(Date.UTC(2024, 0, 1) + j * 1000).toISOString(),
        sourceAccountReference: `acc-${j % 200}`,
        destinationAccountReference: `acc-${(j + 1) % 200}`,
        metadata: { order: `o-${j}` },
      }));
      const dir = simulatedDirectory({ 'accounts.json': accounts, 'payments.json': payments });
      const connectorID = await installSimulated(dir, '1h');
      const name = (await api('GET', `/api/payments/v3/connectors/${connectorID}/config`)).body.data.name;
      const label = connectorLabel({ id: connectorID, provider: 'simulated', name });
      expect(await client.workflow.getHandle(`${label}-install`).result()).toEqual({ connectorID, changed: 10_200, webhooks: 0 });
      expect((await api('GET', `/api/payments/v3/tasks/${label}-install`)).body.data.status).toBe('SUCCEEDED');
      const stored = async () => Number(((await db('payments_payments').where({ connector_id: connectorID }).count('* as n')) as any[])[0].n);
      expect(await stored()).toBe(10_000);
      const last = await api('GET', `/api/payments/v3/payments/${paymentId(connectorID, 'pay-9999')}`);
      expect(last.body.data).toMatchObject({
        reference: 'pay-9999',
        amount: 10_999,
        status: 'SUCCEEDED',
        sourceAccountID: accountId(connectorID, 'acc-199'),
        metadata: { order: 'o-9999' },
      });
      const eventCount = async () =>
        Number(
          (await db.raw("SELECT count(*)::int AS n FROM events_outbox WHERE app = 'payments' AND payload::jsonb->>'connectorID' = ?", [connectorID]))
            .rows[0].n,
        );
      expect(await eventCount()).toBe(10_200);

      const reset = await api('POST', `/api/payments/v3/connectors/${connectorID}/reset`);
      expect(reset.status).toBe(202);
      expect(await client.workflow.getHandle(reset.body.data).result()).toEqual({ connectorID, changed: 0 });
      expect(await stored()).toBe(10_000);
      expect(await eventCount()).toBe(10_200);
    } finally {
      await connection.close();
    }
  }, 180_000);
});
