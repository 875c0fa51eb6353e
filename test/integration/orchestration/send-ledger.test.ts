import { api } from '../../support/http';
import { control } from '../../support/control';
import { balance, fund } from '../../support/ledger-fixtures';
import { newLedger } from '../../support/ledger';
import { pollUntil } from '../../support/eventually';
import { createWorkflow, instanceHistory, readInstance, runInstance, stageHistory } from '../../support/orchestration';

const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/);
const send = (from: string, to: string, fromLedger: string, toLedger = fromLedger, amount: unknown = '${amount}') => ({
  send: {
    source: { account: { id: from, ledger: fromLedger } },
    destination: { account: { id: to, ledger: toLedger } },
    amount: { asset: 'USD/2', amount },
    metadata: { purpose: 'test' },
  },
});

describe('orchestration send and update stages against the ledger', () => {
  it('sends account to account on one ledger; ops 13 and 14 show the stage and its CreateTransaction', async () => {
    const ledger = await newLedger();
    await fund(ledger, 'users:1', 1000);
    const workflowID = await createWorkflow([send('users:${user}', 'merchants:1', ledger)]);
    const res = await runInstance(workflowID, { user: '1', amount: '250' }, true);
    expect(res.body.data).toMatchObject({ terminated: true });
    expect(res.body.data.error).toBeUndefined();
    expect(await balance(ledger, 'users:1')).toBe(750n);
    expect(await balance(ledger, 'merchants:1')).toBe(250n);

    const history = (await instanceHistory(res.body.data.id)).body.data;
    expect(history).toEqual([
      {
        name: 'RunSend',
        input: {
          source: { account: { id: 'users:1', ledger } },
          destination: { account: { id: 'merchants:1', ledger } },
          amount: { asset: 'USD/2', amount: 250 },
          metadata: { purpose: 'test' },
        },
        terminated: true,
        startedAt: iso,
        terminatedAt: iso,
      },
    ]);
    const stage = (await stageHistory(res.body.data.id, 0)).body.data;
    expect(stage).toEqual([
      {
        name: 'CreateTransaction',
        input: {
          CreateTransaction: {
            ledger,
            data: { postings: [{ source: 'users:1', destination: 'merchants:1', amount: 250, asset: 'USD/2' }], metadata: { purpose: 'test' } },
          },
        },
        output: {
          CreateTransaction: {
            data: [
              {
                timestamp: iso,
                postings: [{ source: 'users:1', destination: 'merchants:1', amount: 250, asset: 'USD/2' }],
                metadata: { purpose: 'test' },
                txid: expect.any(Number),
              },
            ],
          },
        },
        terminated: true,
        startedAt: iso,
        terminatedAt: iso,
        attempt: 1,
      },
    ]);
  });

  it('sends across ledgers through world with move metadata, and keeps amounts exact beyond 2^53', async () => {
    const [from, to] = [await newLedger(), await newLedger()];
    const big = 2n ** 70n + 3n;
    await fund(from, 'treasury', big);
    const workflowID = await createWorkflow([send('treasury', 'reserve', from, to)]);
    const res = await runInstance(workflowID, { amount: big.toString() }, true);
    expect(res.body.data.error).toBeUndefined();
    expect(await balance(from, 'treasury')).toBe(0n);
    expect(await balance(to, 'reserve')).toBe(big);
    const stage = (await stageHistory(res.body.data.id, 0)).body.data;
    expect(stage.map((e: { name: string }) => e.name)).toEqual(['CreateTransaction', 'CreateTransaction']);
    expect(stage[0].input.CreateTransaction.data.metadata).toEqual({ purpose: 'test', 'orchestration/move-to-ledger': to });
    expect(stage[1].input.CreateTransaction.data.metadata).toEqual({ purpose: 'test', 'orchestration/move-from-ledger': from });
    expect(stage[1].output.CreateTransaction.data[0].postings[0]).toEqual({ source: 'world', destination: 'reserve', amount: big, asset: 'USD/2' });
  });

  it('updates account metadata (update stage -> AddAccountMetadata)', async () => {
    const ledger = await newLedger();
    const workflowID = await createWorkflow([{ update: { account: { id: 'users:${id}', ledger, metadata: { tier: '${tier}' } } } }]);
    const res = await runInstance(workflowID, { id: '7', tier: 'gold' }, true);
    expect(res.body.data.error).toBeUndefined();
    const account = await api('GET', `/api/ledger/v2/${ledger}/accounts/users:7`);
    expect(account.body.data.metadata).toEqual({ tier: 'gold' });
    const stage = (await stageHistory(res.body.data.id, 0)).body.data;
    expect(stage).toEqual([
      {
        name: 'AddAccountMetadata',
        input: { AddAccountMetadata: { id: 'users:7', ledger, metadata: { tier: 'gold' } } },
        terminated: true,
        startedAt: iso,
        terminatedAt: iso,
        attempt: 1,
      },
    ]);
  });

  it('fails the stage at once on a non-retryable error (unknown ledger)', async () => {
    const workflowID = await createWorkflow([send('a', 'b', 'no-such-ledger-here')]);
    const res = await runInstance(workflowID, { amount: '1' }, true);
    expect(res.body.data.terminated).toBe(true);
    expect(res.body.data.error).toMatch(/ledger/i);
    const stage = (await stageHistory(res.body.data.id, 0)).body.data;
    expect(stage).toHaveLength(1);
    expect(stage[0]).toMatchObject({ name: 'CreateTransaction', terminated: true, attempt: 1, error: res.body.data.error });
  });

  it('retries a send from an unfunded account (op 14: attempt, lastFailure, nextExecution) until it is funded', async () => {
    const ledger = await newLedger();
    const workflowID = await createWorkflow([send('empty', 'dest', ledger)]);
    const id = (await runInstance(workflowID, { amount: '100' })).body.data.id;
    const pending = await pollUntil(
      async () => (await stageHistory(id, 0)).body.data,
      (entries) => Array.isArray(entries) && entries.length === 1 && entries[0].attempt >= 2 && entries[0].lastFailure !== undefined,
    );
    expect(pending[0]).toMatchObject({ name: 'CreateTransaction', terminated: false, attempt: expect.any(Number), nextExecution: iso });
    expect(pending[0].lastFailure).toMatch(/insufficient/i);
    expect(pending[0].output).toBeUndefined();
    expect((await readInstance(id)).terminated).toBe(false);

    await fund(ledger, 'empty', 100);
    const done = await pollUntil(
      () => readInstance(id),
      (i) => i.terminated,
      { timeoutMs: 60_000 },
    );
    expect(done.error).toBeUndefined();
    expect(await balance(ledger, 'dest')).toBe(100n);
    // The step's activity ends the stage in the read model before Temporal records the activity's completion, which op 14
    // reads: wait for it there.
    const final = await pollUntil(
      async () => (await stageHistory(id, 0)).body.data,
      (e) => Array.isArray(e) && e[0]?.terminated === true,
    );
    expect(final[0]).toMatchObject({ terminated: true, attempt: expect.any(Number) });
    expect(final[0].attempt).toBeGreaterThan(1);
  }, 90_000);

  it('survives a worker crash in the middle of a stage: the instance completes and each posting exists once', async () => {
    const ledger = await newLedger();
    await fund(ledger, 'src', 300);
    // The first send waits on funds (so the worker dies mid-stage, between attempts), then a delay, then a second send.
    const workflowID = await createWorkflow([
      send('poor', 'dst', ledger, ledger, 50),
      { delay: { duration: '1s' } },
      send('src', 'dst', ledger, ledger, 70),
    ]);
    const id = (await runInstance(workflowID)).body.data.id;
    await pollUntil(
      async () => (await stageHistory(id, 0)).body.data,
      (e) => Array.isArray(e) && e[0]?.attempt >= 2,
    );
    await control('worker', 'kill');
    await fund(ledger, 'poor', 50);
    const done = await pollUntil(
      () => readInstance(id),
      (i) => i.terminated,
      { timeoutMs: 60_000 },
    );
    expect(done.error).toBeUndefined();
    expect(await balance(ledger, 'dst')).toBe(120n);
    const txs = await api('GET', `/api/ledger/v2/${ledger}/transactions?pageSize=100`);
    const postings = txs.body.cursor.data
      .flatMap((t: { postings: Array<{ destination: string; amount: number }> }) => t.postings)
      .filter((p: { destination: string }) => p.destination === 'dst');
    expect(postings.map((p: { amount: number }) => p.amount).sort()).toEqual([50, 70]);
  }, 90_000);
});
