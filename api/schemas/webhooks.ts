import type { JsonSchema } from '../routing';
import { arraySchema, dateTimeSchema, integerSchema, listQuerySchema, objectSchema, stringSchema } from './common';

const endpoint = stringSchema({ minLength: 1, maxLength: 2048, description: 'http(s) URL receiving the POSTs.' });
const eventTypes = arraySchema(stringSchema({ minLength: 1, maxLength: 200 }), {
  minItems: 1,
  maxItems: 100,
  description: 'Subscribed event types, `<app>.<lower_snake_type>` (e.g. `ledger.committed_transactions`); stored lower-cased.',
});
const secret = stringSchema({
  maxLength: 200,
  description: 'Standard base64 of 24 to 64 bytes, optionally `whsec_`-prefixed; empty or missing: one is generated.',
});
const name = stringSchema({ maxLength: 200 });

export const webhookConfigSchema: JsonSchema = objectSchema(
  {
    id: { type: 'string', format: 'uuid' },
    endpoint: { type: 'string' },
    secret: { type: 'string' },
    eventTypes: { type: 'array', items: { type: 'string' } },
    active: { type: 'boolean' },
    name: { type: 'string' },
    createdAt: dateTimeSchema,
    updatedAt: dateTimeSchema,
  },
  ['id', 'endpoint', 'secret', 'eventTypes', 'active', 'createdAt', 'updatedAt'],
);

export const webhookAttemptSchema: JsonSchema = objectSchema(
  {
    id: { type: 'string', format: 'uuid' },
    webhookID: { type: 'string', format: 'uuid', description: 'The `webhook-id` header: the delivery id, constant across its retries.' },
    createdAt: dateTimeSchema,
    updatedAt: dateTimeSchema,
    config: webhookConfigSchema,
    payload: { type: 'string', description: 'The body sent, as serialized JSON.' },
    statusCode: { type: 'integer', description: '0 when no response came back.' },
    retryAttempt: { type: 'integer', minimum: 0 },
    status: { type: 'string', enum: ['success', 'to retry', 'failed'] },
    nextRetryAfter: { type: 'string', description: 'When the next retry is scheduled; 0001-01-01T00:00:00Z when none.' },
    error: { type: 'string', description: 'Why no response came back (unreachable, timeout, refused by the SSRF guard).' },
  },
  ['id', 'webhookID', 'createdAt', 'updatedAt', 'config', 'payload', 'statusCode', 'retryAttempt', 'status', 'nextRetryAfter'],
);

const uuid = stringSchema({ format: 'uuid' });
const deliveryStatus = { type: 'string', enum: ['pending', 'delivering', 'succeeded', 'failed', 'cancelled'] };

/** Formance's Delivery. */
export const deliverySchema: JsonSchema = objectSchema(
  {
    id: { type: 'string', format: 'uuid' },
    eventID: { type: 'string', format: 'uuid' },
    configID: { type: 'string', format: 'uuid' },
    eventType: { type: 'string' },
    status: { ...deliveryStatus, description: '`delivering` is never reported: an attempt is recorded with its outcome.' },
    attemptCount: { type: 'integer', minimum: 0, description: 'Attempts of the current replay generation.' },
    replayGeneration: { type: 'integer', minimum: 0, description: 'How many times the delivery was replayed.' },
    idempotencyKey: { type: 'string', description: 'The `formance-webhook-idempotency-key` header sent: the delivery id.' },
    cycleStartedAt: { ...dateTimeSchema, description: "Start of the current generation's retry window." },
    lastAttemptAt: dateTimeSchema,
    lastStatusCode: { type: 'integer', description: '0 when no response came back.' },
    lastError: { type: 'string' },
    nextAttemptAt: { ...dateTimeSchema, description: "When a pending delivery's next retry is due." },
    payload: { type: 'string', description: 'The body sent; on a single delivery only.' },
    createdAt: dateTimeSchema,
    updatedAt: dateTimeSchema,
  },
  ['id', 'eventID', 'configID', 'eventType', 'status', 'attemptCount', 'replayGeneration', 'createdAt', 'updatedAt'],
);

/** Formance's DeliveryAttempt. */
export const deliveryAttemptSchema: JsonSchema = objectSchema(
  {
    id: { type: 'string', format: 'uuid' },
    deliveryID: { type: 'string', format: 'uuid' },
    attemptNumber: { type: 'integer', minimum: 1, description: '1 for the first attempt of its replay generation.' },
    replayGeneration: { type: 'integer', minimum: 0 },
    endpoint: { type: 'string' },
    outcome: { type: 'string', enum: ['succeeded', 'retryable_failure', 'permanent_failure'] },
    statusCode: { type: 'integer', description: '0 when no response came back.' },
    error: { type: 'string' },
    durationMillis: { type: 'integer', minimum: 0 },
    createdAt: dateTimeSchema,
  },
  ['id', 'deliveryID', 'attemptNumber', 'replayGeneration', 'endpoint', 'outcome', 'statusCode', 'createdAt'],
);

/** Formance's ReplayDeliveriesResult. */
export const replayDeliveriesResultSchema: JsonSchema = objectSchema(
  {
    replayed: { type: 'integer', minimum: 0, description: 'Failed deliveries put back in the queue as a new replay generation.' },
    expedited: { type: 'integer', minimum: 0, description: "Always 0: a pending delivery keeps its place in its endpoint's queue." },
    skipped: { type: 'integer', minimum: 0, description: 'Deliveries of the page not replayed (pending ones).' },
    hasMore: { type: 'boolean' },
    nextCursor: { type: 'string', description: 'Send it back, with the same filters, for the next page.' },
    createdAtTo: { ...dateTimeSchema, description: "The window's end used (now when the request had none)." },
  },
  ['replayed', 'expedited', 'skipped', 'hasMore', 'createdAtTo'],
);

export const configInputSchema = objectSchema({ endpoint, eventTypes, secret, name }, ['endpoint', 'eventTypes']);
export const configUpdateSchema = objectSchema({ endpoint, eventTypes, name }, ['endpoint', 'eventTypes']);
export const secretChangeSchema = objectSchema({ secret });
export const idParams = objectSchema({ id: stringSchema({ minLength: 1, maxLength: 100 }) }, ['id']);
// Formance refuses any other filter (400), rather than ignoring a misspelt one.
export const configListQuery = { ...listQuerySchema({ id: stringSchema(), endpoint: stringSchema() }), additionalProperties: false };
// Formance refuses any other parameter (400): a misspelt filter (`configID`) must not list every delivery.
export const deliveryListQuery = {
  ...listQuerySchema({
    configId: uuid,
    status: stringSchema({ enum: ['pending', 'delivering', 'succeeded', 'failed', 'cancelled'] }),
    createdAtFrom: stringSchema({ format: 'date-time', description: 'Deliveries created at or after.' }),
    createdAtTo: stringSchema({ format: 'date-time', description: 'Deliveries created at or before.' }),
    eventID: stringSchema({ format: 'uuid', description: 'Ours: the deliveries of one event.' }),
  }),
  additionalProperties: false,
};
export const attemptListQuery = { ...listQuerySchema(), additionalProperties: false };
export const replayDeliveriesBody = objectSchema(
  {
    createdAtFrom: stringSchema({ format: 'date-time' }),
    createdAtTo: stringSchema({ format: 'date-time', description: 'Default: now, fixed at the first page.' }),
    statuses: arraySchema(stringSchema({ enum: ['failed', 'pending'] }), { maxItems: 2, description: 'Default: both.' }),
    configIds: arraySchema(uuid, { maxItems: 1000 }),
    cursor: stringSchema({ description: 'The `nextCursor` of the previous page; the other members must be the same.' }),
    pageSize: integerSchema({ minimum: 1, maximum: 1000, default: 100 }),
  },
  ['createdAtFrom'],
);

/** Ours (Formance has no such read): a config's endpoint state and delivery counts. */
export const endpointStatsSchema: JsonSchema = objectSchema(
  {
    configId: { type: 'string', format: 'uuid' },
    state: {
      type: 'string',
      enum: ['healthy', 'backoff', 'disabled', 'inactive'],
      description:
        'backoff: failing, probed on a schedule while its deliveries queue; disabled: by the platform (failing too long, or 410 Gone); inactive: deactivated by a user.',
    },
    delivered: { type: 'integer', minimum: 0 },
    failed: { type: 'integer', minimum: 0 },
    pending: { type: 'integer', minimum: 0 },
    cancelled: { type: 'integer', minimum: 0 },
    queued: { type: 'integer', minimum: 0, description: "Pending deliveries waiting in the endpoint's queue." },
    lastSuccessAt: dateTimeSchema,
    lastFailureAt: dateTimeSchema,
    backoff: objectSchema(
      {
        failingSince: dateTimeSchema,
        failedProbes: { type: 'integer', minimum: 0 },
        nextAttemptAt: dateTimeSchema,
      },
      ['failingSince', 'failedProbes'],
    ),
    disabledAt: dateTimeSchema,
    disabledReason: { type: 'string' },
  },
  ['configId', 'state', 'delivered', 'failed', 'pending', 'cancelled', 'queued'],
);

export const recoverBody = objectSchema(
  {
    since: stringSchema({ format: 'date-time', description: 'Failed deliveries created at or after.' }),
    until: stringSchema({ format: 'date-time', description: 'And at or before (default: now); at most 90 days after since.' }),
  },
  ['since'],
);

export const recoverResultSchema: JsonSchema = objectSchema(
  {
    replayed: { type: 'integer', minimum: 0, description: "Failed deliveries put back in the endpoint's queue as a new replay generation." },
    since: dateTimeSchema,
    until: dateTimeSchema,
  },
  ['replayed', 'since', 'until'],
);
