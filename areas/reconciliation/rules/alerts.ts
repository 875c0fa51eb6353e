import { randomUUID } from 'node:crypto';
import type { Db, Executor } from '../../../db/knex';
import { inTransaction } from '../../../db/errors';
import { emitEvents } from '../../../db/outbox';
import { keysetPage, type ListQuery, type Page } from '../../../db/pagination';
import { conflict, notFound, validationError } from '../../../lib/errors';
import { type AlertEventRow, type AlertEventType, type AlertRow, type AlertStatus, presentAlert, presentAlertEvent, type Severity } from './model';
import { isUuid } from './rules';
import { stringifyJson } from '../../../lib/json';

/**
 * An alert's changed columns as bindings: its json columns (ack, resolution, snooze) as the text stringifyJson writes,
 * so a big integer in them is kept exact (node-postgres' own JSON.stringify refuses BigInt).
 */
const jsonColumns = (set: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(set).map(([column, value]) => [
      column,
      value !== null && typeof value === 'object' && !(value instanceof Date) ? stringifyJson(value) : value,
    ]),
  );

/**
 * Alerts: one per (rule, fingerprint, period), opened by a failing evaluation and moved by operators.
 *
 *   OPEN ──ack──► ACKNOWLEDGED ──resolve / accept──► RESOLVED ──(a new failure)──► OPEN (reopen, isReopen)
 *     └───────────────resolve / accept──────────────────┘
 *
 * Snooze mutes an unresolved alert's notifications until a date (its status does not change; it keeps counting
 * failures); unsnooze lifts it early. A transition that does not apply to the alert's state is 409, the alert
 * unchanged. Every transition and every evaluation that touched the alert is a row of its event log; a row with
 * `notify` is also a platform event (`reconciliation.alert_*`), the others are kept for audit only (repeated failures,
 * a failure muted by a snooze, a recovery).
 */

export const ALERT_EVENT_TYPES = {
  opened: 'ALERT_OPENED',
  reopened: 'ALERT_REOPENED',
  ack: 'ALERT_ACKNOWLEDGED',
  resolve: 'ALERT_RESOLVED',
  accept: 'ALERT_ACCEPTED',
  snooze: 'ALERT_SNOOZED',
  unsnooze: 'ALERT_UNSNOOZED',
} as const;

function platformTypeOf(event: Pick<AlertEventRow, 'type' | 'is_reopen'>): string | undefined {
  if (event.type === 'fail') return event.is_reopen ? ALERT_EVENT_TYPES.reopened : ALERT_EVENT_TYPES.opened;
  if (event.type === 'pass') return undefined;
  return ALERT_EVENT_TYPES[event.type];
}

export const snoozeActive = (alert: Pick<AlertRow, 'snooze'>, now: Date): boolean => alert.snooze !== null && new Date(alert.snooze.until) > now;

/** Appends a row to the alert's log (the alert as it is after the transition) and, when `notify`, its platform event. */
export async function appendAlertEvent(
  trx: Executor,
  alert: AlertRow,
  event: {
    type: AlertEventType;
    prevStatus: AlertStatus | null;
    isReopen?: boolean;
    notify: boolean;
    evaluationID?: string;
    payload: Record<string, unknown>;
    at: Date;
  },
): Promise<AlertEventRow> {
  const [row] = (await trx('reconciliation_alert_events')
    .insert({
      id: randomUUID(),
      alert_id: alert.id,
      type: event.type,
      prev_status: event.prevStatus,
      new_status: alert.status,
      is_reopen: event.isReopen ?? false,
      notify: event.notify,
      evaluation_id: event.evaluationID ?? null,
      payload: stringifyJson(event.payload),
      at: event.at,
    })
    .returning('*')) as AlertEventRow[];
  const type = event.notify ? platformTypeOf(row) : undefined;
  if (type) await emitEvents(trx, [{ app: 'reconciliation', type, payload: { alert: presentAlert(alert), event: presentAlertEvent(row) } }]);
  return row;
}

export async function getAlertRow(db: Executor, id: string): Promise<AlertRow> {
  const row = isUuid(id) ? ((await db('reconciliation_alerts').where({ id }).first()) as AlertRow | undefined) : undefined;
  if (!row) throw notFound(`alert ${id} not found`);
  return row;
}

export const getAlert = async (db: Executor, id: string) => presentAlert(await getAlertRow(db, id));

export interface AlertFilters {
  ruleID?: string;
  status?: AlertStatus;
  severity?: Severity;
  fingerprint?: string;
  periodID?: string;
}

export async function listAlerts(db: Executor, list: ListQuery<AlertFilters>): Promise<Page<AlertRow>> {
  const query = db('reconciliation_alerts').select('*');
  const { ruleID, status, severity, fingerprint, periodID } = list.filters;
  if (ruleID !== undefined) {
    if (!isUuid(ruleID)) return { items: [], hasNext: false, hasPrevious: false };
    query.where('rule_id', ruleID);
  }
  if (status !== undefined) query.where('status', status);
  if (severity !== undefined) query.where('severity', severity);
  if (fingerprint !== undefined) query.where('fingerprint', fingerprint);
  if (periodID !== undefined) query.where('period_id', periodID);
  return keysetPage<AlertRow>(query, ['seq'], 'desc', list);
}

/** The alert's log, oldest first. 404 when the alert does not exist. */
export async function listAlertEvents(db: Executor, alertID: string, list: ListQuery<Record<string, never>>): Promise<Page<AlertEventRow>> {
  await getAlertRow(db, alertID);
  return keysetPage<AlertEventRow>(db('reconciliation_alert_events').where({ alert_id: alertID }).select('*'), ['seq'], 'asc', list);
}

type Transition = 'ack' | 'resolve' | 'accept' | 'snooze' | 'unsnooze';

/** Locks the alert, checks `allowed` against its state (409 otherwise), writes the change and its log row. */
async function transition(
  db: Db,
  id: string,
  type: Transition,
  change: (alert: AlertRow, now: Date) => { set: Partial<Record<keyof AlertRow, unknown>>; payload: Record<string, unknown> },
  allowed: (alert: AlertRow, now: Date) => string | undefined,
) {
  if (!isUuid(id)) throw notFound(`alert ${id} not found`);
  return inTransaction(db, async (trx) => {
    const current = (await trx('reconciliation_alerts').where({ id }).forUpdate().first()) as AlertRow | undefined;
    if (!current) throw notFound(`alert ${id} not found`);
    const now = new Date();
    const refusal = allowed(current, now);
    if (refusal) throw conflict(`alert ${id} is ${current.status}${current.snooze && snoozeActive(current, now) ? ' (snoozed)' : ''}: ${refusal}`);
    const { set, payload } = change(current, now);
    const [updated] = (await trx('reconciliation_alerts')
      .where({ id })
      .update({ ...jsonColumns(set), updated_at: now })
      .returning('*')) as AlertRow[];
    await appendAlertEvent(trx, updated, { type, prevStatus: current.status, notify: true, payload, at: now });
    return presentAlert(updated);
  });
}

const note = (text: string | undefined) => (text ? { note: text } : {});

export const ackAlert = (db: Db, id: string, input: { by: string; note?: string }) =>
  transition(
    db,
    id,
    'ack',
    (_alert, now) => {
      const ack = { at: now.toISOString(), by: input.by, ...note(input.note) };
      return { set: { status: 'ACKNOWLEDGED', ack }, payload: { ack } };
    },
    (alert) => (alert.status === 'OPEN' ? undefined : 'only an OPEN alert can be acknowledged'),
  );

const unresolved = (alert: AlertRow) => (alert.status === 'RESOLVED' ? 'it is already resolved' : undefined);

function resolution(
  alert: AlertRow,
  now: Date,
  kind: 'fixed_by_booking' | 'accepted_by_business',
  input: { by: string; note?: string; transactionRefs?: string[] },
) {
  return {
    at: now.toISOString(),
    by: input.by,
    kind,
    ...note(input.note),
    ...(input.transactionRefs?.length ? { transactionRefs: input.transactionRefs } : {}),
    evidenceSnapshot: alert.evidence,
  };
}

/** Resolved by a correction (a booking, named by `transactionRefs`); a later failure of the fingerprint reopens it. */
export const resolveAlert = (db: Db, id: string, input: { by: string; note?: string; transactionRefs?: string[] }) =>
  transition(
    db,
    id,
    'resolve',
    (alert, now) => {
      const value = resolution(alert, now, 'fixed_by_booking', input);
      return { set: { status: 'RESOLVED', resolution: value, snooze: null }, payload: { resolution: value } };
    },
    unresolved,
  );

/** Resolved by accepting the difference as it is (a business decision, whose note is required). */
export const acceptAlert = (db: Db, id: string, input: { by: string; note: string }) => {
  if (!input.note.trim()) throw validationError('body.note: required: say why the difference is accepted');
  return transition(
    db,
    id,
    'accept',
    (alert, now) => {
      const value = resolution(alert, now, 'accepted_by_business', input);
      return { set: { status: 'RESOLVED', resolution: value, snooze: null }, payload: { resolution: value } };
    },
    unresolved,
  );
};

export const snoozeAlert = (db: Db, id: string, input: { by: string; note?: string; until: string }) => {
  const until = new Date(input.until);
  if (!(until.getTime() > Date.now())) throw validationError('body.until: must be in the future');
  return transition(
    db,
    id,
    'snooze',
    (_alert, now) => {
      const snooze = { at: now.toISOString(), by: input.by, ...note(input.note), until: until.toISOString() };
      return { set: { snooze }, payload: { snooze } };
    },
    unresolved,
  );
};

export const unsnoozeAlert = (db: Db, id: string, input: { by: string }) =>
  transition(
    db,
    id,
    'unsnooze',
    () => ({ set: { snooze: null }, payload: { by: input.by } }),
    (alert, now) => (snoozeActive(alert, now) ? undefined : 'it is not snoozed'),
  );
