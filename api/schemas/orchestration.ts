import { EVENT_NAME_MAX_LENGTH } from '../../lib/orchestration/config';
import type { JsonSchema } from '../routing';
import {
  anyObjectSchema,
  arraySchema,
  booleanSchema,
  dateTimeSchema,
  integerSchema,
  listQuerySchema,
  mapSchema,
  objectSchema,
  stringSchema,
} from './common';

const uuidString = stringSchema({ minLength: 1, maxLength: 100 });

/** The body of a workflow creation; stages are checked in depth by the service (messages name stage and field). */
export const workflowConfigSchema = objectSchema({
  name: stringSchema({ maxLength: 500 }),
  stages: arraySchema(anyObjectSchema(), {
    maxItems: 1000,
    description: 'Stages run in order; each is an object with one key: send, delay, wait_event, update or noop. String leaves may use ${variable}.',
  }),
});

export const workflowSchema: JsonSchema = objectSchema(
  { id: { type: 'string', format: 'uuid' }, config: workflowConfigSchema, createdAt: dateTimeSchema, updatedAt: dateTimeSchema },
  ['id', 'config', 'createdAt', 'updatedAt'],
);

const stageStatusSchema: JsonSchema = objectSchema(
  { stage: { type: 'integer' }, instanceID: { type: 'string' }, startedAt: dateTimeSchema, terminatedAt: dateTimeSchema, error: { type: 'string' } },
  ['stage', 'instanceID', 'startedAt'],
);

export const instanceSchema: JsonSchema = objectSchema(
  {
    workflowID: { type: 'string' },
    id: { type: 'string' },
    createdAt: dateTimeSchema,
    updatedAt: dateTimeSchema,
    status: { type: 'array', items: stageStatusSchema },
    terminated: { type: 'boolean' },
    terminatedAt: dateTimeSchema,
    error: { type: 'string' },
  },
  ['workflowID', 'id', 'createdAt', 'updatedAt', 'status', 'terminated'],
);

export const instanceHistoryEntrySchema: JsonSchema = objectSchema(
  {
    name: { type: 'string', description: 'RunSend, RunDelay, RunWaitEvent, RunUpdate or RunNoop' },
    input: { type: 'object', description: 'The stage with its variables substituted and defaults applied' },
    error: { type: 'string' },
    terminated: { type: 'boolean' },
    startedAt: dateTimeSchema,
    terminatedAt: dateTimeSchema,
  },
  ['name', 'input', 'terminated', 'startedAt'],
);

export const stageHistoryEntrySchema: JsonSchema = objectSchema(
  {
    name: { type: 'string', description: 'The activity: GetAccount, CreateTransaction, CreditWallet, ...' },
    input: { type: 'object', description: 'Keyed by the activity name' },
    output: { type: 'object', description: 'Keyed by the activity name' },
    error: { type: 'string' },
    terminated: { type: 'boolean' },
    startedAt: dateTimeSchema,
    terminatedAt: dateTimeSchema,
    lastFailure: { type: 'string', description: "The last attempt's failure of an activity being retried" },
    attempt: { type: 'integer' },
    nextExecution: { ...dateTimeSchema, description: 'When a pending activity is retried next' },
  },
  ['name', 'input', 'terminated', 'startedAt', 'attempt'],
);

export const workflowParams = objectSchema({ workflowID: uuidString }, ['workflowID']);
export const instanceParams = objectSchema({ instanceID: uuidString }, ['instanceID']);
export const stageParams = objectSchema({ instanceID: uuidString, number: integerSchema({ minimum: 0 }) }, ['instanceID', 'number']);

export const runQuerySchema = objectSchema({
  wait: stringSchema({ description: '`true` or `1` (any case): answer when the run has ended, or after 60 s with its current state.' }),
});
export const variablesSchema = mapSchema(stringSchema(), { description: 'Variables for ${name} references' });
export const eventBodySchema = objectSchema({ name: stringSchema({ minLength: 1, maxLength: EVENT_NAME_MAX_LENGTH }) }, ['name']);
export const instanceListQuery = listQuerySchema({ workflowID: stringSchema(), running: booleanSchema() });

export const triggerInputSchema = objectSchema({
  event: stringSchema({ maxLength: 200, description: 'Event type to react to, e.g. COMMITTED_TRANSACTIONS or SAVED_PAYMENT' }),
  workflowID: stringSchema({ maxLength: 100 }),
  filter: stringSchema({ maxLength: 4000, description: 'CEL expression over `event` (the payload); the trigger fires when it is true' }),
  vars: mapSchema(stringSchema({ maxLength: 4000 }), { description: 'Variable name → CEL expression over `event`' }),
  name: stringSchema({ maxLength: 500 }),
});

export const triggerSchema = objectSchema(
  {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    event: { type: 'string' },
    workflowID: { type: 'string' },
    filter: { type: 'string' },
    vars: { type: 'object', additionalProperties: { type: 'string' } },
    createdAt: dateTimeSchema,
  },
  ['id', 'name', 'event', 'workflowID', 'createdAt'],
);

export const occurrenceSchema = objectSchema(
  {
    id: { type: 'string' },
    triggerID: { type: 'string' },
    workflowInstanceID: { type: 'string' },
    date: dateTimeSchema,
    event: { type: 'object' },
    error: { type: 'string' },
  },
  ['id', 'triggerID', 'date', 'event'],
);

export const triggerTestResultSchema = objectSchema(
  {
    filter: { type: ['object', 'null'], properties: { match: { type: 'boolean' }, error: { type: 'string' } } },
    variables: {
      type: ['object', 'null'],
      additionalProperties: { type: 'object', properties: { value: { type: 'string' }, error: { type: 'string' } } },
    },
  },
  ['filter', 'variables'],
);

export const triggerParams = objectSchema({ triggerID: uuidString }, ['triggerID']);
export const triggerListQuery = listQuerySchema({ name: stringSchema() });
