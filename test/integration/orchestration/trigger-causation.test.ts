import { createDb, type Db } from '../../../db/knex';
import { api } from '../../support/http';
import { balance, fund } from '../../support/ledger-fixtures';
import { newLedger } from '../../support/ledger';
import { pollUntil } from '../../support/eventually';
import { createWorkflow, readInstance } from '../../support/orchestration';

interface Occurrence {
  id: string;
  workflowInstanceID?: string;
  error?: string;
  event: { causation?: { chain: Array<{ instanceID: string; workflowID: string; triggerID?: string }> } };
}
const occurrences = async (id: string): Promise<Occurrence[]> =>
  (await api('GET', `/api/orchestration/v2/triggers/${id}/occurrences`)).body.cursor.data;

/** A trigger on the committed transactions of `ledger` whose workflow sends 1 from world to `to` on `target`. */
async function feedingTrigger(ledger: string, target: string, to: string): Promise<{ id: string; workflowID: string }> {
  const workflowID = await createWorkflow([
    {
      send: {
        source: { account: { id: 'world', ledger: target } },
        destination: { account: { id: to, ledger: target } },
        amount: { asset: 'USD/2', amount: 1 },
      },
    },
  ]);
  const res = await api('POST', '/api/orchestration/v2/triggers', {
    body: { event: 'COMMITTED_TRANSACTIONS', workflowID, filter: `event.ledger == "${ledger}"` },
  });
  expect(res.status).toBe(201);
  return { id: res.body.data.id, workflowID };
}

describe('trigger causation: a trigger does not fire on its own descendants', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
  });
  afterAll(() => db.destroy());

  it('a trigger whose workflow commits on the ledger it listens to runs once per outside transaction; the next match is recorded as not fired', async () => {
    const ledger = await newLedger('loop');
    const trigger = await feedingTrigger(ledger, ledger, 'fees');
    await fund(ledger, 'users:1', 10);
    // The outside transaction fires; the workflow's own transaction matches too, and is recorded as not fired.
    const list = await pollUntil(
      () => occurrences(trigger.id),
      (l) => l.length === 2 && l.some((o) => o.error),
    );
    const fired = list.find((o) => o.workflowInstanceID)!;
    const skipped = list.find((o) => o.error)!;
    expect(skipped.workflowInstanceID).toBeUndefined();
    expect(skipped.error).toBe(
      `not fired: the event descends from instance ${fired.workflowInstanceID}, started by this trigger (self-causation depth 1, limit 1)`,
    );
    // The event carries the chain of the instance whose step wrote it.
    expect(skipped.event.causation).toEqual({
      chain: [{ instanceID: fired.workflowInstanceID, workflowID: trigger.workflowID, triggerID: trigger.id }],
    });
    expect(fired.event.causation).toBeUndefined();
    const instance = await pollUntil(
      () => readInstance(fired.workflowInstanceID!),
      (i) => i?.terminated === true,
    );
    expect(instance.error).toBeUndefined();
    expect(await balance(ledger, 'fees')).toBe(1n);
    // The skipped occurrence started nothing, so nothing else can follow: one instance, two transactions.
    const instances = await api('GET', `/api/orchestration/v2/instances?workflowID=${trigger.workflowID}`);
    expect(instances.body.cursor.data.map((i: { id: string }) => i.id)).toEqual([fired.workflowInstanceID]);
    const transactions = await api('GET', `/api/ledger/v2/${ledger}/transactions`);
    expect(transactions.body.cursor.data).toHaveLength(2);
    // The stamp is on the outbox row of the workflow's transaction, not on the outside one.
    const rows = await db('events_outbox')
      .where({ app: 'ledger', type: 'COMMITTED_TRANSACTIONS' })
      .whereRaw(`payload::jsonb->>'ledger' = ?`, [ledger])
      .orderBy('seq')
      .select('causation');
    expect(rows.map((r: { causation: string | null }) => r.causation === null)).toEqual([true, false]);
  });

  it('a cycle through two triggers stops when it comes back to the first one', async () => {
    const [a, b] = [await newLedger('cycle-a'), await newLedger('cycle-b')];
    const first = await feedingTrigger(a, b, 'in:a'); // on A, writes on B
    const second = await feedingTrigger(b, a, 'in:b'); // on B, writes on A
    await fund(a, 'users:1', 10);
    const firstList = await pollUntil(
      () => occurrences(first.id),
      (l) => l.length === 2 && l.some((o) => o.error),
    );
    const [secondFired] = await pollUntil(
      () => occurrences(second.id),
      (l) => l.length === 1,
    );
    const firstFired = firstList.find((o) => o.workflowInstanceID)!;
    expect(secondFired.workflowInstanceID).toEqual(expect.any(String));
    expect(secondFired.event.causation!.chain).toEqual([
      { instanceID: firstFired.workflowInstanceID, workflowID: first.workflowID, triggerID: first.id },
    ]);
    const skipped = firstList.find((o) => o.error)!;
    expect(skipped.event.causation!.chain).toEqual([
      { instanceID: firstFired.workflowInstanceID, workflowID: first.workflowID, triggerID: first.id },
      { instanceID: secondFired.workflowInstanceID, workflowID: second.workflowID, triggerID: second.id },
    ]);
    expect(skipped.error).toMatch(/^not fired: the event descends from instance /);
    await pollUntil(
      () => readInstance(secondFired.workflowInstanceID!),
      (i) => i?.terminated === true,
    );
    expect(await balance(b, 'in:a')).toBe(1n);
    expect(await balance(a, 'in:b')).toBe(1n);
  });
});
