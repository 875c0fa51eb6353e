import type { JsonSchema } from '../routing';
import { arraySchema, dateTimeSchema, listQuerySchema, objectSchema, stringSchema } from './common';

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
  { id: { type: 'string', format: 'uuid' }, endpoint: { type: 'string' }, secret: { type: 'string' }, eventTypes: { type: 'array', items: { type: 'string' } }, active: { type: 'boolean' }, name: { type: 'string' }, createdAt: dateTimeSchema, updatedAt: dateTimeSchema },
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

export const deliverySchema: JsonSchema = objectSchema(
  {
    id: { type: 'string', format: 'uuid' },
    eventID: { type: 'string', format: 'uuid' },
    configID: { type: 'string', format: 'uuid' },
    eventType: { type: 'string' },
    endpoint: { type: 'string' },
    payload: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'retrying', 'success', 'failed'] },
    attempts: { type: 'integer' },
    replays: { type: 'integer' },
    lastStatusCode: { type: ['integer', 'null'] },
    lastError: { type: ['string', 'null'] },
    nextRetryAfter: { anyOf: [dateTimeSchema, { type: 'null' }] },
    createdAt: dateTimeSchema,
    updatedAt: dateTimeSchema,
  },
  ['id', 'eventID', 'configID', 'eventType', 'endpoint', 'payload', 'status', 'attempts', 'replays', 'createdAt', 'updatedAt'],
);

export const configInputSchema = objectSchema({ endpoint, eventTypes, secret, name }, ['endpoint', 'eventTypes']);
export const configUpdateSchema = objectSchema({ endpoint, eventTypes, name }, ['endpoint', 'eventTypes']);
export const secretChangeSchema = objectSchema({ secret });
export const idParams = objectSchema({ id: stringSchema({ minLength: 1, maxLength: 100 }) }, ['id']);
// Formance refuses any other filter (400), rather than ignoring a misspelt one.
export const configListQuery = { ...listQuerySchema({ id: stringSchema(), endpoint: stringSchema() }), additionalProperties: false };
export const deliveryListQuery = listQuerySchema({
  configID: stringSchema(),
  eventID: stringSchema(),
  status: stringSchema({ enum: ['pending', 'retrying', 'success', 'failed'] }),
});
export const attemptListQuery = listQuerySchema();
