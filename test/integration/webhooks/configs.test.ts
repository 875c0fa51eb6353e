import { Webhook } from 'standardwebhooks';
import { createDb, type Db } from '../../../db/knex';
import { api } from '../../support/http';
import { clockPast } from '../../support/eventually';
import { closedPort, startReceiver } from '../../support/webhook-receiver';

const suffix = () => Math.random().toString(36).slice(2, 10);
const configs = '/api/webhooks/configs';

describe('webhook configs', () => {
  const created: string[] = [];
  let db: Db;
  beforeAll(() => (db = createDb(process.env.TEST_DATABASE_URL as string, { poolMax: 2 })));
  afterAll(async () => {
    for (const id of created) await api('DELETE', `${configs}/${id}`);
    await db.destroy();
  });

  async function create(body: Record<string, unknown>) {
    const response = await api('POST', configs, { body });
    if (response.status === 200) created.push(response.body.data.id);
    return response;
  }

  it('creates an active config with a generated secret and lower-cased event types (200, as Formance)', async () => {
    const endpoint = `https://hooks.example.com/${suffix()}`;
    const { status, body } = await create({ endpoint, eventTypes: ['LEDGER.Committed_Transactions', 'ledger.committed_transactions'] });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ endpoint, eventTypes: ['ledger.committed_transactions'], active: true, name: '' });
    expect(body.data.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Buffer.from(body.data.secret, 'base64')).toHaveLength(24);
    expect(body.data.createdAt).toBe(body.data.updatedAt);
  });

  it('refuses bad input with 400', async () => {
    const endpoint = 'https://hooks.example.com/x';
    for (const bad of [
      { endpoint, eventTypes: [] },
      { endpoint, eventTypes: [''] },
      { endpoint: 'not a url', eventTypes: ['a.b'] },
      { endpoint: 'ftp://hooks.example.com/', eventTypes: ['a.b'] },
      { endpoint, eventTypes: ['a.b'], secret: 'short' },
      { endpoint, eventTypes: ['a.b'], unknown: 1 },
      { eventTypes: ['a.b'] },
    ]) {
      const response = await create(bad);
      expect([response.status, response.body.errorCode]).toEqual([400, 'VALIDATION']);
    }
  });

  it('lists with cursor and the id and endpoint filters; another filter is a 400', async () => {
    const endpoint = `https://hooks.example.com/list-${suffix()}`;
    const created: Array<{ id: string; updatedAt: string }> = [];
    for (let i = 0; i < 3; i++) created.push((await create({ endpoint, eventTypes: ['a.b'] })).body.data);
    // Newest first by (updatedAt, id): the timestamps have millisecond precision, so two configs created within the
    // same millisecond come in id order, not creation order.
    const ids = [...created].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || (a.id < b.id ? 1 : -1)).map((c) => c.id);
    expect(new Set(ids).size).toBe(3);
    const first = await api('GET', `${configs}?endpoint=${encodeURIComponent(endpoint)}&pageSize=2`);
    expect(first.status).toBe(200);
    expect(first.body.cursor.data.map((c: { id: string }) => c.id)).toEqual([ids[0], ids[1]]);
    expect(first.body.cursor.hasMore).toBe(true);
    const second = await api('GET', `${configs}?cursor=${first.body.cursor.next}`);
    expect(second.body.cursor.data.map((c: { id: string }) => c.id)).toEqual([ids[2]]);
    const byId = await api('GET', `${configs}?id=${ids[1]}`);
    expect(byId.body.cursor.data).toHaveLength(1);
    expect((await api('GET', `${configs}?id=nope`)).body.cursor.data).toEqual([]);
    expect((await api('GET', `${configs}?active=true`)).status).toBe(400);
  });

  it('updates, deactivates and deletes; unknown ids are 404', async () => {
    const { body } = await create({ endpoint: 'https://hooks.example.com/u', eventTypes: ['a.b'] });
    const id = body.data.id;
    const updated = await api('PUT', `${configs}/${id}`, { body: { endpoint: 'https://hooks.example.com/v', eventTypes: ['C.D'], name: 'n' } });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      id,
      endpoint: 'https://hooks.example.com/v',
      eventTypes: ['c.d'],
      name: 'n',
      secret: body.data.secret,
    });
    const deactivated = await api('PUT', `${configs}/${id}/deactivate`);
    expect([deactivated.status, deactivated.body.data.active]).toEqual([200, false]);
    const deleted = await api('DELETE', `${configs}/${id}`);
    expect([deleted.status, deleted.text]).toEqual([200, '']);
    for (const [method, path] of [
      ['DELETE', `${configs}/${id}`],
      ['PUT', `${configs}/${id}/activate`],
      ['PUT', `${configs}/${id}/deactivate`],
      ['PUT', `${configs}/${id}/secret/change`],
      ['GET', `${configs}/${id}/test`],
      ['PUT', `${configs}/not-a-uuid/activate`],
    ]) {
      const response = await api(method, path);
      expect([method, path, response.status, response.body.errorCode]).toEqual([method, path, 404, 'NOT_FOUND']);
    }
  });

  it('op 18 activates: active true, a fresh updatedAt, every other field unchanged', async () => {
    const { body } = await create({ endpoint: 'https://hooks.example.com/act', eventTypes: ['a.b'], name: 'act' });
    const inactive = (await api('PUT', `${configs}/${body.data.id}/deactivate`)).body.data;
    // updatedAt must move: the clock has to advance past the deactivation's timestamp first.
    await clockPast(Date.parse(inactive.updatedAt));
    const response = await api('PUT', `${configs}/${body.data.id}/activate`);
    expect(response.status).toBe(200);
    const active = response.body.data;
    expect(active.active).toBe(true);
    expect(Date.parse(active.updatedAt)).toBeGreaterThan(Date.parse(inactive.updatedAt));
    const { active: _a, updatedAt: _u, ...rest } = active;
    const { active: _b, updatedAt: _v, ...before } = body.data;
    expect(rest).toEqual(before);
  });

  it('op 17 changes the secret: empty or missing generates one, a valid one is kept as given, an invalid one is a 400', async () => {
    const { body } = await create({ endpoint: 'https://hooks.example.com/sec', eventTypes: ['a.b'] });
    const id = body.data.id;
    let secret = body.data.secret;
    for (const request of [{}, { body: {} }, { body: { secret: '' } }]) {
      const response = await api('PUT', `${configs}/${id}/secret/change`, request);
      expect(response.status).toBe(200);
      expect(response.body.data.secret).not.toBe(secret);
      expect(Buffer.from(response.body.data.secret, 'base64')).toHaveLength(24);
      const { secret: next, updatedAt: _u, ...rest } = response.body.data;
      const { secret: _s, updatedAt: _v, ...before } = body.data;
      expect(rest).toEqual(before);
      secret = next;
    }
    for (const given of [Buffer.alloc(24, 1).toString('base64'), `whsec_${Buffer.alloc(64, 2).toString('base64')}`]) {
      const response = await api('PUT', `${configs}/${id}/secret/change`, { body: { secret: given } });
      expect([response.status, response.body.data.secret]).toEqual([200, given]);
      secret = given;
    }
    for (const bad of [Buffer.alloc(23).toString('base64'), Buffer.alloc(65).toString('base64'), 'not base64!', 'whsec_']) {
      const response = await api('PUT', `${configs}/${id}/secret/change`, { body: { secret: bad } });
      expect([response.status, response.body.errorCode]).toEqual([400, 'VALIDATION']);
    }
    const list = await api('GET', `${configs}?id=${id}`);
    expect(list.body.cursor.data[0].secret).toBe(secret);
  });

  describe('op 16 test', () => {
    it('against a receiver answering 200: a success attempt, signed and marked as a test', async () => {
      const receiver = await startReceiver();
      try {
        const { body } = await create({ endpoint: receiver.url, eventTypes: ['a.b'] });
        const response = await api('GET', `${configs}/${body.data.id}/test`);
        expect(response.status).toBe(200);
        expect(response.body.data).toMatchObject({
          statusCode: 200,
          retryAttempt: 0,
          status: 'success',
          payload: '{"data":"test"}',
          nextRetryAfter: '0001-01-01T00:00:00Z',
        });
        expect(response.body.data.config).toMatchObject({ id: body.data.id, endpoint: receiver.url });
        expect(receiver.received).toHaveLength(1);
        const [request] = receiver.received;
        expect(request.body).toBe('{"data":"test"}');
        expect(request.headers['formance-webhook-test']).toBe('true');
        expect(request.headers['webhook-id']).toBe(response.body.data.webhookID);
        expect(new Webhook(body.data.secret).verify(request.body, request.headers as Record<string, string>)).toEqual({ data: 'test' });
      } finally {
        await receiver.close();
      }
    });

    it('against a receiver answering 404: a failed attempt with statusCode 404, no retry', async () => {
      const receiver = await startReceiver(() => ({ status: 404 }));
      try {
        const { body } = await create({ endpoint: receiver.url, eventTypes: ['a.b'] });
        const response = await api('GET', `${configs}/${body.data.id}/test`);
        expect(response.status).toBe(200);
        expect(response.body.data).toMatchObject({ statusCode: 404, retryAttempt: 0, status: 'failed' });
        expect(receiver.received).toHaveLength(1);
      } finally {
        await receiver.close();
      }
    });

    it('against an unreachable port: a failed attempt (statusCode 0), not a 500', async () => {
      const { body } = await create({ endpoint: `http://127.0.0.1:${await closedPort()}/hook`, eventTypes: ['a.b'] });
      const response = await api('GET', `${configs}/${body.data.id}/test`);
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({ statusCode: 0, retryAttempt: 0, status: 'failed' });
      expect(response.body.data.error).toMatch(/ECONNREFUSED/);
    });

    it('does not follow a 302 to another (loopback) address', async () => {
      const target = await startReceiver();
      const redirecting = await startReceiver(() => ({ status: 302, headers: { location: target.url } }));
      try {
        const { body } = await create({ endpoint: redirecting.url, eventTypes: ['a.b'] });
        const response = await api('GET', `${configs}/${body.data.id}/test`);
        expect(response.body.data).toMatchObject({ statusCode: 302, status: 'failed' });
        expect(target.received).toHaveLength(0);
      } finally {
        await Promise.all([target.close(), redirecting.close()]);
      }
    });
  });

  describe('SSRF refusals outside WEBHOOKS_ALLOWED_CIDRS (the test stack allows only 127.0.0.0/8)', () => {
    it('refuses blocked literal endpoints when a config is written', async () => {
      for (const endpoint of [
        'http://[::1]:8080/',
        'http://169.254.169.254/latest/meta-data',
        'http://[::ffff:10.0.0.1]/',
        'http://10.0.0.1/',
        'http://0xa9.254.169.254/',
      ]) {
        const response = await create({ endpoint, eventTypes: ['a.b'] });
        expect([endpoint, response.status, response.body.errorMessage]).toEqual([endpoint, 400, expect.stringMatching(/blocked range/)]);
      }
    });

    it('refuses at send time an endpoint stored before the policy (no request leaves)', async () => {
      const id = crypto.randomUUID();
      await db('webhook_configs').insert({ id, endpoint: 'http://[::1]:9/', secret: Buffer.alloc(24).toString('base64'), event_types: ['a.b'] });
      created.push(id);
      const response = await api('GET', `${configs}/${id}/test`);
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({ statusCode: 0, status: 'failed', error: expect.stringMatching(/refusing to connect/) });
    });
  });
});
