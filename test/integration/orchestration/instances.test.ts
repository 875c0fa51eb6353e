import { api } from '../../support/http';
import { pollUntil } from '../../support/eventually';
import { createWorkflow, instanceHistory, readInstance, runInstance, stageHistory } from '../../support/orchestration';

const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/);

describe('orchestration instances on Temporal', () => {
  it('runs noop and delay stages; wait=true returns the final state; ops 13 and 14 read Temporal history', async () => {
    const workflowID = await createWorkflow([{ noop: {} }, { delay: { duration: '${pause}' } }]);
    const res = await runInstance(workflowID, { pause: '300ms' }, true);
    expect(res.status).toBe(200);
    const instance = res.body.data;
    expect(instance).toEqual({
      workflowID,
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      createdAt: iso,
      updatedAt: iso,
      terminated: true,
      terminatedAt: iso,
      status: [
        { stage: 0, instanceID: instance.id, startedAt: iso, terminatedAt: iso },
        { stage: 1, instanceID: instance.id, startedAt: iso, terminatedAt: iso },
      ],
    });
    expect(Date.parse(instance.status[1].terminatedAt) - Date.parse(instance.status[1].startedAt)).toBeGreaterThanOrEqual(300);

    const history = await instanceHistory(instance.id);
    expect(history.status).toBe(200);
    expect(history.body.data).toEqual([
      { name: 'RunNoop', input: {}, terminated: true, startedAt: instance.status[0].startedAt, terminatedAt: instance.status[0].terminatedAt },
      {
        name: 'RunDelay',
        input: { duration: '300ms' },
        terminated: true,
        startedAt: instance.status[1].startedAt,
        terminatedAt: instance.status[1].terminatedAt,
      },
    ]);
    const stage = await stageHistory(instance.id, 1);
    expect(stage.status).toBe(200);
    expect(stage.body.data).toEqual([]);
  });

  it('keeps an event sent before its wait_event stage, and finishes when every awaited event came', async () => {
    const workflowID = await createWorkflow([
      { delay: { duration: '500ms' } },
      { wait_event: { event: 'approved' } },
      { wait_event: { event: 'shipped' } },
    ]);
    const { body } = await runInstance(workflowID);
    const id = body.data.id;
    expect(body.data.terminated).toBe(false);
    // Sent while the delay stage runs: the first wait_event stage has not started yet.
    expect((await api('POST', `/api/orchestration/v2/instances/${id}/events`, { body: { name: 'approved' } })).status).toBe(204);
    await pollUntil(
      () => readInstance(id),
      (i) => i.status.length === 3,
    );
    expect((await readInstance(id)).terminated).toBe(false);
    expect((await api('POST', `/api/orchestration/instances/${id}/events`, { body: { name: 'shipped' } })).status).toBe(204);
    const done = await pollUntil(
      () => readInstance(id),
      (i) => i.terminated,
    );
    expect(done.error).toBeUndefined();
    // The read model is written inside the local activity; op 13 reads Temporal's history, where its marker is recorded
    // only when that workflow task completes: wait until every stage is closed there too.
    const history = await pollUntil(
      async () => (await instanceHistory(id)).body.data,
      (h) => h.length === 3 && h.every((e: { terminated: boolean }) => e.terminated),
    );
    expect(history.map((h: { name: string; input: unknown }) => [h.name, h.input])).toEqual([
      ['RunDelay', { duration: '500ms' }],
      ['RunWaitEvent', { event: 'approved' }],
      ['RunWaitEvent', { event: 'shipped' }],
    ]);
    const again = await api('POST', `/api/orchestration/v2/instances/${id}/events`, { body: { name: 'late' } });
    expect(again.status).toBe(409);
  });

  it('aborts a waiting instance: the stage and the instance end with "canceled"', async () => {
    const workflowID = await createWorkflow([{ noop: {} }, { wait_event: { event: 'never' } }, { noop: {} }]);
    const id = (await runInstance(workflowID)).body.data.id;
    await pollUntil(
      () => readInstance(id),
      (i) => i.status.length === 2,
    );
    expect((await api('PUT', `/api/orchestration/v2/instances/${id}/abort`)).status).toBe(204);
    const done = await pollUntil(
      () => readInstance(id),
      (i) => i.terminated,
    );
    expect(done.error).toBe('canceled');
    expect(done.status).toHaveLength(2);
    expect(done.status[1].error).toBe('canceled');
    // The stage end is written by a local activity before Temporal records its marker (when the workflow task
    // completes): op 13 shows it a moment after the read model does.
    const history = await pollUntil(
      async () => (await instanceHistory(id)).body.data,
      (h) => h[1]?.terminated === true,
    );
    expect(history[1]).toMatchObject({ name: 'RunWaitEvent', terminated: true, error: 'canceled' });
    expect((await api('PUT', `/api/orchestration/v2/instances/${id}/abort`)).status).toBe(409);
  });

  it('lists instances by workflow and running state', async () => {
    const workflowID = await createWorkflow([{ wait_event: { event: 'go' } }]);
    const first = (await runInstance(workflowID)).body.data.id;
    const second = (await runInstance(workflowID)).body.data.id;
    await api('POST', `/api/orchestration/v2/instances/${first}/events`, { body: { name: 'go' } });
    await pollUntil(
      () => readInstance(first),
      (i) => i.terminated,
    );
    const all = await api('GET', `/api/orchestration/v2/instances?workflowID=${workflowID}`);
    expect(all.body.cursor.data.map((i: { id: string }) => i.id)).toEqual([second, first]);
    const running = await api('GET', `/api/orchestration/v2/instances?workflowID=${workflowID}&running=true`);
    expect(running.body.cursor.data.map((i: { id: string }) => i.id)).toEqual([second]);
    const page = await api('GET', `/api/orchestration/v2/instances?workflowID=${workflowID}&pageSize=1`);
    expect(page.body.cursor).toMatchObject({ pageSize: 1, hasMore: true, previous: '' });
    const next = await api('GET', `/api/orchestration/v2/instances?cursor=${page.body.cursor.next}`);
    expect(next.body.cursor.data.map((i: { id: string }) => i.id)).toEqual([first]);
    await api('PUT', `/api/orchestration/v2/instances/${second}/abort`);
  });

  it('fails a stage whose resolved config is invalid, and reports it in the instance and op 13', async () => {
    const workflowID = await createWorkflow([{ delay: { duration: '${d}' } }, { noop: {} }]);
    const res = await runInstance(workflowID, { d: 'soon' }, true);
    expect(res.body.data).toMatchObject({
      terminated: true,
      error: 'stages[0].delay.duration: "soon" is not a duration (e.g. "10s", "1m30s", "500ms")',
    });
    expect(res.body.data.status).toHaveLength(1);
    const history = (await instanceHistory(res.body.data.id)).body.data;
    expect(history).toEqual([
      { name: 'RunDelay', input: { duration: 'soon' }, error: res.body.data.error, terminated: true, startedAt: iso, terminatedAt: iso },
    ]);
  });

  it('ends a run of a workflow without stages at once, with no stage in the instance or op 13', async () => {
    const workflowID = await createWorkflow([]);
    const { body } = await runInstance(workflowID, {}, true);
    expect(body.data).toMatchObject({ terminated: true, terminatedAt: iso, status: [] });
    expect(body.data.error).toBeUndefined();
    expect((await instanceHistory(body.data.id)).body.data).toEqual([]);
    expect((await stageHistory(body.data.id, 0)).status).toBe(404);
  });

  it('answers 404 for unknown workflows, instances and stages, 400 for a non-integer stage', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await runInstance(unknown)).status).toBe(404);
    expect((await api('GET', `/api/orchestration/v2/instances/${unknown}`)).status).toBe(404);
    expect((await instanceHistory(unknown)).status).toBe(404);
    const workflowID = await createWorkflow([{ noop: {} }]);
    const id = (await runInstance(workflowID, {}, true)).body.data.id;
    expect((await stageHistory(id, 0)).status).toBe(200);
    expect((await stageHistory(id, 1)).status).toBe(404);
    expect((await stageHistory(id, 'x')).status).toBe(400);
  });
});
