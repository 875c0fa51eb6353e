import { randomUUID } from 'node:crypto';
import { sdkClient } from '../../contract/sdk-client';
import { api } from '../../support/http';
import { testDb } from '../../support/payments';
import { parseJson } from '../../../lib/json';
import { type Bank, fundedLedger, pastOf, simulatedBank, uninstall } from './support';

const TWO_64 = 2n ** 64n;

/**
 * Every classic `reconciliation.v1` method of Formance's official SDK 7.0.1, unchanged, against the real stack: a
 * ledger funded from `world` and a simulated connector whose pool holds the same money (OK), then the provider's
 * balance moves and a second asset appears (NOT_OK, exact drift beyond 2^64), and the first instant still reconciles
 * OK, since both sides are read as they were.
 */
describe('reconciliation.v1 through the official SDK', () => {
  const sdk = sdkClient();
  const recon = sdk.reconciliation.v1;
  const db = testDb();
  let bank: Bank;
  let ledger: string;
  const held = TWO_64 + 12_345n;

  beforeAll(async () => {
    bank = await simulatedBank({ 'USD/2': held });
    ledger = await fundedLedger({ 'USD/2': held });
  });
  afterAll(async () => {
    await uninstall(bank.connectorID);
    await db.destroy();
  });

  it('serves versions and server info', async () => {
    const info = await recon.getServerInfoReconciliation();
    expect(info.serverInfo?.version).toEqual(expect.any(String));
    const versions = await sdk.getVersions();
    expect(versions.getVersionsResponse?.versions).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'reconciliation', health: true })]),
    );
  });

  it('creates, reads, lists, reconciles and deletes policies', async () => {
    const created = await recon.createPolicy({
      name: `world-vs-bank-${randomUUID().slice(0, 6)}`,
      ledgerName: ledger,
      ledgerQuery: { $match: { address: 'world' } },
      paymentsPoolID: bank.poolID,
    });
    expect(created.statusCode).toBe(201);
    const policy = created.policyResponse!.data;
    expect(policy).toMatchObject({ ledgerName: ledger, ledgerQuery: { $match: { address: 'world' } }, paymentsPoolID: bank.poolID });
    expect(policy.createdAt).toBeInstanceOf(Date);

    expect((await recon.getPolicy({ policyID: policy.id })).policyResponse!.data).toEqual(policy);
    const byName = await recon.listPolicies({ pageSize: 10, query: { $match: { name: policy.name } } });
    expect(byName.policiesCursorResponse!.cursor.data).toEqual([policy]);

    // OK: world holds minus what the bank holds.
    const agreed = await pastOf(new Date());
    const ok = (await recon.reconcile({ policyID: policy.id, reconciliationRequest: { reconciledAtLedger: agreed, reconciledAtPayments: agreed } }))
      .reconciliationResponse!.data;
    expect(ok).toMatchObject({ policyID: policy.id, status: 'OK', reconciledAtLedger: agreed, reconciledAtPayments: agreed });
    expect(ok.error ?? '').toBe('');

    // The provider's balance moves by 7 and a EUR balance appears that the ledger knows nothing of.
    const eur = TWO_64 * 3n;
    await bank.setBalances({ 'USD/2': held + 7n, 'EUR/2': eur });
    const drifted = await pastOf(new Date());
    const notOk = (
      await recon.reconcile({ policyID: policy.id, reconciliationRequest: { reconciledAtLedger: drifted, reconciledAtPayments: drifted } })
    ).reconciliationResponse!.data;
    expect(notOk).toMatchObject({ status: 'NOT_OK', error: 'missing asset EUR/2 in ledgerBalances; balance drift for asset USD/2' });

    // The SDK parses amounts through doubles; the API's own JSON, read exactly, carries every digit.
    const exact = await api('GET', `/api/reconciliation/reconciliations/${notOk.id}`);
    expect(exact.body.data).toMatchObject({
      ledgerBalances: { 'USD/2': -held, 'EUR/2': 0 },
      paymentsBalances: { 'USD/2': held + 7n, 'EUR/2': eur },
      driftBalances: { 'USD/2': 7, 'EUR/2': eur },
    });
    expect(exact.text).toContain(`"paymentsBalances":{"EUR/2":${eur},"USD/2":${held + 7n}}`);
    const okExact = await api('GET', `/api/reconciliation/reconciliations/${ok.id}`);
    expect(okExact.body.data).toMatchObject({
      status: 'OK',
      error: '',
      ledgerBalances: { 'USD/2': -held },
      paymentsBalances: { 'USD/2': held },
      driftBalances: { 'USD/2': 0 },
    });

    // Both sides are read as they were: the first instant still reconciles OK after the provider moved.
    const again = (
      await recon.reconcile({ policyID: policy.id, reconciliationRequest: { reconciledAtLedger: agreed, reconciledAtPayments: agreed } })
    ).reconciliationResponse!.data;
    expect(again.status).toBe('OK');

    expect((await recon.getReconciliation({ reconciliationID: notOk.id })).reconciliationResponse!.data).toMatchObject({
      id: notOk.id,
      status: 'NOT_OK',
      policyID: policy.id,
    });

    // Cursor pagination over this policy's three reconciliations, newest first.
    const first = (await recon.listReconciliations({ pageSize: 2, query: { $match: { policyID: policy.id } } })).reconciliationsCursorResponse!
      .cursor;
    expect(first.data.map((r) => r.id)).toEqual([again.id, notOk.id]);
    expect(first.hasMore).toBe(true);
    const second = (await recon.listReconciliations({ cursor: first.next })).reconciliationsCursorResponse!.cursor;
    expect(second.data.map((r) => r.id)).toEqual([ok.id]);
    expect(second.hasMore).toBe(false);
    const failed = (
      await recon.listReconciliations({ pageSize: 100, query: { $and: [{ $match: { policyID: policy.id } }, { $match: { status: 'NOT_OK' } }] } })
    ).reconciliationsCursorResponse!.cursor;
    expect(failed.data.map((r) => r.id)).toEqual([notOk.id]);

    // Each result is a platform event (webhooks: reconciliation.completed_reconciliation), its amounts exact.
    const event = await db('events_outbox')
      .where({ app: 'reconciliation', type: 'COMPLETED_RECONCILIATION' })
      .whereRaw("payload::jsonb->>'id' = ?", [notOk.id])
      .first('payload');
    expect(parseJson(event.payload)).toMatchObject({
      id: notOk.id,
      policyID: policy.id,
      status: 'NOT_OK',
      ledgerName: ledger,
      paymentsPoolID: bank.poolID,
      driftBalances: { 'USD/2': 7, 'EUR/2': eur },
    });

    expect((await recon.deletePolicy({ policyID: policy.id })).statusCode).toBe(204);
    await expect(recon.getPolicy({ policyID: policy.id })).rejects.toMatchObject({ statusCode: 404 });
    // Its reconciliations stay readable.
    expect((await recon.getReconciliation({ reconciliationID: ok.id })).reconciliationResponse!.data.status).toBe('OK');
    expect(
      await db('events_outbox')
        .where({ app: 'reconciliation', type: 'DELETED_POLICY' })
        .whereRaw("payload::jsonb->>'id' = ?", [policy.id])
        .first('id'),
    ).toBeDefined();
  });

  it('pages policies with the cursor', async () => {
    const name = `paged-${randomUUID().slice(0, 6)}`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.unshift((await recon.createPolicy({ name, ledgerName: ledger, ledgerQuery: {}, paymentsPoolID: bank.poolID })).policyResponse!.data.id);
    }
    const first = (await recon.listPolicies({ pageSize: 2, query: { $match: { name } } })).policiesCursorResponse!.cursor;
    expect(first).toMatchObject({ pageSize: 2, hasMore: true });
    const second = (await recon.listPolicies({ cursor: first.next })).policiesCursorResponse!.cursor;
    expect([...first.data, ...second.data].map((p) => p.id)).toEqual(ids);
    const back = (await recon.listPolicies({ cursor: second.previous })).policiesCursorResponse!.cursor;
    expect(back.data.map((p) => p.id)).toEqual(ids.slice(0, 2));
    for (const policyID of ids) await recon.deletePolicy({ policyID });
  });
});
