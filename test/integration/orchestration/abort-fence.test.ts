import { createDb, type Db } from '../../../db/knex';
import { createTransaction } from '../../../areas/ledger';
import { inInstanceFence } from '../../../areas/orchestration';
import { pollUntil } from '../../support/eventually';
import { api } from '../../support/http';
import { balance, fund } from '../../support/ledger-fixtures';
import { newLedger } from '../../support/ledger';
import { createWorkflow, instanceHistory, readInstance, runInstance, stageHistory } from '../../support/orchestration';

const abort = (id: string) => api('PUT', `/api/orchestration/v2/instances/${id}/abort`);
const send = (ledger: string, source: string) => ({
  send: { source: { account: { id: source, ledger } }, destination: { account: { id: 'dest', ledger } }, amount: { asset: 'USD/2', amount: 100 } },
});

interface StageStatus {
  stage: number;
  startedAt: string;
  terminatedAt?: string;
  error?: string;
}

/** Every started stage ended, in order, and op 13 says what the read model says. */
async function expectConsistent(id: string) {
  const instance = await readInstance(id);
  expect(instance.terminated).toBe(true);
  for (const stage of instance.status as StageStatus[]) expect(stage.terminatedAt).toEqual(expect.any(String));
  const history = await pollUntil(
    async () => (await instanceHistory(id)).body.data as Array<{ terminated: boolean; terminatedAt?: string; startedAt: string; error?: string }>,
    (h) => h.length === instance.status.length && h.every((s) => s.terminated),
  );
  expect(history.map((s) => ({ startedAt: s.startedAt, terminatedAt: s.terminatedAt, error: s.error }))).toEqual(
    (instance.status as StageStatus[]).map((s) => ({ startedAt: s.startedAt, terminatedAt: s.terminatedAt, error: s.error })),
  );
  return instance as { error?: string; status: StageStatus[] };
}

describe('abort is final: no step of an aborted instance moves money once the abort is answered', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 4 });
  });
  afterAll(() => db.destroy());

  it('orders a step and the abort by the instance row: a step inside its fence holds the abort back until it committed, a step after the abort is refused', async () => {
    const ledger = await newLedger('fence');
    const id = (await runInstance(await createWorkflow([{ wait_event: { event: 'never' } }]))).body.data.id;
    await pollUntil(
      () => readInstance(id),
      (i) => i.status.length === 1,
    );

    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const step = inInstanceFence(db, id, async (trx) => {
      await createTransaction(trx, ledger, { postings: [{ source: 'world', destination: 'dest', amount: 1n, asset: 'USD/2' }] });
      entered();
      await released;
    });
    await inside;
    let answered = false;
    const aborting = abort(id).then((res) => ((answered = true), res));
    // The abort's marker waits on the step's lock (it shows in pg_stat_activity as a lock wait).
    await pollUntil(
      async () =>
        (await db.raw(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%SET aborted_at%'`)).rows[0].n,
      (n: number) => n > 0,
      { what: 'the abort waiting on the step' },
    );
    expect(answered).toBe(false);
    release();
    await step;
    expect((await aborting).status).toBe(204);
    // Committed before the abort answered, and kept.
    expect(await balance(ledger, 'dest')).toBe(1n);

    const refused = inInstanceFence(db, id, (trx) =>
      createTransaction(trx, ledger, { postings: [{ source: 'world', destination: 'dest', amount: 1n, asset: 'USD/2' }] }),
    );
    await expect(refused).rejects.toMatchObject({ code: 'ABORTED' });
    expect(await balance(ledger, 'dest')).toBe(1n);
    const done = await pollUntil(
      () => readInstance(id),
      (i) => i.terminated,
    );
    expect(done).toMatchObject({ error: 'canceled', status: [{ stage: 0, error: 'canceled', terminatedAt: expect.any(String) }] });
  });

  /**
   * The race of the issue, 20 times at once: a send waiting for funds (retried until funded) is aborted, and its source
   * is funded just before or just after the abort. The balance read right after the abort answered is final, and the
   * instance says what happened: a send that committed first ended its stage (the instance then went on to its
   * wait_event stage, which the abort cancels); otherwise the send's stage is the canceled one.
   */
  it('20 trials of abort against funding: no posting after the abort answered, and status and stages agree', async () => {
    const trials = Array.from({ length: 20 }, async (_, n) => {
      const ledger = await newLedger('race');
      const id = (await runInstance(await createWorkflow([send(ledger, 'src'), { wait_event: { event: 'never' } }]))).body.data.id;
      // The send has failed once for funds and is being retried.
      await pollUntil(
        async () => (await stageHistory(id, 0)).body.data,
        (steps) => Array.isArray(steps) && steps.length > 0 && steps.some((s: { lastFailure?: string; error?: string }) => s.lastFailure || s.error),
        { timeoutMs: 60_000 },
      );
      const fundFirst = n % 2 === 0;
      let answer;
      if (fundFirst) [, answer] = await Promise.all([fund(ledger, 'src', 100), abort(id)]);
      else {
        answer = await abort(id);
        await fund(ledger, 'src', 100);
      }
      expect(answer.status).toBe(204);
      const atAnswer = await balance(ledger, 'dest');
      await pollUntil(
        () => readInstance(id),
        (i) => i.terminated,
        { timeoutMs: 60_000 },
      );
      // Every attempt of the send has ended (none pending in Temporal), so nothing can still post.
      await pollUntil(
        async () => (await stageHistory(id, 0)).body.data,
        (steps) => steps.every((s: { terminated: boolean }) => s.terminated),
        { timeoutMs: 60_000 },
      );
      expect(await balance(ledger, 'dest')).toBe(atAnswer);
      const instance = await expectConsistent(id);
      expect(instance.error).toBe('canceled');
      if (atAnswer === 100n) {
        expect(instance.status.map((s) => s.error)).toEqual([undefined, 'canceled']);
      } else {
        expect(atAnswer).toBe(0n);
        expect(instance.status.map((s) => s.error)).toEqual(['canceled']);
        if (!fundFirst) expect(await balance(ledger, 'src')).toBe(100n);
      }
      return atAnswer;
    });
    const outcomes = await Promise.all(trials);
    expect(outcomes).toHaveLength(20);
    // A liveness bound for 20 runs at once on a loaded machine, not a timing assertion.
  }, 240_000);

  it('answers 409 to an abort of an instance whose last step committed first: the instance succeeded', async () => {
    const ledger = await newLedger('fence');
    await fund(ledger, 'src', 100);
    const { body } = await runInstance(await createWorkflow([send(ledger, 'src')]), {}, true);
    expect(body.data).toMatchObject({ terminated: true });
    expect((await abort(body.data.id)).status).toBe(409);
    expect(await balance(ledger, 'dest')).toBe(100n);
    const instance = await expectConsistent(body.data.id);
    expect(instance.error).toBeUndefined();
  });
});
