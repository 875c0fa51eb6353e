import { api } from '../../support/http';
import { balance } from '../../support/ledger-fixtures';
import { newLedger } from '../../support/ledger';
import { runInstance } from '../../support/orchestration';

const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/);

describe('orchestration workflow definitions', () => {
  it('creates, reads, lists and deletes a workflow under /v2 and the v1 paths', async () => {
    const config = {
      name: `payout-${Date.now()}`,
      stages: [
        {
          send: {
            source: { account: { id: 'users:${user}', ledger: 'main' } },
            destination: { account: { id: 'bank', ledger: 'main' } },
            amount: { asset: 'USD/2', amount: '${amount}' },
          },
        },
        { wait_event: { event: 'confirmed' } },
      ],
    };
    const created = await api('POST', '/api/orchestration/v2/workflows', { body: config });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), config, createdAt: iso, updatedAt: iso });
    const id = created.body.data.id;

    expect((await api('GET', `/api/orchestration/v2/workflows/${id}`)).body.data).toEqual(created.body.data);
    expect((await api('GET', `/api/orchestration/workflows/${id}`)).body.data).toEqual(created.body.data);
    const list = await api('GET', '/api/orchestration/v2/workflows?pageSize=1000');
    expect(list.body.cursor.data.map((w: { id: string }) => w.id)).toContain(id);

    expect((await api('DELETE', `/api/orchestration/workflows/${id}`)).status).toBe(204);
    expect((await api('GET', `/api/orchestration/v2/workflows/${id}`)).status).toBe(404);
    expect((await api('DELETE', `/api/orchestration/v2/workflows/${id}`)).status).toBe(404);
    expect((await api('DELETE', '/api/orchestration/v2/workflows/not-a-uuid')).status).toBe(404);
    const after = await api('GET', '/api/orchestration/v2/workflows?pageSize=1000');
    expect(after.body.cursor.data.map((w: { id: string }) => w.id)).not.toContain(id);
  });

  it('accepts an empty config', async () => {
    expect((await api('POST', '/api/orchestration/v2/workflows', { body: {} })).status).toBe(201);
    expect((await api('POST', '/api/orchestration/v2/workflows', { body: { stages: [] } })).status).toBe(201);
  });

  const send = (source: unknown, destination: unknown, extra: object = { amount: { asset: 'USD', amount: 100 } }) => ({
    send: { source, destination, ...extra },
  });
  it.each([
    ['an unknown stage type', [{ noop: {} }, { sleep: {} }], 'stages[1]: unknown stage type "sleep"'],
    ['two keys in a stage', [{ noop: {}, delay: { duration: '1s' } }], 'stages[0]: must have exactly one key'],
    ['a delay with neither field', [{ delay: {} }], 'stages[0].delay: exactly one of duration or until is required'],
    ['a bad duration', [{ delay: { duration: 'ten seconds' } }], 'stages[0].delay.duration: "ten seconds" is not a duration'],
    ['a bad until', [{ delay: { until: 'tomorrow' } }], 'stages[0].delay.until: "tomorrow" is not an RFC 3339 date-time'],
    ['a wait_event without event', [{ wait_event: {} }], 'stages[0].wait_event.event: is required'],
    ['an update without metadata', [{ update: { account: { id: 'a' } } }], 'stages[0].update.account.metadata: is required'],
    [
      'an unknown field',
      [{ noop: {} }, { noop: {} }, send({ account: { id: 'a', ledgr: 'x' } }, { account: { id: 'b' } })],
      'stages[2].send.source.account.ledgr: unknown field',
    ],
    [
      'two sources',
      [send({ account: { id: 'a' }, wallet: { id: 'w' } }, { account: { id: 'b' } })],
      'stages[0].send.source: exactly one of account, wallet, payment is required',
    ],
    [
      'payment to payment',
      [send({ payment: { id: 'p' } }, { payment: { psp: 'stripe' } })],
      'stages[0].send.destination: a send from a payment to a payment is not supported',
    ],
    [
      'a negative amount',
      [send({ account: { id: 'a' } }, { account: { id: 'b' } }, { amount: { asset: 'USD', amount: -1 } })],
      'stages[0].send.amount.amount: must be a non-negative integer',
    ],
    [
      'a missing amount',
      [send({ account: { id: 'a' } }, { account: { id: 'b' } }, {})],
      'stages[0].send.amount: is required unless the source is a payment',
    ],
    [
      'a bad asset',
      [send({ account: { id: 'a' } }, { account: { id: 'b' } }, { amount: { asset: 'usd', amount: 1 } })],
      'stages[0].send.amount.asset: "usd" is not an asset',
    ],
    [
      'a wallet without id or name',
      [send({ wallet: { balance: 'main' } }, { account: { id: 'b' } })],
      'stages[0].send.source.wallet: one of id or name is required',
    ],
    [
      'non-string metadata',
      [send({ account: { id: 'a' } }, { account: { id: 'b' } }, { amount: { asset: 'USD', amount: 1 }, metadata: { n: 1 } })],
      'stages[0].send.metadata.n: must be a string',
    ],
  ])('refuses %s with 400 naming the stage and field', async (_name, stages, message) => {
    const res = await api('POST', '/api/orchestration/v2/workflows', { body: { stages } });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
    expect(res.body.errorMessage).toContain(message);
  });

  it('refuses a literal account address outside the ledger grammar and stores nothing; a valid one still creates and runs', async () => {
    const ledger = await newLedger('orch');
    const config = (destination: string) => ({
      stages: [send({ account: { id: 'world', ledger } }, { account: { id: destination, ledger } }, { amount: { asset: 'USD/2', amount: 250 } })],
    });
    const ids = async () => (await api('GET', '/api/orchestration/v2/workflows?pageSize=1000')).body.cursor.data.map((w: { id: string }) => w.id);
    const before = await ids();
    for (const address of ['orch:😀', 'world:']) {
      const res = await api('POST', '/api/orchestration/v2/workflows', { body: config(address) });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        errorCode: 'VALIDATION',
        errorMessage: `stages[0].send.destination.account.id: invalid account address "${address}"`,
        errorDetails: { field: 'stages[0].send.destination.account.id' },
      });
    }
    expect(await ids()).toEqual(before);

    const created = await api('POST', '/api/orchestration/v2/workflows', { body: config('orch:ok') });
    expect(created.status).toBe(201);
    const run = await runInstance(created.body.data.id, {}, true);
    expect(run.body.data).toMatchObject({ terminated: true });
    expect(run.body.data.error).toBeUndefined();
    expect(await balance(ledger, 'orch:ok')).toBe(250n);
  });

  it('refuses a stage that is not an object, and unknown config fields', async () => {
    const res = await api('POST', '/api/orchestration/v2/workflows', { body: { stages: [{ noop: {} }, 'noop'] } });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/stages\[1\]/);
    expect((await api('POST', '/api/orchestration/v2/workflows', { body: { stage: [] } })).status).toBe(400);
  });
});
