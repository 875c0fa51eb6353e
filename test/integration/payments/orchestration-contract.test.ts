import type { Client, Connection } from '@temporalio/client';
import type { Db } from '../../../db/knex';
import { findConnectorByProvider, getPaymentForStage, providerTransfer } from '../../../areas/payments/orchestration';
import { isDefined, pollUntil } from '../../support/eventually';
import { installSimulated, simulatedDirectory, suffix, testDb } from '../../support/payments';
import { api } from '../../support/http';
import { taskQueue, temporalClient } from '../../support/temporal';
import { registerBuiltInConnectorPlugins } from '../../../activities/payments/plugins';

// The area runs in this process here, which must register the connector plugins as the API and the worker do at start.
registerBuiltInConnectorPlugins();

describe('areas/payments/orchestration.ts: the in-process contract of ProviderTransfer and GetPayment', () => {
  let db: Db;
  let client: Client;
  let connection: Connection;
  let connectorID: string;
  beforeAll(async () => {
    db = testDb();
    ({ client, connection } = await temporalClient());
    connectorID = await installSimulated(simulatedDirectory({ 'accounts.json': [{ reference: 'psp-dest', type: 'EXTERNAL' }] }), '1s');
    await pollUntil(async () => ((await db('payments_accounts').where({ connector_id: connectorID }).first()) ? true : undefined), isDefined, {
      timeoutMs: 30_000,
      what: 'accounts',
    });
  });
  afterAll(async () => {
    await api('DELETE', `/api/payments/v3/connectors/${connectorID}`);
    await connection.close();
    await db.destroy();
  });

  it('providerTransfer is idempotent by key, executes on Temporal, and getPaymentForStage answers the stage shape', async () => {
    const deps = { db, temporal: { client, taskQueue: taskQueue() } };
    const input = { connectorID, amount: 4200n, asset: 'EUR/2', destination: 'psp-dest', waitingValidation: false, metadata: { from: 'workflow' } };
    const key = `instance-${suffix()}-stage-0`;
    const first = await providerTransfer(deps, input, key);
    const second = await providerTransfer(deps, input, key);
    expect(second).toEqual(first);
    expect(await db('payments_initiations').where({ id: first.paymentInitiationID }).count()).toEqual([{ count: '1' }]);
    const paymentID = await pollUntil(
      async () => {
        const link = await db('payments_initiation_payments').where({ payment_initiation_id: first.paymentInitiationID }).first();
        return link?.payment_id as string | undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'the transfer' },
    );
    const payment = await getPaymentForStage(db, paymentID);
    expect(payment).not.toHaveProperty('amount');
    expect(payment).toMatchObject({
      id: paymentID,
      connectorID,
      provider: 'SIMULATED',
      type: 'TRANSFER',
      status: 'SUCCEEDED',
      initialAmount: 4200n,
      asset: 'EUR/2',
    });
    expect(payment.adjustments).toEqual([{ status: 'SUCCEEDED', amount: 4200n, date: expect.any(Date), raw: expect.any(Object), absolute: true }]);
    expect(Object.values(payment.metadata).every((v) => typeof v === 'string')).toBe(true);
    await expect(getPaymentForStage(db, 'nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(providerTransfer(deps, { ...input, connectorID: 'nope' }, `k-${suffix()}`)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('findConnectorByProvider finds an installed connector by provider name, case-insensitively', async () => {
    expect(await findConnectorByProvider(db, 'SIMULATED')).toEqual({ connectorID: expect.any(String) });
    expect(await findConnectorByProvider(db, 'modulr')).toBeUndefined();
  });
});
