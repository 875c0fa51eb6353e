import type { Db } from '../../../db/knex';
import { api } from '../../support/http';
import { isDefined, pollUntil } from '../../support/eventually';
import { seedConnector, suffix, testDb } from '../../support/payments';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

describe('payments resources: bank accounts (op 8), payment service users (ops 3, 4), pools (op 5)', () => {
  let db: Db;
  beforeAll(() => {
    db = testDb();
  });
  afterAll(async () => db.destroy());

  it('op 8 reads a bank account field by field, IBAN and account number masked', async () => {
    const created = await api('POST', '/api/payments/v3/bank-accounts', {
      body: {
        name: 'Main account',
        iban: 'FR7630006000011234567890189',
        accountNumber: '12345678901',
        swiftBicCode: 'BNPAFRPP',
        country: 'FR',
        metadata: { team: 'ops' },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ data: expect.stringMatching(UUID) });
    const res = await api('GET', `/api/payments/bank-accounts/${created.body.data}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        id: created.body.data,
        name: 'Main account',
        createdAt: expect.stringMatching(ISO),
        country: 'FR',
        iban: 'FR76*******************0189',
        accountNumber: '12******901',
        swiftBicCode: 'BNPAFRPP',
        relatedAccounts: [],
        metadata: { team: 'ops' },
      },
    });
  });

  it.each([
    ['no iban nor account number', { name: 'x' }],
    ['malformed iban', { name: 'x', iban: 'not an iban' }],
    ['bad country', { name: 'x', iban: 'FR7630006000011234567890189', country: 'France' }],
    ['unknown field', { name: 'x', iban: 'FR7630006000011234567890189', colour: 'red' }],
    ['missing name', { iban: 'FR7630006000011234567890189' }],
  ])('bank account creation refuses %s with 400', async (_name, body) => {
    const res = await api('POST', '/api/payments/v3/bank-accounts', { body });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
  });

  it('op 8 answers 404 for an unknown or malformed id', async () => {
    expect((await api('GET', '/api/payments/bank-accounts/6f1c1d2e-6b7a-4c1e-9f3e-000000000000')).status).toBe(404);
    expect((await api('GET', '/api/payments/bank-accounts/nope')).status).toBe(404);
  });

  it('ops 3 and 4 create and read a payment service user field by field', async () => {
    const bank = await api('POST', '/api/payments/v3/bank-accounts', { body: { name: 'b', accountNumber: '000123456' } });
    const body = {
      name: 'Ada Lovelace',
      contactDetails: { email: 'ada@example.com', phoneNumber: '+33 1 23 45 67 89' },
      address: { streetNumber: '12', streetName: 'rue de la Paix', city: 'Paris', region: 'IDF', postalCode: '75002', country: 'FR' },
      bankAccountIDs: [bank.body.data],
      metadata: { tier: 'gold' },
    };
    const created = await api('POST', '/api/payments/v3/payment-service-users', { body });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ data: expect.stringMatching(UUID) });
    const res = await api('GET', `/api/payments/v3/payment-service-users/${created.body.data}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id: created.body.data, createdAt: expect.stringMatching(ISO), ...body } });
    const minimal = await api('POST', '/api/payments/v3/payment-service-users', { body: { name: 'Min' } });
    const read = await api('GET', `/api/payments/v3/payment-service-users/${minimal.body.data}`);
    expect(read.body.data).toEqual({ id: minimal.body.data, name: 'Min', createdAt: expect.stringMatching(ISO), bankAccountIDs: [], metadata: {} });
  });

  it.each([
    ['missing name', {}],
    ['empty name', { name: '' }],
    ['bad email', { name: 'x', contactDetails: { email: 'not-an-email' } }],
    ['bad phone', { name: 'x', contactDetails: { phoneNumber: 'call me' } }],
    ['bad address country', { name: 'x', address: { country: 'fr' } }],
    ['unknown address field', { name: 'x', address: { planet: 'Earth' } }],
    ['non-uuid bank account', { name: 'x', bankAccountIDs: ['abc'] }],
    ['unknown bank account', { name: 'x', bankAccountIDs: ['6f1c1d2e-6b7a-4c1e-9f3e-000000000000'] }],
    ['non-string metadata', { name: 'x', metadata: { n: 1 } }],
  ])('op 3 refuses %s with 400 VALIDATION', async (_name, body) => {
    const res = await api('POST', '/api/payments/v3/payment-service-users', { body });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
  });

  it('op 4 answers 404 for an unknown user, and links and deletes', async () => {
    expect((await api('GET', '/api/payments/v3/payment-service-users/6f1c1d2e-6b7a-4c1e-9f3e-000000000000')).status).toBe(404);
    const user = await api('POST', '/api/payments/v3/payment-service-users', { body: { name: 'Linker' } });
    const bank = await api('POST', '/api/payments/v3/bank-accounts', { body: { name: 'b', accountNumber: '000123456' } });
    expect((await api('POST', `/api/payments/v3/payment-service-users/${user.body.data}/bank-accounts/${bank.body.data}`)).status).toBe(204);
    expect((await api('GET', `/api/payments/v3/payment-service-users/${user.body.data}`)).body.data.bankAccountIDs).toEqual([bank.body.data]);
    const deleted = await api('DELETE', `/api/payments/v3/payment-service-users/${user.body.data}`);
    expect(deleted.status).toBe(202);
    expect(deleted.body.data.taskID).toBe(`payment-service-user-${user.body.data}-delete`);
    const task = await pollUntil(
      async () => {
        const read = (await api('GET', `/api/payments/v3/tasks/${deleted.body.data.taskID}`)).body.data;
        return read.status === 'PROCESSING' ? undefined : read;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'the deletion task' },
    );
    expect(task).toMatchObject({ status: 'SUCCEEDED' });
    expect((await api('GET', `/api/payments/v3/payment-service-users/${user.body.data}`)).status).toBe(404);
    expect((await api('DELETE', `/api/payments/v3/payment-service-users/${user.body.data}`)).status).toBe(404);
    expect((await api('GET', `/api/payments/v3/bank-accounts/${bank.body.data}`)).status).toBe(200);
  });

  it('op 5 creates a pool of existing INTERNAL accounts; read, balances, add/remove, delete', async () => {
    const { accountIDs } = await seedConnector(db, [{ reference: 'a1' }, { reference: 'a2' }, { reference: 'ext', type: 'EXTERNAL' }]);
    await db('payments_balances').insert([
      { account_id: accountIDs[0], asset: 'EUR/2', balance: '100' },
      { account_id: accountIDs[1], asset: 'EUR/2', balance: '25' },
    ]);
    const name = `pool-${suffix()}`;
    const created = await api('POST', '/api/payments/v3/pools', { body: { name, accountIDs: [accountIDs[0]] } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ data: expect.stringMatching(UUID) });
    const id = created.body.data;
    expect((await api('POST', `/api/payments/v3/pools/${id}/accounts/${accountIDs[1]}`)).status).toBe(204);
    const read = await api('GET', `/api/payments/v3/pools/${id}`);
    expect(read.body).toEqual({
      data: { id, name, createdAt: expect.stringMatching(ISO), type: 'STATIC', poolAccounts: [accountIDs[0], accountIDs[1]].sort() },
    });
    expect((await api('GET', `/api/payments/v3/pools/${id}/balances`)).body).toEqual({
      data: [{ asset: 'EUR/2', amount: 125, relatedAccounts: [accountIDs[0], accountIDs[1]].sort() }],
    });
    expect((await api('DELETE', `/api/payments/v3/pools/${id}/accounts/${accountIDs[1]}`)).status).toBe(204);
    expect((await api('POST', `/api/payments/v3/pools/${id}/accounts/${accountIDs[2]}`)).status).toBe(400);
    expect((await api('POST', '/api/payments/v3/pools', { body: { name, accountIDs: [] } })).status).toBe(409);
    expect((await api('DELETE', `/api/payments/v3/pools/${id}`)).status).toBe(204);
    expect((await api('GET', `/api/payments/v3/pools/${id}`)).status).toBe(404);
  });

  it('a dynamic pool (Formance v3) holds the INTERNAL accounts its query matches, read by read; its query is replaced, not its accounts', async () => {
    const { connectorID, accountIDs } = await seedConnector(db, [{ reference: 'd1' }, { reference: 'd2' }, { reference: 'dext', type: 'EXTERNAL' }]);
    await db('payments_balances').insert([
      { account_id: accountIDs[0], asset: 'USD/2', balance: '7' },
      { account_id: accountIDs[2], asset: 'USD/2', balance: '1000' },
    ]);
    const query = { $match: { connectorID } };
    const created = await api('POST', '/api/payments/v3/pools', { body: { name: `dyn-${suffix()}`, query } });
    expect(created.status).toBe(201);
    const id = created.body.data;
    const read = (await api('GET', `/api/payments/v3/pools/${id}`)).body.data;
    expect(read).toMatchObject({ type: 'DYNAMIC', query, poolAccounts: [accountIDs[0], accountIDs[1]].sort() });
    expect((await api('GET', `/api/payments/v3/pools/${id}/balances/latest`)).body.data).toEqual([
      { asset: 'USD/2', amount: 7, relatedAccounts: [accountIDs[0]] },
    ]);
    expect((await api('POST', `/api/payments/v3/pools/${id}/accounts/${accountIDs[1]}`)).status).toBe(400);
    const narrowed = { $and: [{ $match: { connectorID } }, { $match: { reference: 'd2' } }] };
    expect((await api('PATCH', `/api/payments/v3/pools/${id}/query`, { body: { query: narrowed } })).status).toBe(204);
    expect((await api('GET', `/api/payments/v3/pools/${id}`)).body.data.poolAccounts).toEqual([accountIDs[1]]);
    const badQuery = await api('PATCH', `/api/payments/v3/pools/${id}/query`, { body: { query: { $match: { status: 'x' } } } });
    expect(badQuery.status).toBe(400);
    expect(badQuery.body.errorMessage).toMatch(/^body\.query: query: unknown field "status"/);
    const both = await api('POST', '/api/payments/v3/pools', { body: { name: `dyn-${suffix()}`, query, accountIDs: [accountIDs[0]] } });
    expect(both.status).toBe(400);
    const fixed = (await api('POST', '/api/payments/v3/pools', { body: { name: `static-${suffix()}`, accountIDs: [] } })).body.data;
    expect((await api('PATCH', `/api/payments/v3/pools/${fixed}/query`, { body: { query } })).status).toBe(400);
  });

  it.each([
    ['missing name', { accountIDs: [] }],
    ['missing accountIDs', { name: 'p' }],
    ['unknown account', { name: 'p', accountIDs: ['nope'] }],
    ['accountIDs not an array', { name: 'p', accountIDs: 'a' }],
  ])('op 5 refuses %s with 400 VALIDATION', async (_name, body) => {
    const res = await api('POST', '/api/payments/v3/pools', { body });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
  });

  it('emits SAVED_BANK_ACCOUNT and SAVED_POOL to the outbox with masked numbers', async () => {
    const created = await api('POST', '/api/payments/v3/bank-accounts', { body: { name: `evt-${suffix()}`, iban: 'DE89370400440532013000' } });
    const rows = await db('events_outbox')
      .where({ app: 'payments', type: 'SAVED_BANK_ACCOUNT' })
      .whereRaw('payload LIKE ?', [`%${created.body.data}%`]);
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0].payload)).toMatchObject({ id: created.body.data, iban: 'DE89**************3000' });
    expect(rows[0].version).toBe('v3');
  });
});
