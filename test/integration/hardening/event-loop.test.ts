import { api, apiUrl } from '../../support/http';
import { newLedger, posting, postTransaction } from '../../support/ledger';
import { pollUntil } from '../../support/eventually';
import { createWorkflow } from '../../support/orchestration';

/**
 * No request can hold the API's event loop (issue 36): user regular expressions run on RE2, CEL expressions are
 * bounded by a cost estimate, Numscript nesting is bounded. Each case answers with a clear result; the ReDoS cases
 * would each take minutes on JavaScript's backtracking engine, so a run that completes is the proof (no timing bound).
 */
const health = async () => (await fetch(`${apiUrl()}/_healthcheck`)).status;
const occurrences = async (id: string) => (await api('GET', `/api/orchestration/v2/triggers/${id}/occurrences`)).body.cursor.data;

describe('a chart .pattern cannot hold the event loop', () => {
  test('^(a+)+$ and a transaction to a 40-letter address: a prompt 400, the health probe answering meanwhile', async () => {
    const ledger = await newLedger('redos');
    const schema = await api('POST', `/api/ledger/v2/${ledger}/schemas/v1`, {
      body: { chart: { world: {}, users: { $id: { '.pattern': '^(a+)+$' } } } },
    });
    expect(schema.status).toBe(204);
    const address = `users:${'a'.repeat(40)}b`;
    const [refused, probe] = await Promise.all([
      postTransaction(ledger, { postings: [posting('world', address, 1)] }, {}, '?schemaVersion=v1'),
      health(),
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      errorCode: 'VALIDATION',
      errorMessage: expect.stringContaining(`segment "${'a'.repeat(40)}b" under "users" does not match $id's pattern ^(a+)+$`),
    });
    expect(probe).toBe(200);
    const allowed = await postTransaction(ledger, { postings: [posting('world', `users:${'a'.repeat(40)}`, 1)] }, {}, '?schemaVersion=v1');
    expect(allowed.status).toBe(200);
  });

  test.each([
    ['a lookahead', '^(?=a)a+$', 'invalid or unsupported Perl syntax'],
    ['a backreference', '^(a)\\1$', 'invalid escape sequence'],
  ])('a pattern RE2 cannot compile (%s) is refused at creation naming the field', async (_name, pattern, reason) => {
    const ledger = await newLedger('redos');
    const res = await api('POST', `/api/ledger/v2/${ledger}/schemas/v1`, { body: { chart: { users: { $id: { '.pattern': pattern } } } } });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
    expect(res.body.errorMessage).toMatch(/^chart\.users\.\$id\.\.pattern: invalid regular expression/);
    expect(res.body.errorMessage).toContain(reason);
    expect((await api('GET', `/api/ledger/v2/${ledger}/schemas/v1`)).status).toBe(404);
  });
});

describe('a trigger expression cannot hold the event loop', () => {
  const onDone: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const done of onDone) await done();
  });
  const nestedAll = (depth: number, list: string, body: string) => {
    let source = body;
    for (let i = 0; i < depth; i++) source = `${list}.all(x${i}, ${source})`;
    return source;
  };

  test('eight nested .all() over 10-element lists are refused at creation, naming the filter', async () => {
    const workflowID = await createWorkflow([{ noop: {} }]);
    const filter = nestedAll(8, '[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]', 'x0 > 0');
    const res = await api('POST', '/api/orchestration/v2/triggers', { body: { event: 'SAVED_PAYMENT', workflowID, filter } });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
    expect(res.body.errorMessage).toMatch(/^filter: error compiling expression .*: estimated evaluation cost \d+ .* is over the limit of 1000000/);
  });

  test('a lookahead in matches is refused at creation, naming the variable', async () => {
    const workflowID = await createWorkflow([{ noop: {} }]);
    const res = await api('POST', '/api/orchestration/v2/triggers', {
      body: { event: 'SAVED_PAYMENT', workflowID, vars: { v: 'event.status.matches("(?=x)")' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/^vars\.v: error compiling expression .*matches: invalid regular expression "\(\?=x\)"/);
  });

  test('matches("^(a+)+$") on a long text answers its trigger test at once, the health probe too', async () => {
    const workflowID = await createWorkflow([{ noop: {} }]);
    const created = await api('POST', '/api/orchestration/v2/triggers', {
      body: { event: 'OTHER_EVENT', workflowID, filter: 'event.name.matches("^(a+)+$")' },
    });
    expect(created.status).toBe(201);
    const [tested, probe] = await Promise.all([
      api('POST', `/api/orchestration/v2/triggers/${created.body.data.id}/test`, { body: { name: `${'a'.repeat(40)}!` } }),
      health(),
    ]);
    expect(tested.status).toBe(200);
    expect(tested.body.data).toEqual({ filter: { match: false }, variables: null });
    expect(probe).toBe(200);
  });

  test('a trigger test whose payload puts the filter over the cost limit is 400 naming the filter, and is not run', async () => {
    const workflowID = await createWorkflow([{ noop: {} }]);
    const filter = nestedAll(3, 'event.items', 'x0 > 0');
    const created = await api('POST', '/api/orchestration/v2/triggers', { body: { event: 'OTHER_EVENT', workflowID, filter } });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const small = await api('POST', `/api/orchestration/v2/triggers/${id}/test`, { body: { items: [1, 2, 3] } });
    expect(small.body.data).toEqual({ filter: { match: true }, variables: null });
    // 1000^3 = 10^9 iterations: minutes of a blocked event loop if it ran.
    const large = await api('POST', `/api/orchestration/v2/triggers/${id}/test`, { body: { items: Array.from({ length: 1000 }, (_, i) => i + 1) } });
    expect(large.status).toBe(400);
    expect(large.body.errorCode).toBe('VALIDATION');
    expect(large.body.errorMessage).toMatch(/^filter: estimated evaluation cost \d+ on this event is over the limit of 1000000/);
  });

  test('in the worker, a filter over the cost limit on an event is recorded on the occurrence once, starting nothing', async () => {
    const ledger = await newLedger('cost');
    const workflowID = await createWorkflow([{ noop: {} }]);
    // Cheap on 16 postings (the creation check), over the limit on the 200 of the transaction below (200^3).
    const filter = `event.ledger == "${ledger}" && ${nestedAll(3, 'event.transactions[0].postings', 'x0.amount > 0')}`;
    const created = await api('POST', '/api/orchestration/v2/triggers', { body: { event: 'COMMITTED_TRANSACTIONS', workflowID, filter } });
    // Every later transaction of the suite would be estimated against it: it goes once this test is done.
    onDone.push(() => api('DELETE', `/api/orchestration/v2/triggers/${created.body.data.id}`));
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const postings = Array.from({ length: 200 }, (_, i) => posting('world', `users:${i}`, 1));
    expect((await postTransaction(ledger, { postings })).status).toBe(200);
    const [occurrence] = await pollUntil(
      () => occurrences(id),
      (list) => list.length === 1,
    );
    expect(occurrence.workflowInstanceID).toBeUndefined();
    expect(occurrence.error).toMatch(/^filter: estimated evaluation cost \d+ on this event is over the limit of 1000000/);
    expect((await api('GET', `/api/orchestration/v2/instances?workflowID=${workflowID}`)).body.cursor.data).toEqual([]);
    expect(await health()).toBe(200);
  });
});

describe('Numscript nesting is bounded', () => {
  test('a source block nested 5,000 deep is a 400 compilation error, not a 500', async () => {
    const ledger = await newLedger('deep');
    const plain = `send [USD/2 1] (\n  source = ${'{ '.repeat(5000)}@world${' }'.repeat(5000)}\n  destination = @users:1\n)`;
    const res = await postTransaction(ledger, { script: { plain } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errorCode: 'COMPILATION_FAILED',
      errorMessage: expect.stringMatching(/^2:\d+: source nested deeper than 64 levels$/),
    });
    const deepDestination = `send [USD/2 1] (\n  source = @world\n  destination = ${'{ 100% to '.repeat(5000)}@users:1${' }'.repeat(5000)}\n)`;
    const refused = await postTransaction(ledger, { script: { plain: deepDestination } });
    expect(refused.status).toBe(400);
    expect(refused.body.errorMessage).toMatch(/destination nested deeper than 64 levels$/);
  });
});
