import { randomUUID } from 'node:crypto';
import { api } from '../../support/http';
import { newLedger } from '../../support/ledger';
import { type Bank, simulatedBank, uninstall } from './support';

/** Bad input answers a 4xx naming what is wrong, and writes nothing. */
describe('reconciliation: bad input', () => {
  let bank: Bank;
  let ledger: string;
  let policyID: string;

  beforeAll(async () => {
    bank = await simulatedBank({ 'USD/2': 100n });
    ledger = await newLedger('recon-bad');
    const res = await api('POST', '/api/reconciliation/policies', {
      body: { name: 'bad-input', ledgerName: ledger, ledgerQuery: {}, paymentsPoolID: bank.poolID },
    });
    expect(res.status).toBe(201);
    policyID = res.body.data.id;
  });
  afterAll(async () => uninstall(bank.connectorID));

  it.each([
    ['GET', (id: string) => `/api/reconciliation/policies/${id}`],
    ['DELETE', (id: string) => `/api/reconciliation/policies/${id}`],
    ['GET', (id: string) => `/api/reconciliation/reconciliations/${id}`],
  ])('%s %s answers 404 for an unknown id and for one that is not a UUID', async (method, path) => {
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const res = await api(method, path(id));
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ errorCode: 'NOT_FOUND', errorMessage: expect.stringContaining(id) });
    }
  });

  it('reconciling an unknown policy is 404', async () => {
    const at = new Date(Date.now() - 1000).toISOString();
    const res = await api('POST', `/api/reconciliation/policies/${randomUUID()}/reconciliation`, {
      body: { reconciledAtLedger: at, reconciledAtPayments: at },
    });
    expect(res.status).toBe(404);
    expect(res.body.errorCode).toBe('NOT_FOUND');
  });

  it.each(['reconciledAtLedger', 'reconciledAtPayments'])('a future %s is 400 naming it, and stores nothing', async (field) => {
    const past = new Date(Date.now() - 1000).toISOString();
    const body = { reconciledAtLedger: past, reconciledAtPayments: past, [field]: new Date(Date.now() + 60_000).toISOString() };
    const res = await api('POST', `/api/reconciliation/policies/${policyID}/reconciliation`, { body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorCode: 'VALIDATION', errorMessage: `body.${field}: must be in the past` });
    const listed = await api('GET', `/api/reconciliation/reconciliations?query=${encodeURIComponent(JSON.stringify({ $match: { policyID } }))}`);
    expect(listed.body.cursor.data).toEqual([]);
  });

  it.each([
    ['reconciledAtLedger', { reconciledAtPayments: '2024-01-01T00:00:00Z' }],
    ['reconciledAtPayments', { reconciledAtLedger: '2024-01-01T00:00:00Z' }],
    ['reconciledAtLedger', { reconciledAtLedger: 'yesterday', reconciledAtPayments: '2024-01-01T00:00:00Z' }],
  ])('a reconciliation without a valid %s is 400 naming it', async (field, body) => {
    const res = await api('POST', `/api/reconciliation/policies/${policyID}/reconciliation`, { body });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
    expect(res.body.errorMessage).toContain(field);
  });

  const valid = () => ({ name: 'p', ledgerName: ledger, ledgerQuery: { $match: { address: 'users:' } }, paymentsPoolID: bank.poolID });

  it.each(['name', 'ledgerName', 'ledgerQuery', 'paymentsPoolID'])('a policy without %s is 400 naming it', async (field) => {
    const body: Record<string, unknown> = valid();
    delete body[field];
    const res = await api('POST', '/api/reconciliation/policies', { body });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
    expect(res.body.errorMessage).toContain(field);
  });

  it.each([
    ['an unknown operator', { $nope: { address: 'x' } }, 'body.ledgerQuery: '],
    ['an unknown field', { $match: { colour: 'red' } }, 'body.ledgerQuery: '],
    ['a non-string address', { $match: { address: 12 } }, 'body.ledgerQuery: '],
    ['two operators', { $match: { address: 'a' }, $or: [] }, 'body.ledgerQuery: '],
  ])('a ledger query with %s is 400', async (_name, ledgerQuery, prefix) => {
    const res = await api('POST', '/api/reconciliation/policies', { body: { ...valid(), ledgerQuery } });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
    expect(res.body.errorMessage.startsWith(prefix)).toBe(true);
  });

  it.each([
    ['an unknown ledger', { ledgerName: 'no-such-ledger' }, 'body.ledgerName: '],
    ['an unknown pool', { paymentsPoolID: randomUUID() }, 'body.paymentsPoolID: '],
    ['an unknown field', { colour: 'red' }, 'body'],
    ['a non-object query', { ledgerQuery: 'address=users:' }, 'body.ledgerQuery'],
  ])('a policy naming %s is 400', async (_name, override, prefix) => {
    const res = await api('POST', '/api/reconciliation/policies', { body: { ...valid(), ...override } });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
    expect(res.body.errorMessage.startsWith(prefix)).toBe(true);
  });

  it.each([
    ['not JSON', 'nope'],
    ['an unknown operator', '{"$or":[]}'],
    ['an unknown field', '{"$match":{"ledger":"x"}}'],
  ])('a list query that is %s is 400', async (_name, query) => {
    for (const list of ['policies', 'reconciliations']) {
      const res = await api('GET', `/api/reconciliation/${list}?query=${encodeURIComponent(query)}`);
      expect(res.status).toBe(400);
      expect(res.body.errorMessage).toMatch(/^query: /);
    }
  });

  it('Idempotency-Key: a replay answers the first policy and reconciliation, the key with another body is 409', async () => {
    const key = { 'Idempotency-Key': randomUUID() };
    const body = { ...valid(), name: `idem-${randomUUID().slice(0, 6)}` };
    const [a, b] = await Promise.all([1, 2].map(() => api('POST', '/api/reconciliation/policies', { body, headers: key })));
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.data).toEqual(a.body.data);
    const byName = await api('GET', `/api/reconciliation/policies?query=${encodeURIComponent(JSON.stringify({ $match: { name: body.name } }))}`);
    expect(byName.body.cursor.data).toHaveLength(1);
    expect((await api('POST', '/api/reconciliation/policies', { body: { ...body, name: 'other' }, headers: key })).status).toBe(409);

    const at = new Date(Date.now() - 1000).toISOString();
    const reconcileKey = { 'Idempotency-Key': randomUUID() };
    const path = `/api/reconciliation/policies/${a.body.data.id}/reconciliation`;
    const first = await api('POST', path, { body: { reconciledAtLedger: at, reconciledAtPayments: at }, headers: reconcileKey });
    const replay = await api('POST', path, { body: { reconciledAtLedger: at, reconciledAtPayments: at }, headers: reconcileKey });
    expect(first.status).toBe(200);
    expect(replay.body.data).toEqual(first.body.data);
    const listed = await api(
      'GET',
      `/api/reconciliation/reconciliations?query=${encodeURIComponent(JSON.stringify({ $match: { policyID: a.body.data.id } }))}`,
    );
    expect(listed.body.cursor.data.map((r: { id: string }) => r.id)).toEqual([first.body.data.id]);
    const other = new Date(Date.now() - 2000).toISOString();
    expect((await api('POST', path, { body: { reconciledAtLedger: other, reconciledAtPayments: at }, headers: reconcileKey })).status).toBe(409);
  });

  it('a policy whose pool was deleted since cannot reconcile: 400 naming the pool', async () => {
    const other = await api('POST', '/api/payments/v3/pools', { body: { name: `gone-${randomUUID().slice(0, 6)}`, accountIDs: [] } });
    expect(other.status).toBe(201);
    const created = await api('POST', '/api/reconciliation/policies', { body: { ...valid(), paymentsPoolID: other.body.data } });
    expect(created.status).toBe(201);
    expect((await api('DELETE', `/api/payments/v3/pools/${other.body.data}`)).status).toBe(204);
    const at = new Date(Date.now() - 1000).toISOString();
    const res = await api('POST', `/api/reconciliation/policies/${created.body.data.id}/reconciliation`, {
      body: { reconciledAtLedger: at, reconciledAtPayments: at },
    });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toContain(other.body.data);
  });
});
