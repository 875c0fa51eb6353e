import { api } from '../../support/http';
import { createWorkflow, readInstance } from '../../support/orchestration';
import { pollUntil } from '../../support/eventually';
import { type Bank, fundedLedger, pastOf, simulatedBank, uninstall } from './support';

const occurrences = async (id: string) => (await api('GET', `/api/orchestration/triggers/${id}/occurrences`)).body.cursor.data;

/** A failed reconciliation runs a workflow through a trigger on COMPLETED_RECONCILIATION; a passing one does not. */
describe('reconciliation events', () => {
  let bank: Bank;
  afterAll(async () => {
    if (bank) await uninstall(bank.connectorID);
  });

  it('a trigger filtered on NOT_OK starts a workflow instance for the failed reconciliation only', async () => {
    bank = await simulatedBank({ 'USD/2': 1000n });
    const ledger = await fundedLedger({ 'USD/2': 1000n });
    const policy = (
      await api('POST', '/api/reconciliation/policies', {
        body: { name: 'events', ledgerName: ledger, ledgerQuery: { $match: { address: 'world' } }, paymentsPoolID: bank.poolID },
      })
    ).body.data;
    const workflowID = await createWorkflow([{ noop: {} }]);
    const trigger = (
      await api('POST', '/api/orchestration/v2/triggers', {
        body: {
          event: 'COMPLETED_RECONCILIATION',
          workflowID,
          filter: `event.policyID == "${policy.id}" && event.status == "NOT_OK"`,
          vars: { drift: 'string(event.driftBalances["USD/2"])' },
        },
      })
    ).body.data;
    expect(trigger.id).toEqual(expect.any(String));

    const agreed = await pastOf(new Date());
    const ok = await api('POST', `/api/reconciliation/policies/${policy.id}/reconciliation`, {
      body: { reconciledAtLedger: agreed, reconciledAtPayments: agreed },
    });
    expect(ok.body.data.status).toBe('OK');
    await bank.setBalances({ 'USD/2': 1250n });
    const drifted = await pastOf(new Date());
    const failed = await api('POST', `/api/reconciliation/policies/${policy.id}/reconciliation`, {
      body: { reconciledAtLedger: drifted, reconciledAtPayments: drifted },
    });
    expect(failed.body.data).toMatchObject({ status: 'NOT_OK', driftBalances: { 'USD/2': 250 } });

    const [occurrence] = await pollUntil(
      () => occurrences(trigger.id),
      (list) => list.length === 1,
    );
    expect(occurrence).toMatchObject({
      triggerID: trigger.id,
      event: { app: 'reconciliation', type: 'COMPLETED_RECONCILIATION', payload: { id: failed.body.data.id } },
    });
    const instance = await pollUntil(
      () => readInstance(occurrence.workflowInstanceID),
      (i) => i?.terminated === true,
    );
    expect(instance).toMatchObject({ workflowID, terminated: true });
    expect(instance.error).toBeUndefined();
    expect(await occurrences(trigger.id)).toHaveLength(1);
    expect((await api('DELETE', `/api/orchestration/triggers/${trigger.id}`)).status).toBe(204);
  });
});
