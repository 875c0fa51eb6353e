import { ScheduleNotFoundError, type Client, type Connection } from '@temporalio/client';
import type { Db } from '../../../db/knex';
import { api } from '../../support/http';
import { pollUntil } from '../../support/eventually';
import { balance, fund } from '../../support/ledger-fixtures';
import { newLedger } from '../../support/ledger';
import { createWorkflow, readInstance } from '../../support/orchestration';
import { testDb } from '../../support/payments';
import { simulatedPool } from '../../support/reconciliation-rules';
import { temporalClient } from '../../support/temporal';

const evaluationsOf = async (ruleID: string): Promise<any[]> => {
  const res = await api('GET', `/api/reconciliation/evaluations?pageSize=1000&query=${encodeURIComponent(JSON.stringify({ ruleID }))}`);
  if (res.status !== 200) throw new Error(`evaluations: ${res.status} ${res.text}`);
  return res.body.cursor.data;
};
const alertsOf = async (ruleID: string): Promise<any[]> => {
  const res = await api('GET', `/api/reconciliation/alerts?pageSize=1000&query=${encodeURIComponent(JSON.stringify({ ruleID }))}`);
  if (res.status !== 200) throw new Error(`alerts: ${res.status} ${res.text}`);
  return res.body.cursor.data;
};
const eventsOf = async (alertID: string): Promise<any[]> =>
  (await api('GET', `/api/reconciliation/alerts/${alertID}/events?pageSize=1000`)).body.cursor.data;
const evaluate = async (ruleID: string): Promise<any> => {
  const res = await api('POST', `/api/reconciliation/rules/${ruleID}/evaluate`, { body: { safetyMargin: '0s' } });
  if (res.status !== 200) throw new Error(`evaluate: ${res.status} ${res.text}`);
  return res.body.data;
};
const created: string[] = [];
const createRule = async (body: unknown): Promise<any> => {
  const res = await api('POST', '/api/reconciliation/rules', { body });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
  created.push(res.body.data.id);
  return res.body.data;
};

describe('reconciliation rules on Temporal Schedules, alerts and edge-triggered thresholds', () => {
  let db: Db;
  let temporal: { client: Client; connection: Connection };
  beforeAll(async () => {
    db = testDb();
    temporal = await temporalClient();
  });
  afterAll(async () => {
    // A failed test must not leave a schedule evaluating every second for the rest of the suite (404: already deleted).
    for (const id of created) await api('DELETE', `/api/reconciliation/rules/${id}`);
    await temporal.connection.close();
    await db.destroy();
  });

  test('a cron rule runs on its Temporal Schedule, opens one alert on repeated failure, pauses when disabled, and its alert is resolved', async () => {
    const ledger = await newLedger('recon-sched');
    await fund(ledger, 'banks:main', 500);
    const pool = await simulatedPool(db);
    await pool.setBalance(400n);
    const rule = await createRule({
      name: 'every-2s',
      templateKind: 'ledger_vs_pool_drift',
      templateSpec: { ledger, address: 'banks:main', poolID: pool.poolID },
      schedule: { kind: 'cron', expr: '@every 2s', safetyMargin: '0s' },
      severity: 'critical',
    });
    const handle = temporal.client.schedule.getHandle(`reconciliation-rule-${rule.id}`);
    const described = await handle.describe();
    expect(described.state.paused).toBe(false);
    expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'reconciliationRuleRun' });

    // Three scheduled runs, each FAIL with the drift; one alert, every failure counted.
    const failing = await pollUntil(
      () => evaluationsOf(rule.id),
      (list) => list.length >= 3,
      { timeoutMs: 60_000, intervalMs: 500, what: 'three scheduled evaluations' },
    );
    expect(failing.every((e) => e.result === 'FAIL' && e.evidence[0].evidence.drift === '100')).toBe(true);

    // Disabling pauses the schedule; once the last run in flight is recorded, the alert counts every FAIL.
    await api('PATCH', `/api/reconciliation/rules/${rule.id}`, { body: { enabled: false } });
    expect((await handle.describe()).state.paused).toBe(true);
    const [alert] = await pollUntil(
      async () => {
        const [alerts, evaluations] = await Promise.all([alertsOf(rule.id), evaluationsOf(rule.id)]);
        return alerts.length === 1 && alerts[0].occurrenceCount === evaluations.filter((e) => e.result === 'FAIL').length ? alerts : [];
      },
      (alerts) => alerts.length === 1,
      { timeoutMs: 30_000, what: 'one alert counting every failure' },
    );
    expect(alert).toMatchObject({ status: 'OPEN', severity: 'critical', fingerprint: 'asset:USD/2' });
    expect(alert.occurrenceCount).toBeGreaterThanOrEqual(3);
    const log = await eventsOf(alert.id);
    expect(log.filter((e) => e.type === 'fail')).toHaveLength(alert.occurrenceCount);
    expect(log.filter((e) => e.notify)).toHaveLength(1);

    // The provider catches up; re-enabled, the next run passes: the recovery is logged once, the alert stays for an operator.
    await pool.setBalance(500n);
    await api('PATCH', `/api/reconciliation/rules/${rule.id}`, { body: { enabled: true } });
    expect((await handle.describe()).state.paused).toBe(false);
    await pollUntil(
      () => evaluationsOf(rule.id),
      (list) => list[0]?.result === 'PASS',
      { timeoutMs: 60_000, intervalMs: 500, what: 'a passing scheduled run' },
    );
    const recovered = await pollUntil(
      () => eventsOf(alert.id),
      (events) => events.some((e) => e.type === 'pass'),
      { what: 'the recovery in the log' },
    );
    expect(recovered.filter((e) => e.type === 'pass')).toHaveLength(1);
    const resolved = await api('POST', `/api/reconciliation/alerts/${alert.id}/resolve`, { body: { by: 'ops', note: 'provider balance late' } });
    expect(resolved.status).toBe(200);
    expect(resolved.body.data.status).toBe('RESOLVED');

    // Deleting the rule deletes its schedule.
    expect((await api('DELETE', `/api/reconciliation/rules/${rule.id}`)).status).toBe(204);
    await expect(handle.describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    expect((await api('GET', `/api/reconciliation/alerts/${alert.id}`)).body.data.status).toBe('RESOLVED');
  });

  test('a rule patched from on-demand to cron gets a schedule, and back to on-demand loses it', async () => {
    const ledger = await newLedger('recon-patch');
    const rule = await createRule({ name: 'invariant', templateKind: 'ledger_invariant', templateSpec: { ledger } });
    const handle = temporal.client.schedule.getHandle(`reconciliation-rule-${rule.id}`);
    await expect(handle.describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    await api('PATCH', `/api/reconciliation/rules/${rule.id}`, { body: { schedule: { kind: 'cron', expr: '0 3 * * *', tz: 'Europe/Paris' } } });
    expect((await handle.describe()).spec).toMatchObject({ timezone: 'Europe/Paris' });
    const bad = await api('PATCH', `/api/reconciliation/rules/${rule.id}`, { body: { schedule: { kind: 'cron', expr: 'every day' } } });
    expect(bad.status).toBe(400);
    expect((await api('GET', `/api/reconciliation/rules/${rule.id}`)).body.data.schedule).toEqual({
      kind: 'cron',
      expr: '0 3 * * *',
      tz: 'Europe/Paris',
    });
    await api('PATCH', `/api/reconciliation/rules/${rule.id}`, { body: { schedule: { kind: 'on_demand' } } });
    await expect(handle.describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    await api('DELETE', `/api/reconciliation/rules/${rule.id}`);
  });

  test('a threshold beyond 2^64 is stored, patched around and evaluated digit for digit (no 500)', async () => {
    const ledger = await newLedger('recon-big');
    await fund(ledger, 'users:bob', 150);
    const threshold = 123456789012345678901234567890n;
    const rule = await createRule({
      name: 'bob-big',
      templateKind: 'account_threshold',
      templateSpec: { ledger, address: 'users:bob', asset: 'USD/2', operator: 'gt', threshold },
    });
    expect(BigInt(rule.templateSpec.threshold)).toBe(threshold);
    const patched = await api('PATCH', `/api/reconciliation/rules/${rule.id}`, { body: { name: 'bob-big-renamed', labels: { team: 'ops' } } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ name: 'bob-big-renamed', labels: { team: 'ops' } });
    expect(BigInt(patched.body.data.templateSpec.threshold)).toBe(threshold);
    // 150 is not above the threshold: a pass, with the threshold in the evidence as written.
    const evaluation = await evaluate(rule.id);
    expect(evaluation.result).toBe('PASS');
  });

  test('account_threshold is edge-triggered: one occurrence per crossing, none while the balance stays beyond, reset when it crosses back', async () => {
    const ledger = await newLedger('recon-edge');
    await fund(ledger, 'users:alice', 150);
    const spend = async (amount: number) => {
      const res = await api('POST', `/api/ledger/v2/${ledger}/transactions`, {
        body: { postings: [{ source: 'users:alice', destination: 'shops:1', amount, asset: 'USD/2' }] },
      });
      if (res.status >= 300) throw new Error(res.text);
    };
    const rule = await createRule({
      name: 'alice-low',
      templateKind: 'account_threshold',
      templateSpec: { ledger, address: 'users:alice', asset: 'USD/2', operator: 'lt', threshold: 100 },
    });
    expect(rule.explanationCEL).toBe('event.balance >= event.threshold');

    expect((await evaluate(rule.id)).result).toBe('PASS');
    expect(await alertsOf(rule.id)).toEqual([]);

    await spend(80); // 70: crosses below 100
    const crossed = await evaluate(rule.id);
    expect(crossed.evidence[0]).toMatchObject({
      fingerprint: 'account:users:alice|asset:USD/2',
      passed: false,
      evidence: { balances: { balance: '70' }, edge: 'crossed' },
    });
    // Stays below through more transactions and evaluations: FAIL each time, but no new occurrence.
    await spend(10);
    const held = await evaluate(rule.id);
    expect(held).toMatchObject({ result: 'FAIL' });
    expect(held.evidence[0].evidence).toMatchObject({ balances: { balance: '60' }, edge: 'held' });
    await evaluate(rule.id);
    let [alert] = await alertsOf(rule.id);
    expect(alert).toMatchObject({ status: 'OPEN', occurrenceCount: 1 });

    // Back above: PASS, the edge resets (logged once as pass); the operator resolves.
    await fund(ledger, 'users:alice', 100); // 160
    expect((await evaluate(rule.id)).result).toBe('PASS');
    expect((await evaluate(rule.id)).result).toBe('PASS');
    expect((await api('POST', `/api/reconciliation/alerts/${alert.id}/resolve`, { body: { by: 'ops' } })).status).toBe(200);

    // A second crossing: the same alert reopens, a second occurrence.
    await spend(100); // 60
    await evaluate(rule.id);
    await evaluate(rule.id);
    const alerts = await alertsOf(rule.id);
    expect(alerts).toHaveLength(1);
    [alert] = alerts;
    expect(alert).toMatchObject({ status: 'OPEN', occurrenceCount: 2 });
    expect((await eventsOf(alert.id)).map((e) => [e.type, e.isReopen])).toEqual([
      ['fail', false],
      ['pass', false],
      ['resolve', false],
      ['fail', true],
    ]);
    await api('DELETE', `/api/reconciliation/rules/${rule.id}`);
  });

  test('source_parity and ledger_invariant compute exactly beyond 2^64', async () => {
    const ledger = await newLedger('recon-big');
    const big = 2n ** 70n;
    await fund(ledger, 'banks:a', big);
    await fund(ledger, 'banks:b', big + 1n);
    const parity = await createRule({
      name: 'a-b',
      templateKind: 'source_parity',
      templateSpec: { left: { ledger, address: 'banks:a' }, right: { ledger, address: 'banks:b' } },
    });
    const result = await evaluate(parity.id);
    expect(result.result).toBe('FAIL');
    expect(result.evidence[0].evidence).toMatchObject({ balances: { left: big.toString(), right: (big + 1n).toString() }, drift: '-1' });
    const invariant = await createRule({ name: 'closed', templateKind: 'ledger_invariant', templateSpec: { ledger } });
    const whole = await evaluate(invariant.id);
    expect(whole).toMatchObject({
      result: 'PASS',
      evidence: [
        { fingerprint: 'asset:USD/2', passed: true, proof: { positive: (2n * big + 1n).toString(), negative: (-(2n * big + 1n)).toString() } },
      ],
    });
    for (const id of [parity.id, invariant.id]) await api('DELETE', `/api/reconciliation/rules/${id}`);
  });

  test('an orchestration trigger runs a workflow on a failed evaluation (RULE_EVALUATED, filtered on the result)', async () => {
    const ledger = await newLedger('recon-trigger');
    await fund(ledger, 'banks:main', 300);
    const pool = await simulatedPool(db);
    await pool.setBalance(300n);
    const rule = await createRule({
      name: 'triggered',
      templateKind: 'ledger_vs_pool_drift',
      templateSpec: { ledger, address: 'banks:main', poolID: pool.poolID },
    });
    const workflowID = await createWorkflow([
      {
        send: {
          source: { account: { id: 'world', ledger } },
          destination: { account: { id: 'breaks:count', ledger } },
          amount: { asset: 'BREAK', amount: 1 },
        },
      },
    ]);
    const trigger = await api('POST', '/api/orchestration/v2/triggers', {
      body: { event: 'RULE_EVALUATED', workflowID, filter: `event.rule.id == "${rule.id}" && event.evaluation.result == "FAIL"` },
    });
    expect(trigger.status).toBe(201);
    const occurrences = async (): Promise<any[]> =>
      (await api('GET', `/api/orchestration/v2/triggers/${trigger.body.data.id}/occurrences`)).body.cursor.data;
    try {
      expect((await evaluate(rule.id)).result).toBe('PASS');
      await pool.setBalance(250n);
      expect((await evaluate(rule.id)).result).toBe('FAIL');
      const [occurrence] = await pollUntil(occurrences, (list) => list.length === 1 && list[0].workflowInstanceID, { what: 'the trigger to fire' });
      await pollUntil(
        () => readInstance(occurrence.workflowInstanceID),
        (i) => i?.terminated === true,
        { what: 'the triggered instance' },
      );
      expect(await balance(ledger, 'breaks:count', 'BREAK')).toBe(1n);
      // The passing evaluation matched no filter: one occurrence only.
      expect(await occurrences()).toHaveLength(1);
    } finally {
      await api('DELETE', `/api/orchestration/v2/triggers/${trigger.body.data.id}`);
      await api('DELETE', `/api/reconciliation/rules/${rule.id}`);
    }
  });
});
