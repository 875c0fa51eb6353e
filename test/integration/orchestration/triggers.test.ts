import { api } from '../../support/http';
import { balance, fund } from '../../support/ledger-fixtures';
import { newLedger } from '../../support/ledger';
import { pollUntil } from '../../support/eventually';
import { createWorkflow, readInstance } from '../../support/orchestration';

const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/);
const occurrences = async (id: string) => (await api('GET', `/api/orchestration/triggers/${id}/occurrences`)).body.cursor.data;
const triggerIds = async () => (await api('GET', '/api/orchestration/triggers?pageSize=1000')).body.cursor.data.map((t: { id: string }) => t.id);

describe('orchestration triggers', () => {
  it('creates (op 15), reads, lists, tests and deletes a trigger', async () => {
    const workflowID = await createWorkflow([{ noop: {} }]);
    const body = {
      event: 'SAVED_PAYMENT',
      workflowID,
      filter: 'event.status == "SUCCEEDED" && event.amount > 100',
      vars: { amount: 'event.amount' },
      name: `t-${Date.now()}`,
    };
    const created = await api('POST', '/api/orchestration/triggers', { body });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ ...body, id: expect.stringMatching(/^[0-9a-f-]{36}$/), createdAt: iso });
    const id = created.body.data.id;
    expect((await api('GET', `/api/orchestration/v2/triggers/${id}`)).body.data).toEqual(created.body.data);
    const listed = await api('GET', `/api/orchestration/triggers?name=${body.name.slice(2)}`);
    expect(listed.body.cursor.data.map((t: { id: string }) => t.id)).toEqual([id]);

    const match = await api('POST', `/api/orchestration/v2/triggers/${id}/test`, { body: { status: 'SUCCEEDED', amount: 250 } });
    expect(match.body.data).toEqual({ filter: { match: true }, variables: { amount: { value: '250' } } });
    const miss = await api('POST', `/api/orchestration/v2/triggers/${id}/test`, { body: { status: 'FAILED', amount: 250 } });
    expect(miss.body.data).toEqual({ filter: { match: false }, variables: null });

    expect((await api('DELETE', `/api/orchestration/triggers/${id}`)).status).toBe(204);
    expect((await api('GET', `/api/orchestration/triggers/${id}`)).status).toBe(404);
  });

  it.each([
    ['missing event', (w: string) => ({ workflowID: w }), 400, /missing event/],
    ['missing workflowID', () => ({ event: 'X' }), 400, /missing workflow id/],
    [
      'a filter that does not compile',
      (w: string) => ({ event: 'X', workflowID: w, filter: 'event.amount >' }),
      400,
      /filter: error compiling expression/,
    ],
    ['a var that does not compile', (w: string) => ({ event: 'X', workflowID: w, vars: { a: '(' } }), 400, /vars\.a: error compiling expression/],
    ['an unknown workflow', () => ({ event: 'X', workflowID: '00000000-0000-4000-8000-000000000000' }), 404, /not found/],
  ])('refuses %s', async (_name, make, status, message) => {
    const workflowID = await createWorkflow([{ noop: {} }]);
    const res = await api('POST', '/api/orchestration/triggers', { body: make(workflowID) });
    expect(res.status).toBe(status);
    expect(res.body.errorMessage).toMatch(message);
  });

  it.each([
    ['an unknown variable', { filter: 'nosuchvar.x == 1' }, `filter: error compiling expression 'nosuchvar.x == 1': Unknown variable: nosuchvar`],
    [
      'an unknown function',
      { vars: { x: 'eval("1")' } },
      `vars.x: error compiling expression 'eval("1")': found no matching overload for 'eval(string)'`,
    ],
    [
      'a field the payload does not have',
      { vars: { x: 'event.nosuchfield' } },
      "vars.x: error compiling expression 'event.nosuchfield': No such key: nosuchfield (not in a SAVED_PAYMENT payload)",
    ],
    ['a filter that is not a boolean', { filter: '1 + 1' }, `filter: error compiling expression '1 + 1': the filter gives int, not a bool`],
  ])('refuses %s at creation with 400 naming the field, and stores nothing', async (_name, expressions, message) => {
    const workflowID = await createWorkflow([{ noop: {} }]);
    const before = await triggerIds();
    const res = await api('POST', '/api/orchestration/triggers', { body: { event: 'SAVED_PAYMENT', workflowID, ...expressions } });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
    expect(res.body.errorMessage).toContain(message);
    expect(await triggerIds()).toEqual(before);
  });

  it('checks only the variable and the functions on an event type the platform does not emit', async () => {
    const workflowID = await createWorkflow([{ noop: {} }]);
    const body = { event: 'SOME_OTHER_EVENT', workflowID, filter: 'event.anything == 1' };
    expect((await api('POST', '/api/orchestration/triggers', { body })).status).toBe(201);
    const refused = await api('POST', '/api/orchestration/triggers', { body: { ...body, vars: { y: 'other.anything' } } });
    expect(refused.status).toBe(400);
    expect(refused.body.errorMessage).toMatch(/^vars\.y: .*Unknown variable: other/);
  });

  it('starts the workflow on a matching ledger event with the evaluated vars; a non-matching event starts nothing', async () => {
    const ledger = await newLedger('trig');
    const workflowID = await createWorkflow([
      {
        send: {
          source: { account: { id: 'world', ledger } },
          destination: { account: { id: 'bonus:${user}', ledger } },
          amount: { asset: 'USD/2', amount: '${amount}' },
        },
      },
    ]);
    const trigger = (
      await api('POST', '/api/orchestration/triggers', {
        body: {
          event: 'COMMITTED_TRANSACTIONS',
          workflowID,
          filter: `event.ledger == "${ledger}" && event.transactions[0].postings[0].destination.startsWith("users:") && event.transactions[0].postings[0].amount > 100`,
          vars: { user: 'event.transactions[0].postings[0].destination.split(":")[1]', amount: 'event.transactions[0].postings[0].amount / 10' },
        },
      })
    ).body.data;
    await fund(ledger, 'users:ann', 50); // filtered out: amount <= 100
    await fund(ledger, 'users:bob', 1000);
    const [occurrence] = await pollUntil(
      () => occurrences(trigger.id),
      (list) => list.length === 1,
    );
    expect(occurrence).toMatchObject({
      triggerID: trigger.id,
      workflowInstanceID: expect.any(String),
      date: iso,
      event: { app: 'ledger', type: 'COMMITTED_TRANSACTIONS' },
    });
    // The occurrence is committed before its instance starts (so a retry finishes the same start): the instance may
    // not be readable yet when the occurrence is.
    const instance = await pollUntil(
      () => readInstance(occurrence.workflowInstanceID),
      (i) => i?.terminated === true,
    );
    expect(instance).toMatchObject({ workflowID, terminated: true });
    expect(instance.error).toBeUndefined();
    expect(await balance(ledger, 'bonus:bob')).toBe(100n);
    expect(await balance(ledger, 'bonus:ann')).toBe(0n);
    expect(await occurrences(trigger.id)).toHaveLength(1);
  });

  it('records an occurrence with the error when a var fails, and starts no instance', async () => {
    const ledger = await newLedger('trig');
    const workflowID = await createWorkflow([{ noop: {} }]);
    const trigger = (
      await api('POST', '/api/orchestration/v2/triggers', {
        // A transaction without a reference has no `reference` field: the variable fails on this event only.
        body: {
          event: 'COMMITTED_TRANSACTIONS',
          workflowID,
          filter: `event.ledger == "${ledger}"`,
          vars: { missing: 'event.transactions[0].reference' },
        },
      })
    ).body.data;
    await fund(ledger, 'users:x', 10);
    const [occurrence] = await pollUntil(
      () => occurrences(trigger.id),
      (list) => list.length === 1,
    );
    expect(occurrence.workflowInstanceID).toBeUndefined();
    expect(occurrence.error).toMatch(/variable missing/);
    const instances = await api('GET', `/api/orchestration/v2/instances?workflowID=${workflowID}`);
    expect(instances.body.cursor.data).toEqual([]);
  });
});
