import { createDb, type Db } from '../../../db/knex';
import { api } from '../../support/http';
import { newLedger } from '../../support/ledger';
import { createWorkflow } from '../../support/orchestration';
import { seedConnector, suffix } from '../../support/payments';

/**
 * A delete is decided once: of concurrent deletes of one resource exactly one answers success, the others 404, and
 * what the delete emits is emitted once.
 */
describe('concurrent deletes of one resource', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
  });
  afterAll(() => db.destroy());

  const deleteSixTimes = async (path: string) =>
    (await Promise.all(Array.from({ length: 6 }, () => api('DELETE', path)))).map((r) => r.status).sort();

  it('a payments pool: one 204, five 404, one DELETED_POOL event', async () => {
    const { accountIDs } = await seedConnector(db, [{ reference: `pool-del-${suffix()}` }]);
    const created = await api('POST', '/api/payments/v3/pools', { body: { name: `pool-del-${suffix()}`, accountIDs } });
    expect(created.status).toBe(201);
    const id = created.body.data;
    expect(await deleteSixTimes(`/api/payments/v3/pools/${id}`)).toEqual([204, 404, 404, 404, 404, 404]);
    expect((await api('GET', `/api/payments/v3/pools/${id}`)).status).toBe(404);
    const events = await db('events_outbox')
      .where({ app: 'payments', type: 'DELETED_POOL' })
      .whereRaw(`payload::jsonb->>'id' = ?`, [id])
      .count({ n: '*' });
    expect(events).toEqual([{ n: '1' }]);
  });

  it('a payments pool through v1: one 204, five 404', async () => {
    const created = await api('POST', '/api/payments/v3/pools', { body: { name: `pool-del-v1-${suffix()}`, accountIDs: [] } });
    expect(created.status).toBe(201);
    expect(await deleteSixTimes(`/api/payments/pools/${created.body.data}`)).toEqual([204, 404, 404, 404, 404, 404]);
  });

  it('a ledger exporter: one 204, five 404', async () => {
    const created = await api('POST', '/api/ledger/v2/_/exporters', { body: { driver: 'http', config: { url: 'http://127.0.0.1:1/x' } } });
    expect(created.status).toBe(201);
    expect(await deleteSixTimes(`/api/ledger/v2/_/exporters/${created.body.data.id}`)).toEqual([204, 404, 404, 404, 404, 404]);
  });

  it('a ledger pipeline: one 204, five 404', async () => {
    const exporter = (await api('POST', '/api/ledger/v2/_/exporters', { body: { driver: 'http', config: { url: 'http://127.0.0.1:1/x' } } })).body
      .data;
    const ledger = await newLedger('pipe-del');
    const pipeline = await api('POST', `/api/ledger/v2/${ledger}/pipelines`, { body: { exporterID: exporter.id } });
    expect(pipeline.status).toBe(201);
    expect(await deleteSixTimes(`/api/ledger/v2/${ledger}/pipelines/${pipeline.body.data.id}`)).toEqual([204, 404, 404, 404, 404, 404]);
    expect((await api('DELETE', `/api/ledger/v2/_/exporters/${exporter.id}`)).status).toBe(204);
  });

  it('a webhook config: one 200, five 404', async () => {
    const created = await api('POST', '/api/webhooks/configs', {
      body: { endpoint: 'http://127.0.0.1:1/hook', eventTypes: ['ledger.committed_transactions'] },
    });
    expect(created.status).toBe(200);
    const statuses = await deleteSixTimes(`/api/webhooks/configs/${created.body.data.id}`);
    expect(statuses).toEqual([200, 404, 404, 404, 404, 404]);
  });

  it('an OAuth client and a client secret: one 204, five 404 each', async () => {
    const client = await api('POST', '/api/auth/clients', { body: { name: `del-${suffix()}` } });
    expect(client.status).toBe(201);
    const id = client.body.data.id;
    const secret = await api('POST', `/api/auth/clients/${id}/secrets`, { body: { name: 'k' } });
    expect(secret.status).toBe(200);
    expect(await deleteSixTimes(`/api/auth/clients/${id}/secrets/${secret.body.data.id}`)).toEqual([204, 404, 404, 404, 404, 404]);
    expect(await deleteSixTimes(`/api/auth/clients/${id}`)).toEqual([204, 404, 404, 404, 404, 404]);
  });

  it('an orchestration workflow and a trigger (v2 and v1 paths): one 204, five 404 each', async () => {
    for (const version of ['/v2', '']) {
      const workflowID = await createWorkflow([{ noop: {} }]);
      // A filter no payment matches: it can never start anything.
      const trigger = await api('POST', `/api/orchestration${version}/triggers`, {
        body: { event: 'SAVED_PAYMENT', workflowID, filter: 'event.reference == "never"' },
      });
      expect(trigger.status).toBe(201);
      expect(await deleteSixTimes(`/api/orchestration${version}/triggers/${trigger.body.data.id}`)).toEqual([204, 404, 404, 404, 404, 404]);
      expect(await deleteSixTimes(`/api/orchestration${version}/workflows/${workflowID}`)).toEqual([204, 404, 404, 404, 404, 404]);
    }
  });

  it('a reconciliation policy and an on-demand rule: one 204, five 404 each', async () => {
    const ledger = await newLedger('recon-del');
    const pool = await api('POST', '/api/payments/v3/pools', { body: { name: `recon-del-${suffix()}`, accountIDs: [] } });
    expect(pool.status).toBe(201);
    const policy = await api('POST', '/api/reconciliation/policies', {
      body: { name: `del-${suffix()}`, ledgerName: ledger, ledgerQuery: {}, paymentsPoolID: pool.body.data },
    });
    expect([policy.status, policy.status === 201 ? '' : policy.text]).toEqual([201, '']);
    expect(await deleteSixTimes(`/api/reconciliation/policies/${policy.body.data.id}`)).toEqual([204, 404, 404, 404, 404, 404]);
    const rule = await api('POST', '/api/reconciliation/rules', {
      body: {
        name: `del-${suffix()}`,
        templateKind: 'ledger_vs_pool_drift',
        templateSpec: { ledger, address: 'banks:main', poolID: pool.body.data },
        schedule: { kind: 'on_demand' },
        severity: 'low',
      },
    });
    expect([rule.status, rule.status === 201 ? '' : rule.text]).toEqual([201, '']);
    expect(await deleteSixTimes(`/api/reconciliation/rules/${rule.body.data.id}`)).toEqual([204, 404, 404, 404, 404, 404]);
    expect((await api('DELETE', `/api/payments/v3/pools/${pool.body.data}`)).status).toBe(204);
  });
});
