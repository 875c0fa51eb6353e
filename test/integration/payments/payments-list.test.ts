import type { Db } from '../../../db/knex';
import { upsertPayment } from '../../../areas/payments/payments/payments-upsert';
import { api } from '../../support/http';
import { seedConnector, testDb } from '../../support/payments';

/** Op 7 over a connector of its own: every query is scoped to it with `$match connectorID`, so other tests' data never interferes. */
describe('op 7: GET /api/payments/payments', () => {
  let db: Db;
  let connectorID: string;
  const N = 23;
  const statuses = ['SUCCEEDED', 'PENDING', 'FAILED'];
  const types = ['PAY-IN', 'PAYOUT', 'TRANSFER'];

  beforeAll(async () => {
    db = testDb();
    ({ connectorID } = await seedConnector(db, [{ reference: 'src' }, { reference: 'dst' }]));
    for (let i = 0; i < N; i++) {
      await upsertPayment(db, connectorID, {
        reference: `ref-${String(i).padStart(2, '0')}`,
        createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, i % 7)),
        type: types[i % 3],
        status: statuses[i % 3],
        scheme: i % 2 ? 'visa' : 'sepa credit',
        asset: i % 4 ? 'EUR/2' : 'USD/2',
        amount: BigInt(1000 + ((i * 37) % 11) * 10),
        initialAmount: BigInt(2000 + i),
        sourceAccountReference: i % 5 ? 'src' : undefined,
        destinationAccountReference: 'dst',
        metadata: i % 2 ? { parity: 'odd', n: String(i) } : { n: String(i) },
        raw: { i },
      });
    }
    // A second state of one payment: a second adjustment, the payment takes the latest status and amount.
    await upsertPayment(db, connectorID, {
      reference: 'ref-00',
      createdAt: new Date(Date.UTC(2024, 0, 1)),
      updatedAt: new Date(Date.UTC(2024, 0, 2)),
      type: 'PAY-IN',
      status: 'REFUNDED',
      scheme: 'sepa credit',
      asset: 'USD/2',
      amount: 0n,
      metadata: {},
      raw: { refunded: true },
    });
  });
  afterAll(async () => db.destroy());

  const scoped = (extra?: object) => JSON.stringify(extra ? { $and: [{ $match: { connectorID } }, extra] } : { $match: { connectorID } });
  const list = (params: Record<string, string | string[]>) => {
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) for (const value of Array.isArray(v) ? v : [v]) search.append(k, value);
    return api('GET', `/api/payments/payments?${search}`);
  };
  const refs = async (extra: object) => {
    const res = await list({ pageSize: '1000', query: scoped(extra) });
    expect(res.status).toBe(200);
    return res.body.cursor.data.map((p: any) => p.reference).sort();
  };

  it('answers the spec Payment shape with adjustments, upper-case provider and lower-case scheme', async () => {
    const res = await list({ query: scoped({ $match: { reference: 'ref-00' } }) });
    expect(res.status).toBe(200);
    expect(res.body.cursor).toEqual({ pageSize: 15, hasMore: false, previous: '', next: '', data: [expect.any(Object)] });
    const payment = res.body.cursor.data[0];
    expect(payment).toEqual({
      id: expect.any(String),
      reference: 'ref-00',
      sourceAccountID: '',
      destinationAccountID: expect.any(String),
      connectorID,
      provider: 'SIMULATED',
      type: 'PAY-IN',
      status: 'REFUNDED',
      initialAmount: 2000,
      amount: 0,
      scheme: 'sepa credit',
      asset: 'USD/2',
      createdAt: '2024-01-01T00:00:00.000Z',
      raw: { refunded: true },
      metadata: { n: '0' },
      adjustments: [
        { reference: 'ref-00', createdAt: '2024-01-02T00:00:00.000Z', status: 'REFUNDED', amount: 0, raw: { refunded: true } },
        { reference: 'ref-00', createdAt: '2024-01-01T00:00:00.000Z', status: 'SUCCEEDED', amount: 1000, raw: { i: 0 } },
      ],
    });
  });

  it('pages forward and back with the cursor, visiting every payment exactly once', async () => {
    const seen: string[] = [];
    let res = await list({ pageSize: '5', query: scoped() });
    const pages = [res.body.cursor];
    while (res.body.cursor.next) {
      res = await api('GET', `/api/payments/payments?cursor=${res.body.cursor.next}`);
      expect(res.status).toBe(200);
      pages.push(res.body.cursor);
    }
    for (const page of pages) seen.push(...page.data.map((p: any) => p.id));
    expect(seen).toHaveLength(N);
    expect(new Set(seen).size).toBe(N);
    const back = await api('GET', `/api/payments/payments?cursor=${pages[2].previous}`);
    expect(back.body.cursor.data.map((p: any) => p.id)).toEqual(pages[1].data.map((p: any) => p.id));
    expect(pages[0].previous).toBe('');
    expect(pages[pages.length - 1].hasMore).toBe(false);
  });

  const sortCases: Array<[string, (p: any) => string | number | bigint]> = [
    ['date', (p) => p.createdAt],
    ['createdAt', (p) => p.createdAt],
    ['amount', (p) => p.amount],
    ['initialAmount', (p) => p.initialAmount],
    ['reference', (p) => p.reference],
    ['status', (p) => p.status],
    ['type', (p) => p.type],
    ['asset', (p) => p.asset],
    ['scheme', (p) => p.scheme],
    ['id', (p) => p.id],
  ];
  for (const [field, value] of sortCases) {
    for (const dir of ['asc', 'desc'] as const) {
      it(`sorts by ${field}:${dir} across pages`, async () => {
        const all: any[] = [];
        let res = await list({ pageSize: '4', sort: `${field}:${dir}`, query: scoped() });
        all.push(...res.body.cursor.data);
        while (res.body.cursor.next) {
          res = await api('GET', `/api/payments/payments?cursor=${res.body.cursor.next}`);
          all.push(...res.body.cursor.data);
        }
        expect(all).toHaveLength(N);
        const values = all.map(value);
        for (let i = 1; i < values.length; i++) {
          const ordered = dir === 'asc' ? values[i - 1] <= values[i] : values[i - 1] >= values[i];
          if (!ordered) throw new Error(`${field}:${dir} out of order at ${i}: ${values[i - 1]} then ${values[i]}`);
        }
      });
    }
  }

  it('defaults to date descending and accepts several sort keys', async () => {
    const res = await list({ pageSize: '1000', query: scoped() });
    const dates = res.body.cursor.data.map((p: any) => p.createdAt);
    expect([...dates].sort().reverse()).toEqual(dates);
    const multi = await list({ pageSize: '1000', sort: ['status:asc', 'amount:desc'], query: scoped() });
    const keys = multi.body.cursor.data.map((p: any) => [p.status, p.amount]);
    for (let i = 1; i < keys.length; i++) {
      expect(keys[i - 1][0] < keys[i][0] || (keys[i - 1][0] === keys[i][0] && keys[i - 1][1] >= keys[i][1])).toBe(true);
    }
  });

  it.each([
    ['$match', { $match: { status: 'FAILED' } }, (i: number) => i % 3 === 2],
    ['$match metadata', { $match: { 'metadata[parity]': 'odd' } }, (i: number) => i % 2 === 1],
    ['$lt amount', { $lt: { amount: 1050 } }, (i: number) => i === 0 || 1000 + ((i * 37) % 11) * 10 < 1050],
    ['$lte amount', { $lte: { amount: 1050 } }, (i: number) => i === 0 || 1000 + ((i * 37) % 11) * 10 <= 1050],
    ['$gt initialAmount', { $gt: { initialAmount: 2010 } }, (i: number) => 2000 + i > 2010],
    ['$gte createdAt', { $gte: { createdAt: '2024-01-01T00:00:05Z' } }, (i: number) => i % 7 >= 5],
    ['$exists sourceAccountID', { $exists: { sourceAccountID: false } }, (i: number) => i % 5 === 0],
    ['$exists metadata', { $exists: { 'metadata[parity]': true } }, (i: number) => i % 2 === 1],
    ['$in type', { $in: { type: ['PAYOUT', 'TRANSFER'] } }, (i: number) => i % 3 !== 0],
    ['$and', { $and: [{ $match: { asset: 'EUR/2' } }, { $match: { scheme: 'visa' } }] }, (i: number) => i % 4 !== 0 && i % 2 === 1],
    ['$or', { $or: [{ $match: { reference: 'ref-01' } }, { $match: { reference: 'ref-02' } }] }, (i: number) => i === 1 || i === 2],
    ['$not', { $not: { $match: { status: 'SUCCEEDED' } } }, (i: number) => i % 3 !== 0 || i === 0],
    ['provider (case-insensitive)', { $match: { provider: 'SIMULATED' } }, () => true],
  ])('filters with %s', async (_name, expression, expected) => {
    const want = Array.from({ length: N }, (_v, i) => i)
      .filter(expected)
      .map((i) => `ref-${String(i).padStart(2, '0')}`)
      .sort();
    expect(await refs(expression)).toEqual(want);
  });

  it('filters on metadata keys holding quotes and question marks, which reach PostgreSQL as values, not as SQL', async () => {
    const { connectorID: own } = await seedConnector(db, [{ reference: 'a' }]);
    const base = {
      type: 'PAYOUT',
      status: 'PENDING',
      scheme: 'other',
      asset: 'JPY',
      amount: 1n,
      createdAt: new Date('2024-01-01T00:00:00Z'),
      raw: {},
    };
    await upsertPayment(db, own, { ...base, reference: 'keys', metadata: { "it's": 'quoted', 'a?b': 'question', 'c??d': 'double' } });
    await upsertPayment(db, own, { ...base, reference: 'other', metadata: {} });
    for (const [key, value] of [
      ["it's", 'quoted'],
      ['a?b', 'question'],
      ['c??d', 'double'],
    ]) {
      const res = await list({ query: JSON.stringify({ $and: [{ $match: { connectorID: own } }, { $match: { [`metadata[${key}]`]: value } }] }) });
      expect(res.status).toBe(200);
      expect(res.body.cursor.data.map((p: any) => p.reference)).toEqual(['keys']);
      const exists = await list({
        query: JSON.stringify({ $and: [{ $match: { connectorID: own } }, { $exists: { [`metadata[${key}]`]: false } }] }),
      });
      expect(exists.body.cursor.data.map((p: any) => p.reference)).toEqual(['other']);
    }
  });

  it.each([
    ['malformed JSON', { query: '{"$match":' }],
    ['unknown field', { query: '{"$match":{"colour":"red"}}' }],
    ['unknown operator', { query: '{"$like":{"reference":"x"}}' }],
    ['two operators in one object', { query: '{"$match":{"status":"FAILED"},"$lt":{"amount":3}}' }],
    ['comparison on a string field', { query: '{"$lt":{"status":"X"}}' }],
    ['non-integer amount', { query: '{"$gt":{"amount":"ten"}}' }],
    ['empty $and', { query: '{"$and":[]}' }],
    ['$exists with a string', { query: '{"$exists":{"sourceAccountID":"yes"}}' }],
    ['unknown sort field', { sort: 'colour:asc' }],
    ['a sort field named after a prototype member', { sort: 'constructor:asc' }],
    ['bad sort direction', { sort: 'amount:up' }],
    ['pageSize 0', { pageSize: '0' }],
    ['pageSize 1001', { pageSize: '1001' }],
    ['cursor with another parameter', { cursor: 'abc', pageSize: '5' }],
    ['garbage cursor', { cursor: '!!!' }],
  ])('answers 400 VALIDATION for %s', async (_name, params) => {
    const res = await list(params as Record<string, string>);
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
  });

  it('reads one payment and merges metadata into it', async () => {
    const [payment] = (await list({ query: scoped({ $match: { reference: 'ref-03' } }) })).body.cursor.data;
    expect((await api('GET', `/api/payments/payments/${payment.id}`)).body.data).toEqual(payment);
    expect((await api('PATCH', `/api/payments/payments/${payment.id}/metadata`, { body: { checked: 'yes' } })).status).toBe(204);
    expect((await api('GET', `/api/payments/payments/${payment.id}`)).body.data.metadata).toEqual({ ...payment.metadata, checked: 'yes' });
    expect((await api('GET', '/api/payments/payments/unknown')).status).toBe(404);
  });

  it('writes each listed payment exactly as the single read does, whatever its amounts, dates, raw data and adjustments', async () => {
    const { connectorID: own } = await seedConnector(db, [{ reference: 'a' }]);
    const odd = [
      {
        reference: 'big',
        createdAt: new Date('2024-02-29T23:59:59.999Z'),
        amount: 2n ** 64n + 1n,
        initialAmount: 2n ** 128n,
        raw: { nested: { list: [1, 'two', null, { deep: true }] }, n: 2 ** 53 + 2 },
      },
      {
        reference: 'zero',
        createdAt: new Date('1999-12-31T00:00:00.001Z'),
        amount: 0n,
        raw: {},
        metadata: { 'quote"key': 'line\nbreak', emoji: '€💶' },
      },
    ];
    for (const p of odd) {
      await upsertPayment(db, own, {
        type: 'PAYOUT',
        status: 'PENDING',
        scheme: 'other',
        asset: 'JPY',
        metadata: {},
        sourceAccountReference: 'a',
        ...p,
      });
      await upsertPayment(db, own, {
        type: 'PAYOUT',
        status: 'SUCCEEDED',
        scheme: 'other',
        asset: 'JPY',
        metadata: {},
        sourceAccountReference: 'a',
        updatedAt: new Date('2025-01-01T00:00:00.123Z'),
        ...p,
        raw: { second: true },
      });
    }
    const res = await api(
      'GET',
      `/api/payments/payments?pageSize=1000&query=${encodeURIComponent(JSON.stringify({ $match: { connectorID: own } }))}`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.cursor.data).toHaveLength(2);
    for (const listed of res.body.cursor.data) {
      const read = await api('GET', `/api/payments/payments/${listed.id}`);
      expect(listed).toEqual(read.body.data);
      expect(listed.adjustments).toHaveLength(2);
    }
    // Beyond 2^53 the digits must survive: compare the raw text, not numbers parsed by the test client.
    expect(res.text).toContain(`"amount":${2n ** 64n + 1n}`);
    expect(res.text).toContain(`"initialAmount":${2n ** 128n}`);
  });

  it('v3: writes each listed payment as its single read does, null for an absent account and adjustments with their ids', async () => {
    const res = await api('GET', `/api/payments/v3/payments?pageSize=1000&query=${encodeURIComponent(scoped())}`);
    expect(res.status).toBe(200);
    const listed = res.body.cursor.data;
    expect(listed).toHaveLength(N);
    for (const payment of listed) {
      const read = await api('GET', `/api/payments/v3/payments/${encodeURIComponent(payment.id)}`);
      expect(read.status).toBe(200);
      expect(payment).toEqual(read.body.data);
    }
    const first = listed.find((p: any) => p.reference === 'ref-00');
    expect(first.sourceAccountID).toBeNull();
    expect(first.adjustments.map((a: any) => [typeof a.id, a.status])).toEqual([
      ['string', 'REFUNDED'],
      ['string', 'SUCCEEDED'],
    ]);
  });
});
