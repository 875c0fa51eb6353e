import type { JsonSchema } from '../routing';
import {
  arraySchema,
  booleanSchema,
  constSchema,
  enumSchema,
  errorSchema,
  ignoredParam,
  integerSchema,
  metadataSchema,
  objectSchema,
  oneOfSchema,
  stringSchema,
} from './common';
import { schemaVersionParam, transactionIdSchema, v2PostTransactionSchema, v2TransactionSchema } from './ledger';

/** Bulks larger than this are refused (400): one request should stay well under the 1 MiB body limit and a minute. */
const MAX_BULK_ELEMENTS = 1000;

const ik = stringSchema({ minLength: 1, maxLength: 255, description: 'Idempotency key of this element (CREATE_TRANSACTION).' });
const target = {
  targetType: enumSchema(['ACCOUNT', 'TRANSACTION']),
  targetId: oneOfSchema([stringSchema({ minLength: 1, maxLength: 1024 }), transactionIdSchema], {
    description: 'An account address, or a transaction id.',
  }),
};
const element = <const A extends string, D extends JsonSchema>(action: A, data: D) =>
  objectSchema({ action: constSchema(action), ik, data }, ['action', 'data']);

/**
 * `action` picks the element's schema (ajv's `discriminator`), so an invalid element is reported at its own field
 * (`body[0].data.id: must be an integer >= 0`) rather than by the first branch of the oneOf it failed
 * (`body[0].action: must be equal to constant`).
 */
const bulkElementSchema = {
  ...oneOfSchema([
    element('CREATE_TRANSACTION', v2PostTransactionSchema),
    element('ADD_METADATA', objectSchema({ ...target, metadata: metadataSchema }, ['targetType', 'targetId', 'metadata'])),
    element(
      'REVERT_TRANSACTION',
      objectSchema({ id: transactionIdSchema, force: booleanSchema(), atEffectiveDate: booleanSchema(), metadata: metadataSchema }, ['id']),
    ),
    element('DELETE_METADATA', objectSchema({ ...target, key: stringSchema({ minLength: 1, maxLength: 1000 }) }, ['targetType', 'targetId', 'key'])),
  ]),
  // The discriminator applies to objects only: anything else must still be refused.
  type: 'object',
  discriminator: { propertyName: 'action' },
};

export const bulkBodySchema = arraySchema(bulkElementSchema, { maxItems: MAX_BULK_ELEMENTS });

export const bulkQuery = objectSchema({
  atomic: booleanSchema({ description: 'All elements in one database transaction: one failure writes nothing.' }),
  continueOnFailure: booleanSchema({ description: 'Not atomic: go on with the next elements after a failed one.' }),
  parallel: ignoredParam(booleanSchema({ description: 'Elements always run in order.' })),
  schemaVersion: schemaVersionParam,
});

const logID = integerSchema({
  minimum: -1,
  description: 'The id of the log the element appended; -1 when it appended none (an error, the deletion of an absent key).',
});
const bulkResultSchema: JsonSchema = {
  oneOf: [
    objectSchema({ responseType: { enum: ['CREATE_TRANSACTION', 'REVERT_TRANSACTION'] }, data: v2TransactionSchema, logID }, [
      'responseType',
      'data',
      'logID',
    ]),
    objectSchema({ responseType: { enum: ['ADD_METADATA', 'DELETE_METADATA'] }, logID }, ['responseType', 'logID']),
    objectSchema({ responseType: { const: 'ERROR' }, errorCode: { type: 'string' }, errorDescription: { type: 'string' }, logID }, [
      'responseType',
      'errorCode',
      'errorDescription',
      'logID',
    ]),
  ],
};

export const bulkResponseSchema: JsonSchema = objectSchema({ data: { type: 'array', items: bulkResultSchema } }, ['data']);

/** A failed bulk: the error of the first failed element, and (not atomic) the results of the elements that ran. */
export const bulkFailureSchema: JsonSchema = {
  ...errorSchema,
  properties: { ...(errorSchema.properties as Record<string, JsonSchema>), data: { type: 'array', items: bulkResultSchema } },
};
