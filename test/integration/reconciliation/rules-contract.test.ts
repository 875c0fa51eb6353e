import type { Db } from '../../../db/knex';
import { sdkClient } from '../../contract/sdk-client';
import { fund } from '../../support/ledger-fixtures';
import { newLedger } from '../../support/ledger';
import { testDb } from '../../support/payments';
import { reconciliationEvents, simulatedPool } from '../../support/reconciliation-rules';

/**
 * Every rules, evaluations and alerts method of Formance's `reconciliation.v1` through the official SDK (7.0.1),
 * against the real stack: a ledger account that should hold what a provider's pool holds, then drifts from it.
 */
const recon = sdkClient().reconciliation.v1;

describe('contract: reconciliation.v1 rules, evaluations and alerts through the Formance SDK', () => {
  let db: Db;
  let ledger: string;
  let pool: Awaited<ReturnType<typeof simulatedPool>>;
  beforeAll(async () => {
    db = testDb();
    ledger = await newLedger('recon-rules');
    await fund(ledger, 'banks:main', 1000);
    pool = await simulatedPool(db);
    await pool.setBalance(1000n);
  });
  afterAll(async () => {
    await db.destroy();
  });

  const driftRule = (extra: Record<string, unknown> = {}) => ({
    name: `drift-${ledger}`,
    templateKind: 'ledger_vs_pool_drift' as const,
    templateSpec: { ledger, address: 'banks:main', poolID: pool.poolID, ...extra },
    severity: 'high' as const,
    labels: { team: 'treasury' },
    schedule: { kind: 'on_demand' as const },
  });

  test('createRule, getRule, listRules, patchRule, evaluateRule, getEvaluation, listEvaluations; every alert transition; deleteRule', async () => {
    const created = await recon.createRule(driftRule());
    expect(created.statusCode).toBe(201);
    const rule = created.ruleResponse!.data;
    expect(rule).toMatchObject({
      templateKind: 'ledger_vs_pool_drift',
      severity: 'high',
      enabled: true,
      cadence: 'continuous',
      labels: { team: 'treasury' },
      explanationCEL: 'event.drift <= event.tolerance && event.drift >= -event.tolerance',
    });
    expect((await recon.getRule({ ruleID: rule.id })).ruleResponse!.data.id).toBe(rule.id);
    const listed = (await recon.listRules({ pageSize: 100, query: { templateKind: 'ledger_vs_pool_drift' } })).rulesCursorResponse!.cursor.data;
    expect(listed.map((r) => r.id)).toContain(rule.id);

    // In step: PASS, with the balances of both sides as proof and the instant each source was read at.
    const pass = (await recon.evaluateRule({ ruleID: rule.id, evaluateRuleRequest: { safetyMargin: '0s' } })).evaluationResponse!.data;
    expect(pass.result).toBe('PASS');
    expect(pass.evidence).toEqual([{ fingerprint: 'asset:USD/2', passed: true, proof: { ledger: '1000', pool: '1000' } }]);
    expect(Object.keys(pass.pitPerSource ?? {}).sort()).toEqual([`ledger:${ledger}#0`, `pool:${pool.poolID}#1`]);

    // The provider reports 100 less: FAIL with the drift, one OPEN alert; failing again counts, no second alert.
    await pool.setBalance(900n);
    const fail = (await recon.evaluateRule({ ruleID: rule.id, evaluateRuleRequest: { safetyMargin: '0s' } })).evaluationResponse!.data;
    expect(fail.result).toBe('FAIL');
    expect(fail.evidence).toEqual([
      expect.objectContaining({
        fingerprint: 'asset:USD/2',
        passed: false,
        evidence: expect.objectContaining({ drift: '100', balances: { ledger: '1000', pool: '900' } }),
      }),
    ]);
    await recon.evaluateRule({ ruleID: rule.id, evaluateRuleRequest: { safetyMargin: '0s' } });
    const alerts = (await recon.listAlerts({ query: { ruleID: rule.id } })).alertsCursorResponse!.cursor.data;
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      status: 'OPEN',
      occurrenceCount: 2,
      fingerprint: 'asset:USD/2',
      periodID: 'continuous',
      severity: 'high',
      ruleID: rule.id,
    });
    const alertID = alerts[0].id;

    expect((await recon.getEvaluation({ evaluationID: fail.id })).evaluationResponse!.data).toMatchObject({
      id: fail.id,
      result: 'FAIL',
      ruleID: rule.id,
    });
    const evaluations = (await recon.listEvaluations({ query: { ruleID: rule.id } })).evaluationsCursorResponse!.cursor.data;
    expect(evaluations.map((e) => e.result)).toEqual(['FAIL', 'FAIL', 'PASS']);
    const failed = (await recon.listEvaluations({ query: { ruleID: rule.id, result: 'FAIL' } })).evaluationsCursorResponse!.cursor.data;
    expect(failed).toHaveLength(2);

    // Transitions, and the ones that do not apply to the alert's state (409, alert unchanged).
    const acked = (await recon.ackAlert({ alertID, ackAlertRequest: { by: 'alice', note: 'on it' } })).alertResponse!.data;
    expect(acked).toMatchObject({ status: 'ACKNOWLEDGED', ack: { by: 'alice', note: 'on it' } });
    await expect(recon.ackAlert({ alertID, ackAlertRequest: { by: 'alice' } })).rejects.toMatchObject({ errorCode: 'CONFLICT' });
    await expect(recon.unsnoozeAlert({ alertID, unsnoozeAlertRequest: { by: 'alice' } })).rejects.toMatchObject({ errorCode: 'CONFLICT' });
    const until = new Date(Date.now() + 3_600_000);
    const snoozed = (await recon.snoozeAlert({ alertID, snoozeAlertRequest: { by: 'alice', until } })).alertResponse!.data;
    expect(snoozed.snooze).toMatchObject({ by: 'alice', until });
    await expect(recon.snoozeAlert({ alertID, snoozeAlertRequest: { by: 'alice', until: new Date(Date.now() - 1000) } })).rejects.toMatchObject({
      errorCode: 'VALIDATION',
      errorMessage: expect.stringContaining('body.until'),
    });
    expect((await recon.unsnoozeAlert({ alertID, unsnoozeAlertRequest: { by: 'bob' } })).alertResponse!.data.snooze).toBeUndefined();
    const resolved = (await recon.resolveAlert({ alertID, resolveAlertRequest: { by: 'bob', note: 'deposit booked', transactionRefs: ['42'] } }))
      .alertResponse!.data;
    expect(resolved).toMatchObject({ status: 'RESOLVED', resolution: { kind: 'fixed_by_booking', by: 'bob', transactionRefs: ['42'] } });
    await expect(recon.resolveAlert({ alertID, resolveAlertRequest: { by: 'bob' } })).rejects.toMatchObject({ errorCode: 'CONFLICT' });
    await expect(recon.acceptAlert({ alertID, acceptAlertRequest: { by: 'bob', note: 'fee' } })).rejects.toMatchObject({ errorCode: 'CONFLICT' });
    await expect(recon.snoozeAlert({ alertID, snoozeAlertRequest: { by: 'bob', until } })).rejects.toMatchObject({ errorCode: 'CONFLICT' });
    await expect(recon.ackAlert({ alertID, ackAlertRequest: { by: 'bob' } })).rejects.toMatchObject({ errorCode: 'CONFLICT' });
    await expect(recon.acceptAlert({ alertID, acceptAlertRequest: { by: 'bob', note: '' } })).rejects.toMatchObject({ errorCode: 'VALIDATION' });

    // Still drifting: the same alert reopens (one alert per fingerprint and period), its count goes on.
    await recon.evaluateRule({ ruleID: rule.id, evaluateRuleRequest: { safetyMargin: '0s' } });
    const reopened = (await recon.getAlert({ alertID })).alertResponse!.data;
    expect(reopened).toMatchObject({ status: 'OPEN', occurrenceCount: 3 });
    expect(reopened.resolution).toBeUndefined();
    const accepted = (await recon.acceptAlert({ alertID, acceptAlertRequest: { by: 'carol', note: 'bank fee' } })).alertResponse!.data;
    expect(accepted).toMatchObject({ status: 'RESOLVED', resolution: { kind: 'accepted_by_business', note: 'bank fee' } });

    const log = (await recon.listAlertEvents({ alertID, pageSize: 100 })).alertEventsCursorResponse!.cursor.data;
    expect(log.map((e) => [e.type, e.prevStatus ?? null, e.newStatus, e.isReopen, e.notify])).toEqual([
      ['fail', null, 'OPEN', false, true],
      ['fail', 'OPEN', 'OPEN', false, false],
      ['ack', 'OPEN', 'ACKNOWLEDGED', false, true],
      ['snooze', 'ACKNOWLEDGED', 'ACKNOWLEDGED', false, true],
      ['unsnooze', 'ACKNOWLEDGED', 'ACKNOWLEDGED', false, true],
      ['resolve', 'ACKNOWLEDGED', 'RESOLVED', false, true],
      ['fail', 'RESOLVED', 'OPEN', true, true],
      ['accept', 'OPEN', 'RESOLVED', false, true],
    ]);
    // Paging the log: two pages of 4, in order.
    const first = (await recon.listAlertEvents({ alertID, pageSize: 4 })).alertEventsCursorResponse!.cursor;
    const second = (await recon.listAlertEvents({ alertID, cursor: first.next })).alertEventsCursorResponse!.cursor;
    expect([...first.data, ...second.data].map((e) => e.id)).toEqual(log.map((e) => e.id));

    // Platform events: every evaluation, and every notified transition.
    const events = await reconciliationEvents(db, alertID);
    expect(events.map((e) => e.type)).toEqual([
      'ALERT_OPENED',
      'ALERT_ACKNOWLEDGED',
      'ALERT_SNOOZED',
      'ALERT_UNSNOOZED',
      'ALERT_RESOLVED',
      'ALERT_REOPENED',
      'ALERT_ACCEPTED',
    ]);
    expect(events[0].payload.alert).toMatchObject({ id: alertID, ruleID: rule.id, status: 'OPEN' });
    expect((await reconciliationEvents(db, rule.id)).filter((e) => e.type === 'RULE_EVALUATED').map((e) => e.payload.evaluation.result)).toEqual([
      'PASS',
      'FAIL',
      'FAIL',
      'FAIL',
    ]);

    // Patch, disable (evaluate is then 409), delete (404 after; its alerts stay readable).
    const patched = (await recon.patchRule({ ruleID: rule.id, rulePatchRequest: { severity: 'critical', labels: { team: 'ops' }, enabled: false } }))
      .ruleResponse!.data;
    expect(patched).toMatchObject({ severity: 'critical', labels: { team: 'ops' }, enabled: false });
    const refused = await recon.evaluateRule({ ruleID: rule.id, evaluateRuleRequest: {} });
    expect(refused.statusCode).toBe(409);
    expect(refused.errorResponse).toMatchObject({ errorCode: 'CONFLICT' });
    expect((await recon.deleteRule({ ruleID: rule.id })).statusCode).toBe(204);
    await expect(recon.getRule({ ruleID: rule.id })).rejects.toMatchObject({ errorCode: 'NOT_FOUND' });
    await expect(recon.deleteRule({ ruleID: rule.id })).rejects.toMatchObject({ errorCode: 'NOT_FOUND' });
    expect((await recon.getAlert({ alertID })).alertResponse!.data.status).toBe('RESOLVED');
  });

  test('a rule evaluated at a past instant reads the pool as it was then, and records that instant per source', async () => {
    const ownPool = await simulatedPool(db);
    await ownPool.setBalance(1000n);
    const rule = (
      await recon.createRule({ ...driftRule(), name: `drift-pit-${ledger}`, templateSpec: { ledger, address: 'banks:main', poolID: ownPool.poolID } })
    ).ruleResponse!.data;
    const ledgerKey = `ledger:${ledger}#0`;
    const poolKey = `pool:${ownPool.poolID}#1`;
    // T: the instant of a passing evaluation; the provider reports 100 less only after it.
    const before = (await recon.evaluateRule({ ruleID: rule.id, evaluateRuleRequest: { safetyMargin: '0s' } })).evaluationResponse!.data;
    expect(before.result).toBe('PASS');
    const t = before.pitPerSource![poolKey];
    expect(before.pitPerSource).toEqual({ [ledgerKey]: t, [poolKey]: t });
    await ownPool.setBalance(900n);

    // At T: the pool as it was (1000), so still PASS; both sources read at T, not at the time of the read.
    const atT = (await recon.evaluateRule({ ruleID: rule.id, evaluateRuleRequest: { at: t } })).evaluationResponse!.data;
    expect(atT.evidence).toEqual([{ fingerprint: 'asset:USD/2', passed: true, proof: { ledger: '1000', pool: '1000' } }]);
    expect(atT.pitPerSource).toEqual({ [ledgerKey]: t, [poolKey]: t });
    // Now: the pool's new balance, FAIL with the drift.
    const now = (await recon.evaluateRule({ ruleID: rule.id, evaluateRuleRequest: { safetyMargin: '0s' } })).evaluationResponse!.data;
    expect(now.result).toBe('FAIL');
    expect(now.evidence).toEqual([
      expect.objectContaining({ passed: false, evidence: expect.objectContaining({ drift: '100', balances: { ledger: '1000', pool: '900' } }) }),
    ]);
    expect(now.pitPerSource![poolKey].getTime()).toBeGreaterThan(t.getTime());
    // The pool's own instant (sourcePITs) applies to the pool read alone: the ledger now against the pool at T passes.
    const at = new Date();
    const mixed = (await recon.evaluateRule({ ruleID: rule.id, evaluateRuleRequest: { at, sourcePITs: { [poolKey]: t } } })).evaluationResponse!.data;
    expect(mixed).toMatchObject({ result: 'PASS', pitPerSource: { [ledgerKey]: at, [poolKey]: t } });

    // A writer open since before the instant could still record a balance at or before it: the read cannot be exact
    // yet, so the evaluation answers 503 (retry later) and records nothing, rather than an ERROR evaluation.
    const count = (await recon.listEvaluations({ query: { ruleID: rule.id } })).evaluationsCursorResponse!.cursor.data.length;
    const writer = await db.transaction();
    try {
      await writer.raw('SELECT 1');
      await expect(recon.evaluateRule({ ruleID: rule.id, evaluateRuleRequest: { safetyMargin: '0s' } })).rejects.toMatchObject({
        errorCode: 'SERVICE_UNAVAILABLE',
      });
    } finally {
      await writer.rollback();
    }
    expect((await recon.listEvaluations({ query: { ruleID: rule.id } })).evaluationsCursorResponse!.cursor.data).toHaveLength(count);
    await recon.deleteRule({ ruleID: rule.id });
  });

  test('a bad CEL condition, an unknown spec field, a missing source or a bad cron is 400 and creates nothing', async () => {
    const before = (await recon.listRules({ pageSize: 1000 })).rulesCursorResponse!.cursor.data.length;
    await expect(recon.createRule(driftRule({ condition: 'event.drift <' }))).rejects.toMatchObject({
      errorCode: 'VALIDATION',
      errorMessage: expect.stringContaining('body.templateSpec.condition'),
    });
    await expect(recon.createRule(driftRule({ condition: 'event.drift + 1' }))).rejects.toMatchObject({
      errorCode: 'VALIDATION',
      errorMessage: expect.stringContaining('not a bool'),
    });
    await expect(recon.createRule(driftRule({ condition: 'drift > 0' }))).rejects.toMatchObject({
      errorCode: 'VALIDATION',
      errorMessage: expect.stringContaining('body.templateSpec.condition'),
    });
    await expect(recon.createRule(driftRule({ tolerence: 5 }))).rejects.toMatchObject({
      errorCode: 'VALIDATION',
      errorMessage: expect.stringContaining('body.templateSpec.tolerence'),
    });
    await expect(recon.createRule({ ...driftRule(), templateSpec: { ledger } })).rejects.toMatchObject({
      errorCode: 'VALIDATION',
      errorMessage: expect.stringContaining('body.templateSpec.poolID'),
    });
    await expect(recon.createRule({ ...driftRule(), schedule: { kind: 'cron', expr: 'not a cron' } })).rejects.toMatchObject({
      errorCode: 'VALIDATION',
      errorMessage: expect.stringContaining('body.schedule'),
    });
    await expect(recon.createRule({ ...driftRule(), schedule: { kind: 'cron' } })).rejects.toMatchObject({
      errorCode: 'VALIDATION',
      errorMessage: expect.stringContaining('body.schedule.expr'),
    });
    await expect(recon.createRule({ ...driftRule(), schedule: { kind: 'cron', expr: '@hourly', tz: 'Mars/Olympus' } })).rejects.toMatchObject({
      errorCode: 'VALIDATION',
      errorMessage: expect.stringContaining('body.schedule.tz'),
    });
    expect((await recon.listRules({ pageSize: 1000 })).rulesCursorResponse!.cursor.data.length).toBe(before);
  });

  test("a CEL condition replaces the template's predicate; an evaluation that cannot read a source is ERROR", async () => {
    // Tolerates a drift of up to 150 through the condition: 1000 against 900 passes.
    await pool.setBalance(900n);
    const tolerant = (await recon.createRule(driftRule({ condition: 'event.drift <= 150 && event.drift >= -150' }))).ruleResponse!.data;
    expect(tolerant.explanationCEL).toBe('event.drift <= 150 && event.drift >= -150');
    expect((await recon.evaluateRule({ ruleID: tolerant.id, evaluateRuleRequest: { safetyMargin: '0s' } })).evaluationResponse!.data.result).toBe(
      'PASS',
    );
    const missing = (await recon.createRule({ ...driftRule(), templateSpec: { ledger: `${ledger}-missing`, poolID: pool.poolID } })).ruleResponse!
      .data;
    const error = (await recon.evaluateRule({ ruleID: missing.id, evaluateRuleRequest: { safetyMargin: '0s' } })).evaluationResponse!.data;
    expect(error).toMatchObject({ result: 'ERROR', error: expect.stringContaining('not found') });
    expect((await recon.listAlerts({ query: { ruleID: missing.id } })).alertsCursorResponse!.cursor.data).toEqual([]);
    await expect(recon.evaluateRule({ ruleID: tolerant.id, evaluateRuleRequest: { at: new Date(Date.now() + 60_000) } })).rejects.toMatchObject({
      errorCode: 'VALIDATION',
      errorMessage: expect.stringContaining('body.at'),
    });
    await expect(
      recon.evaluateRule({ ruleID: tolerant.id, evaluateRuleRequest: { at: new Date(), sourcePITs: { 'ledger:other#0': new Date() } } }),
    ).rejects.toMatchObject({ errorCode: 'VALIDATION', errorMessage: expect.stringContaining('not a source of this rule') });
    for (const id of [tolerant.id, missing.id]) await recon.deleteRule({ ruleID: id });
  });
});
