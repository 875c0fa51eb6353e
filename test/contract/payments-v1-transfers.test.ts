import { stringifyJson } from '../../lib/json';
import { api } from '../support/http';
import { isDefined, pollUntil } from '../support/eventually';
import { simulatedDirectory, suffix, writeJson } from '../support/payments';
import { sdkClient } from './sdk-client';

/**
 * Formance's `payments.v1` transfer initiations (v1's name for payment initiations) through the official SDK, on a
 * simulated connector of their own: one test per SDK method. The rest of payments.v1 is in payments-v1.test.ts.
 */
const v1 = sdkClient().payments.v1;

describe('contract: payments.v1 transfer initiations through the Formance SDK', () => {
  let dir: string;
  let connectorID: string;
  let main: string;
  let supplier: string;
  beforeAll(async () => {
    dir = simulatedDirectory({
      'accounts.json': [
        { reference: 'main', type: 'INTERNAL' },
        { reference: 'supplier', type: 'EXTERNAL' },
      ],
      'balances.json': [{ accountReference: 'main', asset: 'EUR/2', amount: 1000 }],
    });
    connectorID = (
      await v1.installConnector({
        connector: 'DUMMY-PAY',
        connectorConfig: { provider: 'Dummypay', name: `v1-ti-${suffix()}`, directory: dir, filePollingPeriod: '1s' },
      })
    ).connectorResponse!.data.connectorID;
    const encode = (reference: string) => Buffer.from(stringifyJson({ ConnectorID: connectorID, Reference: reference })).toString('base64url');
    main = encode('main');
    supplier = encode('supplier');
    await pollUntil(async () => ((await api('GET', `/api/payments/accounts/${supplier}`)).status === 200 ? true : undefined), isDefined, {
      timeoutMs: 30_000,
      what: 'accounts fetched',
    });
  });
  afterAll(async () => {
    await v1.uninstallConnectorV1({ connector: 'DUMMY-PAY', connectorId: connectorID });
  });

  const create = async (amount: bigint, validated: boolean) =>
    (
      await v1.createTransferInitiation({
        reference: `ti-${suffix()}`,
        connectorID,
        type: 'TRANSFER',
        amount,
        asset: 'EUR/2',
        sourceAccountID: main,
        destinationAccountID: supplier,
        description: 'rent',
        scheduledAt: new Date('2030-01-01T00:00:00Z'),
        validated,
        metadata: { k: 'v' },
      })
    ).transferInitiationResponse!.data;
  const read = async (transferId: string) => (await v1.getTransferInitiation({ transferId })).transferInitiationResponse!.data;
  const settled = (transferId: string) =>
    pollUntil(
      async () => {
        const t = await read(transferId);
        return ['PROCESSED', 'FAILED'].includes(t.status) ? t : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: `transfer ${transferId}` },
    );

  test('createTransferInitiation', async () => {
    const waiting = await create(100n, false);
    expect(waiting).toMatchObject({
      status: 'WAITING_FOR_VALIDATION',
      amount: 100n,
      initialAmount: 100n,
      provider: 'DUMMY-PAY',
      sourceAccountID: main,
      metadata: { k: 'v' },
    });
    expect(waiting.scheduledAt.toISOString()).toBe('2030-01-01T00:00:00.000Z');
    const sent = await create(100n, true);
    expect(['VALIDATED', 'PROCESSING', 'PROCESSED']).toContain(sent.status);
    const processed = await settled(sent.id);
    expect(processed.status).toBe('PROCESSED');
    expect(processed.relatedPayments).toHaveLength(1);
    expect(processed.relatedAdjustments!.map((a) => a.status)).toEqual(['PROCESSED', 'PROCESSING', 'VALIDATED', 'WAITING_FOR_VALIDATION']);
  });

  test('getTransferInitiation', async () => {
    const created = await create(7n, false);
    expect(await read(created.id)).toMatchObject({
      id: created.id,
      reference: created.reference,
      status: 'WAITING_FOR_VALIDATION',
      relatedPayments: [],
    });
    expect((await api('GET', '/api/payments/transfer-initiations/nope')).status).toBe(404);
  });

  test('listTransferInitiations', async () => {
    const created = await create(8n, false);
    const cursor = (await v1.listTransferInitiations({ pageSize: 1000 })).transferInitiationsCursor!.cursor;
    expect(cursor.data.find((t) => t.id === created.id)).toMatchObject({ amount: 8n, status: 'WAITING_FOR_VALIDATION' });
  });

  test('updateTransferInitiationStatus', async () => {
    const rejected = await create(9n, false);
    expect(
      (await v1.updateTransferInitiationStatus({ transferId: rejected.id, updateTransferInitiationStatusRequest: { status: 'REJECTED' } }))
        .statusCode,
    ).toBe(204);
    expect((await read(rejected.id)).status).toBe('REJECTED');
    const validated = await create(10n, false);
    expect(
      (await v1.updateTransferInitiationStatus({ transferId: validated.id, updateTransferInitiationStatusRequest: { status: 'VALIDATED' } }))
        .statusCode,
    ).toBe(204);
    expect((await settled(validated.id)).status).toBe('PROCESSED');
  });

  test('deleteTransferInitiation', async () => {
    const created = await create(11n, false);
    expect((await v1.deleteTransferInitiation({ transferId: created.id })).statusCode).toBe(204);
    expect((await api('GET', `/api/payments/transfer-initiations/${created.id}`)).status).toBe(404);
  });

  test('retryTransferInitiation', async () => {
    const created = await create(5000n, true);
    const failed = await settled(created.id);
    expect(failed).toMatchObject({ status: 'FAILED', error: expect.stringMatching(/insufficient funds/) });
    writeJson(dir, 'balances.json', [{ accountReference: 'main', asset: 'EUR/2', amount: 1_000_000 }]);
    expect((await v1.retryTransferInitiation({ transferId: created.id })).statusCode).toBe(204);
    await pollUntil(async () => ((await read(created.id)).status === 'PROCESSED' ? true : undefined), isDefined, {
      timeoutMs: 30_000,
      what: 'retry processed',
    });
  });

  // v1 waits for the reversal: 204 once the provider reversed it; a partial one reads PARTIALLY_REVERSED, the rest REVERSED.
  test('reverseTransferInitiation', async () => {
    const created = await create(12n, true);
    expect((await settled(created.id)).status).toBe('PROCESSED');
    const reverse = (amount: bigint) =>
      v1.reverseTransferInitiation({
        transferId: created.id,
        reverseTransferInitiationRequest: { reference: `rev-${suffix()}`, description: 'undo', amount, asset: 'EUR/2', metadata: { why: 'test' } },
      });
    expect((await reverse(5n)).statusCode).toBe(204);
    const partial = await read(created.id);
    expect(partial.status).toBe('PARTIALLY_REVERSED');
    expect(partial.relatedAdjustments!.map((a) => a.status).slice(0, 2)).toEqual(['REVERSED', 'REVERSE_PROCESSING']);
    expect(partial.relatedPayments!.map((p) => p.status).sort()).toEqual(['REFUNDED', 'SUCCEEDED']);
    expect((await reverse(7n)).statusCode).toBe(204);
    expect((await read(created.id)).status).toBe('REVERSED');
    // Nothing is left to reverse, and an initiation still waiting for validation cannot be reversed: 400, nothing written.
    await expect(reverse(1n)).rejects.toMatchObject({
      statusCode: 400,
      errorCode: 'VALIDATION',
      errorMessage: expect.stringMatching(/0 EUR\/2 remain/),
    });
    const waiting = await create(3n, false);
    const refused = v1.reverseTransferInitiation({
      transferId: waiting.id,
      reverseTransferInitiationRequest: { reference: `rev-${suffix()}`, description: 'undo', amount: 3n, asset: 'EUR/2', metadata: null },
    });
    await expect(refused).rejects.toMatchObject({ statusCode: 400, errorMessage: expect.stringMatching(/status is WAITING_FOR_VALIDATION/) });
    expect((await read(waiting.id)).relatedAdjustments).toHaveLength(1);
  });

  test('connectorsTransfer', async () => {
    const res = await v1.connectorsTransfer({
      connector: 'DUMMY-PAY',
      transferRequest: { amount: 3n, asset: 'EUR/2', destination: supplier, source: main },
    });
    const id = res.transferResponse!.id!;
    // The provider's newest installed connector is this describe's (test files run one at a time).
    const transfer = await settled(id);
    expect(transfer).toMatchObject({
      connectorID,
      type: 'TRANSFER',
      amount: 3n,
      sourceAccountID: main,
      destinationAccountID: supplier,
      status: 'PROCESSED',
    });
  });
});
