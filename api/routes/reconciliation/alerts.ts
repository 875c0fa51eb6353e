import {
  ackAlert,
  acceptAlert,
  ALERT_STATUSES,
  type AlertFilters,
  getAlert,
  listAlertEvents,
  listAlerts,
  presentAlert,
  presentAlertEvent,
  resolveAlert,
  SEVERITIES,
  snoozeAlert,
  unsnoozeAlert,
} from '../../../areas/reconciliation';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute, type JsonSchema } from '../../routing';
import { listFilters } from './query-filter';
import { type BodyOf, cursorOf, dataOf, errorSchema } from '../../schemas/common';
import {
  ackAlertSchema,
  acceptAlertSchema,
  alertEventListQuery,
  alertEventSchema,
  alertIdParams,
  alertListQuery,
  alertSchema,
  resolveAlertSchema,
  snoozeAlertSchema,
  unsnoozeAlertSchema,
} from '../../schemas/reconciliation-rules';

const tags = ['reconciliation'];
const base = '/api/reconciliation/alerts';
const alertResponse = { description: 'The alert', schema: dataOf(alertSchema) };

export const listAlertsRoute = defineRoute(
  {
    method: 'get',
    path: base,
    operationId: 'reconciliationV1ListAlerts',
    summary: 'List alerts, newest first',
    tags,
    responses: { 200: { description: 'Alerts', schema: cursorOf(alertSchema) } },
  },
  authenticate('reconciliation:read'),
  validate({ query: alertListQuery }),
  async function listAlertsHandler(ctx) {
    const list = ctx.state.input.list;
    const filters = listFilters(list.filters.query, {
      ruleID: 'string',
      status: ALERT_STATUSES,
      severity: SEVERITIES,
      fingerprint: 'string',
      periodID: 'string',
    }) as AlertFilters;
    ctx.body = cursorEnvelope(list, await listAlerts(ctx.deps.db, { ...list, filters }), (row) => [row.seq], presentAlert);
  },
);

export const getAlertRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{alertID}`,
    operationId: 'reconciliationV1GetAlert',
    summary: 'Read an alert',
    tags,
    responses: { 200: alertResponse },
  },
  authenticate('reconciliation:read'),
  validate({ params: alertIdParams }),
  async function getAlertHandler(ctx) {
    ctx.body = { data: await getAlert(ctx.deps.db, ctx.state.input.params.alertID) };
  },
);

export const listAlertEventsRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{alertID}/events`,
    operationId: 'reconciliationV1ListAlertEvents',
    summary: "An alert's event log, oldest first",
    tags,
    responses: { 200: { description: 'Events', schema: cursorOf(alertEventSchema) } },
  },
  authenticate('reconciliation:read'),
  validate({ params: alertIdParams, query: alertEventListQuery }),
  async function listAlertEventsHandler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listAlertEvents(ctx.deps.db, ctx.state.input.params.alertID, list), (row) => [row.seq], presentAlertEvent);
  },
);

const transitionResponses = { 200: alertResponse, 409: { description: "The transition does not apply to the alert's state", schema: errorSchema } };

function transitionRoute<S extends JsonSchema>(
  action: 'ack' | 'accept' | 'resolve' | 'snooze' | 'unsnooze',
  operationId: string,
  summary: string,
  body: S,
  run: (db: Parameters<typeof ackAlert>[0], id: string, input: BodyOf<S>) => Promise<unknown>,
) {
  return defineRoute(
    { method: 'post', path: `${base}/{alertID}/${action}`, operationId, summary, tags, responses: transitionResponses },
    authenticate('reconciliation:write'),
    validate({ params: alertIdParams, body }),
    async function alertTransitionHandler(ctx) {
      ctx.body = { data: await run(ctx.deps.db, ctx.state.input.params.alertID, ctx.state.input.body as BodyOf<S>) };
    },
  );
}

export const ackAlertRoute = transitionRoute('ack', 'reconciliationV1AckAlert', 'Acknowledge an OPEN alert', ackAlertSchema, ackAlert);
export const acceptAlertRoute = transitionRoute(
  'accept',
  'reconciliationV1AcceptAlert',
  'Resolve an alert by accepting the difference (note required)',
  acceptAlertSchema,
  acceptAlert,
);
export const resolveAlertRoute = transitionRoute(
  'resolve',
  'reconciliationV1ResolveAlert',
  'Resolve an alert as fixed (by bookings named in transactionRefs)',
  resolveAlertSchema,
  resolveAlert,
);
export const snoozeAlertRoute = transitionRoute(
  'snooze',
  'reconciliationV1SnoozeAlert',
  "Mute an unresolved alert's notifications until a future date",
  snoozeAlertSchema,
  snoozeAlert,
);
export const unsnoozeAlertRoute = transitionRoute(
  'unsnooze',
  'reconciliationV1UnsnoozeAlert',
  "Lift an alert's active snooze",
  unsnoozeAlertSchema,
  unsnoozeAlert,
);

export const alertRoutes = [
  listAlertsRoute,
  getAlertRoute,
  listAlertEventsRoute,
  ackAlertRoute,
  acceptAlertRoute,
  resolveAlertRoute,
  snoozeAlertRoute,
  unsnoozeAlertRoute,
];
