import { api } from '../../support/http';
import { isDefined, pollUntil } from '../../support/eventually';
import { installSimulated, simulatedDirectory, suffix, writeJson } from '../../support/payments';

/** The payment-initiation state machine through the simulated connector, executed by the real worker. */
describe('payment initiations', () => {
  let dir: string;
  let connectorID: string;
  let main: string;
  let supplier: string;
  const base = '/api/payments/v3/payment-initiations';

  beforeAll(async () => {
    dir = simulatedDirectory({
      'accounts.json': [
        { reference: 'main', type: 'INTERNAL' },
        { reference: 'supplier', type: 'EXTERNAL' },
      ],
      'balances.json': [{ accountReference: 'main', asset: 'EUR/2', amount: 1000 }],
    });
    connectorID = await installSimulated(dir, '1s');
    const encode = (ref: string) => Buffer.from(JSON.stringify({ ConnectorID: connectorID, Reference: ref })).toString('base64url');
    main = encode('main');
    supplier = encode('supplier');
    // Accounts exist once the first fetch ran: a pool of `main` can then be created.
    await pollUntil(
      async () => {
        const res = await api('POST', '/api/payments/v3/pools', { body: { name: `wait-${suffix()}`, accountIDs: [main] } });
        return res.status === 201 ? true : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'accounts fetched' },
    );
  });
  afterAll(async () => {
    await api('DELETE', `/api/payments/v3/connectors/${connectorID}`);
  });

  const create = async (amount: number, query = '') => {
    const res = await api('POST', `${base}${query}`, {
      body: {
        reference: `pi-${suffix()}`,
        connectorID,
        type: 'TRANSFER',
        amount,
        asset: 'EUR/2',
        sourceAccountID: main,
        destinationAccountID: supplier,
        description: 'rent',
        metadata: { k: 'v' },
      },
    });
    expect(res.status).toBe(202);
    return res.body.data as { paymentInitiationID: string; taskID?: string };
  };
  const read = async (id: string) => (await api('GET', `${base}/${id}`)).body.data;
  const settled = (id: string) =>
    pollUntil(
      async () => {
        const pi = await read(id);
        return ['PROCESSED', 'FAILED'].includes(pi.status) ? pi : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: `initiation ${id} to settle` },
    );
  const expect400 = async (method: string, path: string, pattern: RegExp, body?: unknown) => {
    const res = await api(method, path, body === undefined ? {} : { body });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
    expect(res.body.errorMessage).toMatch(pattern);
  };

  it('WAITING_FOR_VALIDATION: read shape; retry refused; op 6 deletes it (204), then 404', async () => {
    const { paymentInitiationID: id } = await create(100);
    expect(await read(id)).toEqual({
      id,
      connectorID,
      provider: 'SIMULATED',
      reference: expect.any(String),
      createdAt: expect.any(String),
      scheduledAt: expect.any(String),
      description: 'rent',
      type: 'TRANSFER',
      amount: 100,
      asset: 'EUR/2',
      status: 'WAITING_FOR_VALIDATION',
      sourceAccountID: main,
      destinationAccountID: supplier,
      metadata: { k: 'v' },
      attempts: 0,
      adjustments: [expect.objectContaining({ status: 'WAITING_FOR_VALIDATION' })],
      relatedPaymentIDs: [],
    });
    await expect400('POST', `${base}/${id}/retry`, /status is WAITING_FOR_VALIDATION, retry needs FAILED/);
    await expect400('POST', `${base}/${id}/reverse`, /status is WAITING_FOR_VALIDATION, reverse needs PROCESSED/, {
      reference: 'rev',
      amount: 100,
      asset: 'EUR/2',
      description: 'x',
    });
    const adjustments = await api('GET', `${base}/${id}/adjustments`);
    expect(adjustments.body.cursor.data).toEqual([expect.objectContaining({ status: 'WAITING_FOR_VALIDATION', amount: 100, asset: 'EUR/2' })]);
    expect((await api('GET', `${base}/${id}/payments`)).body.cursor.data).toEqual([]);
    expect((await api('DELETE', `${base}/${id}`)).status).toBe(204);
    expect((await api('GET', `${base}/${id}`)).status).toBe(404);
    expect((await api('DELETE', `${base}/${id}`)).status).toBe(404);
    expect((await api('GET', `${base}/${id}/adjustments`)).status).toBe(404);
  });

  it('approve executes it on Temporal through the connector: PROCESSED with a payment; then every transition and op 6 are refused', async () => {
    const { paymentInitiationID: id } = await create(300);
    const approved = await api('POST', `${base}/${id}/approve`);
    expect(approved.status).toBe(202);
    expect(approved.body.data.taskID).toBe(`payment-initiation-${id}-1`);
    const pi = await settled(id);
    expect(pi.status).toBe('PROCESSED');
    expect(pi.adjustments.map((a: any) => a.status)).toEqual(['PROCESSED', 'PROCESSING', 'SCHEDULED_FOR_PROCESSING', 'WAITING_FOR_VALIDATION']);
    expect(pi.relatedPaymentIDs).toHaveLength(1);
    const payment = (await api('GET', `/api/payments/payments/${pi.relatedPaymentIDs[0]}`)).body.data;
    expect(payment).toMatchObject({
      type: 'TRANSFER',
      status: 'SUCCEEDED',
      amount: 300,
      asset: 'EUR/2',
      sourceAccountID: main,
      destinationAccountID: supplier,
    });
    await expect400('DELETE', `${base}/${id}`, /cannot delete .* status is PROCESSED/);
    await expect400('POST', `${base}/${id}/approve`, /status is PROCESSED/);
    await expect400('POST', `${base}/${id}/reject`, /status is PROCESSED/);
    await expect400('POST', `${base}/${id}/retry`, /status is PROCESSED/);
  });

  it('reject: REJECTED, then approve, retry, reject and op 6 are refused', async () => {
    const { paymentInitiationID: id } = await create(100);
    expect((await api('POST', `${base}/${id}/reject`)).status).toBe(204);
    expect((await read(id)).status).toBe('REJECTED');
    for (const action of ['approve', 'reject', 'retry']) await expect400('POST', `${base}/${id}/${action}`, /status is REJECTED/);
    await expect400('DELETE', `${base}/${id}`, /status is REJECTED/);
  });

  it('a provider refusal makes it FAILED; op 6 refused; retry (only after FAILED) runs a new attempt to PROCESSED', async () => {
    const { paymentInitiationID: id } = await create(5000);
    await api('POST', `${base}/${id}/approve`);
    const failed = await settled(id);
    expect(failed.status).toBe('FAILED');
    expect(failed.error).toMatch(/insufficient funds/);
    await expect400('DELETE', `${base}/${id}`, /status is FAILED/);
    await expect400('POST', `${base}/${id}/approve`, /status is FAILED/);
    await expect400('POST', `${base}/${id}/reject`, /status is FAILED/);
    writeJson(dir, 'balances.json', [{ accountReference: 'main', asset: 'EUR/2', amount: 1_000_000 }]);
    const retried = await api('POST', `${base}/${id}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.body.data.taskID).toBe(`payment-initiation-${id}-2`);
    await pollUntil(async () => ((await read(id)).status === 'PROCESSED' ? true : undefined), isDefined, {
      timeoutMs: 30_000,
      what: 'retry to be processed',
    });
    expect((await read(id)).attempts).toBe(2);
  });

  it('noValidation sends it at once', async () => {
    const { paymentInitiationID: id, taskID } = await create(10, '?noValidation=true');
    expect(taskID).toBe(`payment-initiation-${id}-1`);
    expect((await settled(id)).status).toBe('PROCESSED');
  });

  it.each([
    ['unknown connector', { connectorID: 'nope' }, 404],
    ['unknown destination', { destinationAccountID: 'nope' }, 400],
    ['zero amount', { amount: 0 }, 400],
    ['bad asset', { asset: 'euro' }, 400],
    ['bad type', { type: 'REFUND' }, 400],
    ['short reference', { reference: 'ab' }, 400],
  ])('creation refuses %s', async (_name, override, status) => {
    const body = {
      reference: `pi-${suffix()}`,
      connectorID,
      type: 'TRANSFER',
      amount: 5,
      asset: 'EUR/2',
      destinationAccountID: supplier,
      ...override,
    };
    expect((await api('POST', base, { body })).status).toBe(status);
  });

  it('refuses a reused reference with 409 and unknown ids with 404', async () => {
    const reference = `pi-${suffix()}`;
    const body = { reference, connectorID, type: 'PAYOUT', amount: 5, asset: 'EUR/2', destinationAccountID: supplier };
    expect((await api('POST', base, { body })).status).toBe(202);
    expect((await api('POST', base, { body })).status).toBe(409);
    for (const action of ['approve', 'reject', 'retry']) expect((await api('POST', `${base}/unknown/${action}`)).status).toBe(404);
    expect((await api('DELETE', `${base}/unknown`)).status).toBe(404);
  });
});
