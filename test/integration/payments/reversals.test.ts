import fs from 'node:fs';
import path from 'node:path';
import { api } from '../../support/http';
import { isDefined, pollUntil } from '../../support/eventually';
import { connectorScheduleId, installSimulated, paymentsOf, simulatedDirectory, suffix, testDb } from '../../support/payments';
import { runsTakenAfter, temporalClient } from '../../support/temporal';
import { connectorId } from '../../../areas/payments/ids';

/** Reversals of payment initiations, executed by the real worker through the simulated connector. */
describe('payment initiation reversals', () => {
  const db = testDb();
  let dir: string;
  let connectorID: string;
  let main: string;
  let supplier: string;
  const base = '/api/payments/v3/payment-initiations';
  const encode = (connector: string, ref: string) => Buffer.from(JSON.stringify({ ConnectorID: connector, Reference: ref })).toString('base64url');

  beforeAll(async () => {
    dir = simulatedDirectory({
      'accounts.json': [
        { reference: 'main', type: 'INTERNAL' },
        { reference: 'supplier', type: 'EXTERNAL' },
      ],
      'balances.json': [{ accountReference: 'main', asset: 'EUR/2', amount: 1_000_000 }],
    });
    connectorID = await installSimulated(dir, '1s');
    main = encode(connectorID, 'main');
    supplier = encode(connectorID, 'supplier');
    await pollUntil(async () => ((await api('GET', `/api/payments/v3/accounts/${main}`)).status === 200 ? true : undefined), isDefined, {
      timeoutMs: 30_000,
      what: 'accounts fetched',
    });
  });
  afterAll(async () => {
    await api('DELETE', `/api/payments/v3/connectors/${connectorID}`);
    await db.destroy();
  });

  const read = async (id: string) => (await api('GET', `${base}/${id}`)).body.data;
  const processed = async (amount: number, type = 'TRANSFER') => {
    const res = await api('POST', `${base}?noValidation=true`, {
      body: {
        reference: `pi-${suffix()}`,
        connectorID,
        type,
        amount,
        asset: 'EUR/2',
        sourceAccountID: main,
        destinationAccountID: supplier,
        description: 'rent',
      },
    });
    expect(res.status).toBe(202);
    const id = res.body.data.paymentInitiationID as string;
    expect(
      (
        await pollUntil(
          async () => {
            const pi = await read(id);
            return pi.status === 'PROCESSED' ? pi : undefined;
          },
          isDefined,
          { timeoutMs: 30_000, what: 'processed' },
        )
      ).status,
    ).toBe('PROCESSED');
    return id;
  };
  const reverse = (id: string, body: Record<string, unknown>) =>
    api('POST', `${base}/${id}/reverse`, { body: { reference: `rev-${suffix()}`, asset: 'EUR/2', description: 'refund', ...body } });
  const task = (taskID: string) =>
    pollUntil(
      async () => {
        const t = (await api('GET', `/api/payments/v3/tasks/${taskID}`)).body.data;
        return t && t.status !== 'PROCESSING' ? t : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: `task ${taskID}` },
    );
  const counts = async (id: string) => ({
    adjustments: Number((await db('payments_initiation_adjustments').where({ payment_initiation_id: id }).count({ n: '*' }))[0].n),
    reversals: Number((await db('payments_initiation_reversals').where({ payment_initiation_id: id }).count({ n: '*' }))[0].n),
  });
  const expect400 = async (res: { status: number; body: any }, pattern: RegExp) => {
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
    expect(res.body.errorMessage).toMatch(pattern);
  };

  it('a partial reversal, then the rest: REVERSED adjustments with their amounts, REFUNDED payments the next fetch reads back', async () => {
    const id = await processed(300);
    const first = await reverse(id, { amount: 100, metadata: { why: 'damaged' } });
    expect(first.status).toBe(202);
    expect(first.body.data).toEqual({ paymentInitiationReversalID: expect.any(String), taskID: `payment-initiation-${id}-reversal-1` });
    const done = await task(first.body.data.taskID);
    expect(done).toMatchObject({ status: 'SUCCEEDED', connectorID, createdObjectID: expect.any(String) });
    let pi = await read(id);
    expect(pi.status).toBe('REVERSED');
    expect(pi.relatedPaymentIDs).toHaveLength(2);
    expect(pi.relatedPaymentIDs).toContain(done.createdObjectID);
    const adjustments = (await api('GET', `${base}/${id}/adjustments`)).body.cursor.data;
    expect(adjustments.slice(0, 3)).toEqual([
      expect.objectContaining({ status: 'REVERSED', amount: 100, asset: 'EUR/2', metadata: { why: 'damaged' } }),
      expect.objectContaining({ status: 'REVERSE_PROCESSING', amount: 100, metadata: { why: 'damaged' } }),
      expect.objectContaining({ status: 'PROCESSED', amount: 300 }),
    ]);
    const refund = (await api('GET', `/api/payments/v3/payments/${done.createdObjectID}`)).body.data;
    expect(refund).toMatchObject({
      type: 'TRANSFER',
      status: 'REFUNDED',
      amount: 100,
      asset: 'EUR/2',
      sourceAccountID: main,
      destinationAccountID: supplier,
      metadata: { why: 'damaged' },
    });
    expect(fs.readdirSync(path.join(dir, 'reversed'))).toHaveLength(1);
    expect((await api('GET', `/api/payments/transfer-initiations/${id}`)).body.data.status).toBe('PARTIALLY_REVERSED');

    // More than the 200 left: refused, nothing written.
    const before = await counts(id);
    await expect400(await reverse(id, { amount: 201 }), /cannot reverse 201 .*: 200 EUR\/2 remain/);
    expect(await counts(id)).toEqual(before);

    const rest = await reverse(id, { amount: 200 });
    expect(rest.body.data.taskID).toBe(`payment-initiation-${id}-reversal-2`);
    expect(await task(rest.body.data.taskID)).toMatchObject({ status: 'SUCCEEDED' });
    pi = await read(id);
    expect(pi.status).toBe('REVERSED');
    expect((await api('GET', `/api/payments/transfer-initiations/${id}`)).body.data.status).toBe('REVERSED');
    await expect400(await reverse(id, { amount: 1 }), /0 EUR\/2 remain/);

    // The next fetches read the reversal payments back from the provider without adding any: two whole fetches that
    // began after the count.
    const since = new Date();
    const count = (await paymentsOf(connectorID)).length;
    const { client, connection } = await temporalClient();
    try {
      expect(await runsTakenAfter(client, await connectorScheduleId(connectorID, 'payments'), since, 2)).toEqual(['COMPLETED', 'COMPLETED']);
    } finally {
      await connection.close();
    }
    const rows = await paymentsOf(connectorID);
    expect(rows).toHaveLength(count);
    expect(
      rows
        .filter((p) => p.status === 'REFUNDED' && pi.relatedPaymentIDs.includes(p.id))
        .map((p) => p.amount)
        .sort(),
    ).toEqual([100, 200]);
  });

  it('the same reference again answers the same reversal; with another amount it is 409', async () => {
    const id = await processed(50, 'PAYOUT');
    const reference = `rev-${suffix()}`;
    const first = await reverse(id, { reference, amount: 20 });
    expect(first.status).toBe(202);
    const again = await reverse(id, { reference, amount: 20 });
    expect(again.status).toBe(202);
    expect(again.body.data).toEqual(first.body.data);
    expect((await reverse(id, { reference, amount: 21 })).status).toBe(409);
    await task(first.body.data.taskID);
    expect((await counts(id)).reversals).toBe(1);
  });

  it('a provider refusal makes it REVERSE_FAILED with the cause; the amount can be reversed again', async () => {
    const id = await processed(40);
    const initiated = path.join(dir, 'initiated');
    const files = fs.readdirSync(initiated).map((name) => [name, fs.readFileSync(path.join(initiated, name))] as const);
    // The provider forgets its payments: it refuses to reverse one it does not know.
    fs.rmSync(initiated, { recursive: true });
    try {
      const res = await reverse(id, { amount: 40 });
      expect(await task(res.body.data.taskID)).toMatchObject({ status: 'FAILED', error: expect.stringMatching(/unknown payment/) });
      const pi = await read(id);
      expect(pi).toMatchObject({ status: 'REVERSE_FAILED', error: expect.stringMatching(/unknown payment/) });
    } finally {
      fs.mkdirSync(initiated);
      for (const [name, content] of files) fs.writeFileSync(path.join(initiated, name), content);
    }
    const retried = await reverse(id, { amount: 40 });
    expect(retried.body.data.taskID).toBe(`payment-initiation-${id}-reversal-2`);
    expect(await task(retried.body.data.taskID)).toMatchObject({ status: 'SUCCEEDED' });
    expect((await read(id)).status).toBe('REVERSED');
  });

  it('refuses with a clear 4xx and writes nothing: not PROCESSED, unknown id, other asset, bad body', async () => {
    const res = await api('POST', base, {
      body: { reference: `pi-${suffix()}`, connectorID, type: 'TRANSFER', amount: 10, asset: 'EUR/2', destinationAccountID: supplier },
    });
    const waiting = res.body.data.paymentInitiationID;
    const before = await counts(waiting);
    await expect400(await reverse(waiting, { amount: 10 }), /status is WAITING_FOR_VALIDATION, reverse needs PROCESSED/);
    expect(await counts(waiting)).toEqual(before);
    expect((await reverse('unknown', { amount: 1 })).status).toBe(404);
    const id = await processed(10);
    await expect400(await reverse(id, { amount: 10, asset: 'USD/2' }), /body.asset: USD\/2 is not the asset/);
    expect((await reverse(id, { amount: 0 })).status).toBe(400);
    expect((await reverse(id, { amount: 5, extra: true })).status).toBe(400);
    expect((await api('POST', `${base}/${id}/reverse`, { body: { amount: 5, asset: 'EUR/2', description: 'x' } })).status).toBe(400);
    expect(await counts(id)).toEqual({ adjustments: 4, reversals: 0 });
    // While a reversal runs (its status, set here by hand), another is refused.
    await db('payments_initiations').where({ id }).update({ status: 'REVERSE_PROCESSING' });
    await expect400(await reverse(id, { amount: 5 }), /status is REVERSE_PROCESSING, another reversal is in progress/);
    expect(await counts(id)).toEqual({ adjustments: 4, reversals: 0 });
  });

  it('a connector without the reversal capability (generic) is 400 naming it, nothing written', async () => {
    const generic = connectorId('generic');
    await db('payments_connectors').insert({
      id: generic,
      provider: 'generic',
      name: `g-${suffix()}`,
      config: JSON.stringify({ endpoint: 'http://127.0.0.1:9' }),
    });
    const account = encode(generic, 'ext');
    await db('payments_accounts').insert({
      id: account,
      connector_id: generic,
      reference: 'ext',
      type: 'EXTERNAL',
      created_at: new Date(),
      metadata: '{}',
      raw: '{}',
    });
    const id = encode(generic, `pi-${suffix()}`);
    await db('payments_initiations').insert({
      id,
      connector_id: generic,
      reference: 'r',
      type: 'TRANSFER',
      amount: '10',
      asset: 'EUR/2',
      destination_account_id: account,
      status: 'PROCESSED',
    });
    try {
      await expect400(
        await reverse(id, { amount: 5 }),
        new RegExp(`connector ${generic} \\(generic\\) does not have the capability REVERSE_TRANSFER`),
      );
      expect(await counts(id)).toEqual({ adjustments: 0, reversals: 0 });
    } finally {
      await db('payments_initiations').where({ id }).delete();
      await db('payments_connectors').where({ id: generic }).update({ uninstalled_at: db.fn.now() });
    }
  });
});
