import { ALERT_STATUSES, CADENCES, EVALUATION_RESULTS, SEVERITIES, TEMPLATE_KINDS } from '../../areas/reconciliation';
import type { JsonSchema } from '../routing';
import { anyObjectSchema, arraySchema, booleanSchema, dateTimeSchema, listQuerySchema, mapSchema, objectSchema, stringSchema } from './common';

/** Formance reconciliation.v1's rules model: Rule, Evaluation, Alert, AlertEvent and their requests. */

const name = stringSchema({ minLength: 1, maxLength: 200 });
const templateKind = stringSchema({ enum: TEMPLATE_KINDS });
const severity = stringSchema({ enum: SEVERITIES });
const cadence = stringSchema({ enum: CADENCES, description: 'Scopes each failing fingerprint into a period (continuous: one unbounded period).' });
const labels = mapSchema(stringSchema({ maxLength: 200 }), { maxProperties: 50 });
const notifications = arraySchema(stringSchema({ maxLength: 200 }), {
  maxItems: 50,
  description: 'Stored and echoed; alerts reach subscribers as platform events (webhooks, triggers).',
});
const templateSpec = anyObjectSchema({
  description:
    "The template's parameters (docs/reconciliation.md, Rules): sources (`ledger`, `address`, `query`, `poolID`, `left`, `right`), `assets`, `tolerance`, `asset`/`operator`/`threshold`, and an optional CEL `condition`.",
});
const schedule = objectSchema(
  {
    kind: stringSchema({ enum: ['on_demand', 'cron'] }),
    expr: stringSchema({ minLength: 1, maxLength: 200, description: 'A Temporal Schedule cron string: 5 fields, `@hourly`, `@every 10m`...' }),
    tz: stringSchema({ minLength: 1, maxLength: 100, description: 'IANA time zone of the cron (default UTC).' }),
    safetyMargin: stringSchema({ maxLength: 64, description: "Go duration subtracted from each run's time (default 30s)." }),
  },
  ['kind'],
);

export const ruleSchema: JsonSchema = objectSchema(
  {
    id: stringSchema({ format: 'uuid' }),
    name,
    templateKind,
    templateSpec,
    cadence,
    schedule,
    severity,
    labels,
    notifications,
    enabled: booleanSchema(),
    explanationCEL: stringSchema({ description: "The CEL predicate a fingerprint passes by: the spec's `condition`, or the template's own." }),
    createdAt: dateTimeSchema,
    updatedAt: dateTimeSchema,
  },
  ['id', 'name', 'templateKind', 'templateSpec', 'cadence', 'severity', 'enabled', 'createdAt', 'updatedAt'],
);

export const ruleInputSchema = objectSchema(
  { name, templateKind, templateSpec, cadence, schedule, severity, labels, notifications, enabled: booleanSchema() },
  ['name', 'templateKind', 'templateSpec'],
);
export const rulePatchSchema = objectSchema({
  name,
  templateKind,
  templateSpec,
  schedule,
  severity,
  labels,
  notifications,
  enabled: booleanSchema(),
});

export const evaluationSchema: JsonSchema = objectSchema(
  {
    id: stringSchema({ format: 'uuid' }),
    ruleID: stringSchema({ format: 'uuid' }),
    result: stringSchema({ enum: EVALUATION_RESULTS }),
    evidence: {
      description: 'PASS/FAIL: one entry per fingerprint ({fingerprint, passed, proof} or {fingerprint, passed, evidence}); ERROR: {error}.',
    },
    error: stringSchema(),
    pitPerSource: mapSchema(dateTimeSchema, { description: 'The instant each source was read at, by `<label>#<index>`.' }),
    costUnits: { type: 'integer', description: 'Balance rows read.' },
    startedAt: dateTimeSchema,
    endedAt: dateTimeSchema,
    createdAt: dateTimeSchema,
  },
  ['id', 'ruleID', 'result', 'startedAt', 'endedAt', 'createdAt'],
);

export const evaluateRuleSchema = objectSchema({
  at: stringSchema({
    format: 'date-time',
    description: "Every source's instant and the alert period's reference; in the past. Default: now minus the safety margin.",
  }),
  safetyMargin: stringSchema({ maxLength: 64, description: 'Go duration subtracted from the default `at` (default 30s).' }),
  sourcePITs: mapSchema(stringSchema({ format: 'date-time' }), {
    maxProperties: 10,
    description: 'Per-source instants by `<label>#<index>`; needs `at`.',
  }),
});

const status = stringSchema({ enum: ALERT_STATUSES });
const byNote = { by: stringSchema({ minLength: 1, maxLength: 200 }), note: stringSchema({ maxLength: 2000 }) };

export const alertSchema: JsonSchema = objectSchema(
  {
    id: stringSchema({ format: 'uuid' }),
    ruleID: stringSchema({ format: 'uuid' }),
    fingerprint: stringSchema(),
    periodID: stringSchema(),
    status,
    severity,
    labels,
    evidence: anyObjectSchema(),
    occurrenceCount: { type: 'integer', minimum: 1 },
    firstSeenAt: dateTimeSchema,
    lastSeenAt: dateTimeSchema,
    lastEvaluationID: stringSchema({ format: 'uuid' }),
    ack: anyObjectSchema(),
    snooze: anyObjectSchema(),
    resolution: anyObjectSchema(),
    createdAt: dateTimeSchema,
    updatedAt: dateTimeSchema,
  },
  [
    'id',
    'ruleID',
    'fingerprint',
    'periodID',
    'status',
    'severity',
    'occurrenceCount',
    'firstSeenAt',
    'lastSeenAt',
    'lastEvaluationID',
    'createdAt',
    'updatedAt',
  ],
);

export const alertEventSchema: JsonSchema = objectSchema(
  {
    id: stringSchema({ format: 'uuid' }),
    alertID: stringSchema({ format: 'uuid' }),
    type: stringSchema({ enum: ['fail', 'pass', 'ack', 'resolve', 'accept', 'snooze', 'unsnooze'] }),
    prevStatus: { enum: [...ALERT_STATUSES, null] },
    newStatus: status,
    isReopen: booleanSchema(),
    notify: booleanSchema({ description: 'Whether the transition was published as a platform event.' }),
    evaluationID: { type: ['string', 'null'] },
    payload: anyObjectSchema(),
    at: dateTimeSchema,
  },
  ['id', 'alertID', 'type', 'newStatus', 'isReopen', 'notify', 'at'],
);

export const ackAlertSchema = objectSchema(byNote, ['by']);
export const acceptAlertSchema = objectSchema({ by: byNote.by, note: stringSchema({ minLength: 1, maxLength: 2000 }) }, ['by', 'note']);
export const resolveAlertSchema = objectSchema({ ...byNote, transactionRefs: arraySchema(stringSchema({ maxLength: 200 }), { maxItems: 100 }) }, [
  'by',
]);
export const snoozeAlertSchema = objectSchema({ ...byNote, until: stringSchema({ format: 'date-time' }) }, ['by', 'until']);
export const unsnoozeAlertSchema = objectSchema({ by: byNote.by }, ['by']);

export const ruleIdParams = objectSchema({ ruleID: stringSchema({ minLength: 1, maxLength: 100 }) }, ['ruleID']);
export const alertIdParams = objectSchema({ alertID: stringSchema({ minLength: 1, maxLength: 100 }) }, ['alertID']);
export const evaluationIdParams = objectSchema({ evaluationID: stringSchema({ minLength: 1, maxLength: 100 }) }, ['evaluationID']);

// Formance's SDK sends a list's filters as one JSON object in `query` (api/routes/reconciliation/query-filter.ts).
const filterQuery = (members: string) => stringSchema({ maxLength: 2000, description: `A JSON object of filters: ${members}.` });
export const ruleListQuery = { ...listQuerySchema({ query: filterQuery('templateKind, enabled, name') }), additionalProperties: false };
export const evaluationListQuery = { ...listQuerySchema({ query: filterQuery('ruleID, result') }), additionalProperties: false };
export const alertListQuery = {
  ...listQuerySchema({ query: filterQuery('ruleID, status, severity, fingerprint, periodID') }),
  additionalProperties: false,
};
export const alertEventListQuery = { ...listQuerySchema(), additionalProperties: false };
