import { api } from '../../support/http';
import { isDefined, pollUntil } from '../../support/eventually';
import { connectorScheduleId, installSimulated, simulatedDirectory, writeJson } from '../../support/payments';
import { runsTakenAfter, temporalClient } from '../../support/temporal';

/** Conversions and orders fetched by the simulated connector from conversions.json and orders.json, on its schedules. */
describe('conversions and orders', () => {
  let dir: string;
  let connectorID: string;
  const big = 340282366920938463463374607431768211455n;
  const conversion = (status: string, extra: Record<string, unknown> = {}) => ({
    reference: 'conv-1',
    createdAt: '2024-06-01T10:00:00Z',
    status,
    sourceAsset: 'USD/2',
    destinationAsset: 'USDC/6',
    sourceAmount: 10_000,
    sourceAccountReference: 'wallet',
    destinationAccountReference: 'wallet',
    metadata: { desk: 'fx' },
    ...extra,
  });
  const order = (status: string, filled?: number, extra: Record<string, unknown> = {}) => ({
    reference: 'ord-1',
    createdAt: '2024-06-02T10:00:00Z',
    direction: 'BUY',
    type: 'LIMIT',
    status,
    timeInForce: 'GOOD_UNTIL_CANCELLED',
    sourceAsset: 'USD/2',
    destinationAsset: 'BTC/8',
    baseQuantityOrdered: 100_000_000,
    limitPrice: 6_500_000,
    priceAsset: 'USD/2',
    ...(filled !== undefined ? { baseQuantityFilled: filled } : {}),
    clientOrderID: 'client-1',
    ...extra,
  });
  const encode = (ref: string) => Buffer.from(JSON.stringify({ ConnectorID: connectorID, Reference: ref })).toString('base64url');
  const filter = (query: unknown) => encodeURIComponent(JSON.stringify(query));

  beforeAll(async () => {
    dir = simulatedDirectory({
      'accounts.json': [{ reference: 'wallet' }],
      'conversions.json': [
        conversion('PENDING'),
        {
          ...conversion('COMPLETED'),
          reference: 'conv-2',
          createdAt: '2024-06-03T00:00:00Z',
          sourceAmount: big,
          destinationAmount: big,
          fee: 5,
          feeAsset: 'USD/2',
        },
      ],
      'orders.json': [order('OPEN')],
    });
    connectorID = await installSimulated(dir, '1s');
  });
  afterAll(async () => {
    await api('DELETE', `/api/payments/v3/connectors/${connectorID}`);
  });

  it('the connector has FETCH_CONVERSIONS and FETCH_ORDERS, each polled by a schedule of its own', async () => {
    const capabilities = (await api('GET', `/api/payments/v3/connectors/${connectorID}/capabilities`)).body.data;
    expect(capabilities).toEqual(expect.arrayContaining(['FETCH_CONVERSIONS', 'FETCH_ORDERS']));
    const schedules = (await api('GET', `/api/payments/v3/connectors/${connectorID}/schedules`)).body.cursor.data;
    expect(schedules.map((s: any) => s.id.replace(/^.*-/, '')).sort()).toEqual(['accounts', 'balances', 'conversions', 'orders', 'payments']);
  });

  it('lists and reads conversions, exact amounts, filtered by query; a change is upserted on the next poll', async () => {
    const list = await pollUntil(
      async () => {
        const data = (await api('GET', `/api/payments/v3/conversions?query=${filter({ $match: { connectorID } })}`)).body.cursor.data;
        return data.length === 2 ? data : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'conversions fetched' },
    );
    expect(list.map((c: any) => c.reference)).toEqual(['conv-2', 'conv-1']);
    expect(list[0]).toMatchObject({
      id: encode('conv-2'),
      status: 'COMPLETED',
      sourceAmount: big,
      destinationAmount: big,
      fee: 5,
      feeAsset: 'USD/2',
    });
    const one = await api('GET', `/api/payments/v3/conversions/${encode('conv-1')}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual({
      id: encode('conv-1'),
      connectorID,
      provider: 'SIMULATED',
      reference: 'conv-1',
      createdAt: '2024-06-01T10:00:00.000Z',
      updatedAt: '2024-06-01T10:00:00.000Z',
      status: 'PENDING',
      sourceAsset: 'USD/2',
      destinationAsset: 'USDC/6',
      sourceAmount: 10000,
      destinationAmount: null,
      fee: null,
      feeAsset: null,
      sourceAccountID: encode('wallet'),
      destinationAccountID: encode('wallet'),
      error: null,
      metadata: { desk: 'fx' },
    });
    const completed = (
      await api('GET', `/api/payments/v3/conversions?query=${filter({ $and: [{ $match: { connectorID } }, { $match: { status: 'COMPLETED' } }] })}`)
    ).body.cursor.data;
    expect(completed.map((c: any) => c.reference)).toEqual(['conv-2']);
    expect((await api('GET', `/api/payments/v3/conversions?query=${filter({ $match: { color: 'red' } })}`)).status).toBe(400);

    writeJson(dir, 'conversions.json', [conversion('COMPLETED', { updatedAt: '2024-06-01T11:00:00Z', destinationAmount: 9_990_000 })]);
    const updated = await pollUntil(
      async () => {
        const data = (await api('GET', `/api/payments/v3/conversions/${encode('conv-1')}`)).body.data;
        return data.status === 'COMPLETED' ? data : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'conversion update' },
    );
    expect(updated).toMatchObject({ destinationAmount: 9_990_000, updatedAt: '2024-06-01T11:00:00.000Z' });
    // A conversion the provider no longer lists is kept, as fetched payments are.
    expect((await api('GET', `/api/payments/v3/conversions/${encode('conv-2')}`)).status).toBe(200);
  });

  it('lists and reads orders with one adjustment per observed state, newest first', async () => {
    await pollUntil(async () => ((await api('GET', `/api/payments/v3/orders/${encode('ord-1')}`)).status === 200 ? true : undefined), isDefined, {
      timeoutMs: 30_000,
      what: 'order fetched',
    });
    writeJson(dir, 'orders.json', [order('PARTIALLY_FILLED', 40_000_000, { updatedAt: '2024-06-02T11:00:00Z', fee: 12, feeAsset: 'USD/2' })]);
    const partial = await pollUntil(
      async () => {
        const data = (await api('GET', `/api/payments/v3/orders/${encode('ord-1')}`)).body.data;
        return data.status === 'PARTIALLY_FILLED' ? data : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'order update' },
    );
    expect(partial).toMatchObject({
      id: encode('ord-1'),
      connectorID,
      provider: 'SIMULATED',
      direction: 'BUY',
      type: 'LIMIT',
      timeInForce: 'GOOD_UNTIL_CANCELLED',
      baseQuantityOrdered: 100_000_000,
      baseQuantityFilled: 40_000_000,
      limitPrice: 6_500_000,
      stopPrice: null,
      fee: 12,
      clientOrderID: 'client-1',
    });
    expect(partial.adjustments.map((a: any) => [a.status, a.baseQuantityFilled])).toEqual([
      ['PARTIALLY_FILLED', 40_000_000],
      ['OPEN', null],
    ]);
    // Polling the same state again adds nothing: read after two whole fetches of the orders that began after this.
    const since = new Date();
    const { client, connection } = await temporalClient();
    try {
      expect(await runsTakenAfter(client, await connectorScheduleId(connectorID, 'orders'), since, 2)).toEqual(['COMPLETED', 'COMPLETED']);
    } finally {
      await connection.close();
    }
    const same = (await api('GET', `/api/payments/v3/orders/${encode('ord-1')}`)).body.data;
    expect(same.adjustments).toHaveLength(2);
    const list = (
      await api(
        'GET',
        `/api/payments/v3/orders?pageSize=1&query=${filter({ $and: [{ $match: { connectorID } }, { $match: { direction: 'BUY' } }] })}`,
      )
    ).body.cursor;
    expect(list).toMatchObject({ pageSize: 1, hasMore: false, data: [expect.objectContaining({ reference: 'ord-1' })] });
    expect((await api('GET', '/api/payments/v3/orders/unknown')).status).toBe(404);
    expect((await api('GET', '/api/payments/v3/conversions/unknown')).status).toBe(404);
  });

  it('a malformed file fails that schedule run with a message naming the item; the other kinds go on', async () => {
    writeJson(dir, 'orders.json', [{ ...order('OPEN'), direction: 'SIDEWAYS' }]);
    const schedules = (await api('GET', `/api/payments/v3/connectors/${connectorID}/schedules`)).body.cursor.data;
    const orders = schedules.find((s: any) => s.id.endsWith('-orders'));
    const failed = await pollUntil(
      async () => {
        const runs = (await api('GET', `/api/payments/v3/connectors/${connectorID}/schedules/${orders.id}/instances`)).body.cursor.data;
        return runs.find((r: any) => r.error) as any;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'a failed orders run' },
    );
    expect(failed.error).toMatch(/orders.json\[0\]: "direction" must be one of/);
    writeJson(dir, 'conversions.json', [conversion('FAILED', { updatedAt: '2024-06-01T12:00:00Z', error: 'rejected by the desk' })]);
    const conversionFailed = await pollUntil(
      async () => {
        const data = (await api('GET', `/api/payments/v3/conversions/${encode('conv-1')}`)).body.data;
        return data.status === 'FAILED' ? data : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'conversions still polled' },
    );
    expect(conversionFailed.error).toBe('rejected by the desk');
  });
});
