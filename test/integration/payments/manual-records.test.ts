import type { Db } from '../../../db/knex';
import { connectorId } from '../../../areas/payments/ids';
import { api } from '../../support/http';
import { seedConnector, suffix, testDb } from '../../support/payments';

/** Formance's v3 manual records (createAccount, createPayment) and the v3 reads around them, over HTTP. */
describe('payments v3: recorded accounts and payments', () => {
  let db: Db;
  beforeAll(() => {
    db = testDb();
  });
  afterAll(async () => db.destroy());

  const installedConnector = async (provider: 'simulated' | 'generic') => {
    const id = connectorId(provider);
    await db('payments_connectors').insert({ id, provider, name: `manual-${suffix()}`, config: '{}' });
    return id;
  };
  const account = (connectorID: string, reference: string) => ({
    connectorID,
    reference,
    accountName: reference,
    type: 'INTERNAL',
    createdAt: '2026-01-01T00:00:00Z',
  });
  const payment = (connectorID: string, extra: Record<string, unknown> = {}) => ({
    connectorID,
    reference: `p-${suffix()}`,
    type: 'PAY-IN',
    scheme: 'other',
    asset: 'EUR/2',
    amount: 10,
    initialAmount: 10,
    createdAt: '2026-01-01T00:00:00Z',
    ...extra,
  });

  it('a connector without the capability refuses with 400 naming it; an uninstalled one is 404', async () => {
    const generic = await installedConnector('generic');
    const refusedAccount = await api('POST', '/api/payments/v3/accounts', { body: account(generic, 'a') });
    expect(refusedAccount.status).toBe(400);
    expect(refusedAccount.body.errorMessage).toContain('ALLOW_FORMANCE_ACCOUNT_CREATION');
    const refusedPayment = await api('POST', '/api/payments/v3/payments', { body: payment(generic) });
    expect(refusedPayment.status).toBe(400);
    expect(refusedPayment.body.errorMessage).toContain('ALLOW_FORMANCE_PAYMENT_CREATION');
    const { connectorID: uninstalled } = await seedConnector(db, []);
    expect((await api('POST', '/api/payments/v3/accounts', { body: account(uninstalled, 'a') })).status).toBe(404);
  });

  it('a recorded payment names accounts of its own connector only, keeps amounts exact and answers with no source as null', async () => {
    const connectorID = await installedConnector('simulated');
    const other = await seedConnector(db, [{ reference: 'elsewhere' }]);
    const foreign = await api('POST', '/api/payments/v3/payments', { body: payment(connectorID, { sourceAccountID: other.accountIDs[0] }) });
    expect(foreign.status).toBe(400);
    expect(foreign.body.errorMessage).toMatch(/^body\.sourceAccountID/);
    const wide = 340282366920938463463374607431768211455n;
    const res = await api('POST', '/api/payments/v3/payments', { body: payment(connectorID, { amount: wide, initialAmount: wide }) });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ amount: wide, status: 'PENDING', sourceAccountID: null, destinationAccountID: null });
    expect(res.body.data.adjustments).toEqual([expect.objectContaining({ id: expect.any(String), status: 'PENDING', amount: wide })]);
    const legacy = await api('GET', `/api/payments/payments/${res.body.data.id}`);
    expect(legacy.body.data).toMatchObject({ sourceAccountID: '', destinationAccountID: '' });
    expect(legacy.body.data.adjustments[0].id).toBeUndefined();
  });

  it("v3 metadata updates take Formance's wrapped body; a flat map is refused", async () => {
    const connectorID = await installedConnector('simulated');
    const id = (await api('POST', '/api/payments/v3/payments', { body: payment(connectorID) })).body.data.id;
    expect((await api('PATCH', `/api/payments/v3/payments/${id}/metadata`, { body: { team: 'ops' } })).status).toBe(400);
    expect((await api('PATCH', `/api/payments/v3/payments/${id}/metadata`, { body: { metadata: { team: 'ops' } } })).status).toBe(204);
    expect((await api('GET', `/api/payments/v3/payments/${id}`)).body.data.metadata).toEqual({ team: 'ops' });
  });

  it('the accounts and initiations queries refuse unknown fields', async () => {
    const res = await api('GET', `/api/payments/v3/accounts?query=${encodeURIComponent('{"$match":{"status":"x"}}')}`);
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toContain('unknown field "status"');
    const initiations = await api('GET', `/api/payments/v3/payment-initiations?query=${encodeURIComponent('{"$match":{"scheme":"x"}}')}`);
    expect(initiations.status).toBe(400);
    expect(initiations.body.errorMessage).toContain('unknown field "scheme"');
    const byAmount = await api(
      'GET',
      `/api/payments/v3/payment-initiations?query=${encodeURIComponent('{"$gte":{"amount":340282366920938463463374607431768211455}}')}`,
    );
    expect(byAmount.status).toBe(200);
    // Other test files may have initiated larger amounts (the exact-amounts suite goes to 2^256): whatever is listed
    // must be at least the bound, compared exactly, and nothing smaller may slip through a rounded comparison.
    const floor = 2n ** 128n - 1n;
    expect(byAmount.body.cursor.data.every((i: { amount: number | bigint }) => BigInt(i.amount) >= floor)).toBe(true);
    const below = await api(
      'GET',
      `/api/payments/v3/payment-initiations?pageSize=1000&query=${encodeURIComponent('{"$lt":{"amount":340282366920938463463374607431768211455}}')}`,
    );
    expect(below.body.cursor.data.some((i: { amount: number | bigint }) => BigInt(i.amount) >= floor)).toBe(false);
  });
});
