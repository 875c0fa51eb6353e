import type { JsonSchema } from '../routing';
import {
  arraySchema,
  booleanSchema,
  constSchema,
  enumSchema,
  errorSchema,
  metadataSchema,
  objectSchema,
  oneOfSchema,
  stringSchema,
} from './common';
import { createTransactionBodySchema, transactionIdSchema, v2TransactionSchema } from './ledger';

/** Bulks larger than this are refused (400): one request should stay well under the 1 MiB body limit and a minute. */
const MAX_BULK_ELEMENTS = 1000;

const ik = stringSchema({ minLength: 1, maxLength: 255, description: 'Idempotency key of this element (CREATE_TRANSACTION).' });
const target = {
  targetType: enumSchema(['ACCOUNT', 'TRANSACTION']),
  targetId: oneOfSchema([stringSchema({ minLength: 1, maxLength: 1024 }), transactionIdSchema], { description: 'An account address, or a transaction id.' }),
};
const element = <const A extends string, D extends JsonSchema>(action: A, data: D) => objectSchema({ action: constSchema(action), ik, data }, ['action', 'data']);

export const bulkBodySchema = arraySchema(
  oneOfSchema([
    element('CREATE_TRANSACTION', createTransactionBodySchema),
    element('ADD_METADATA', objectSchema({ ...target, metadata: metadataSchema }, ['targetType', 'targetId', 'metadata'])),
    element('REVERT_TRANSACTION', objectSchema({ id: transactionIdSchema, force: booleanSchema(), atEffectiveDate: booleanSchema(), metadata: metadataSchema }, ['id'])),
    element('DELETE_METADATA', objectSchema({ ...target, key: stringSchema({ minLength: 1, maxLength: 1000 }) }, ['targetType', 'targetId', 'key'])),
  ]),
  { maxItems: MAX_BULK_ELEMENTS },
);

export const bulkQuery = objectSchema({
  atomic: booleanSchema({ description: 'All elements in one database transaction: one failure writes nothing.' }),
  continueOnFailure: booleanSchema({ description: 'Not atomic: go on with the next elements after a failed one.' }),
  parallel: booleanSchema({ description: 'Accepted for compatibility; elements always run in order.' }),
});

const bulkResultSchema: JsonSchema = {
  oneOf: [
    objectSchema({ responseType: { enum: ['CREATE_TRANSACTION', 'REVERT_TRANSACTION'] }, data: v2TransactionSchema }, ['responseType', 'data']),
    objectSchema({ responseType: { enum: ['ADD_METADATA', 'DELETE_METADATA'] } }, ['responseType']),
    objectSchema({ responseType: { const: 'ERROR' }, errorCode: { type: 'string' }, errorDescription: { type: 'string' } }, ['responseType', 'errorCode', 'errorDescription']),
  ],
};

export const bulkResponseSchema: JsonSchema = objectSchema({ data: { type: 'array', items: bulkResultSchema } }, ['data']);

/** A failed bulk: the error of the first failed element, and (not atomic) the results of the elements that ran. */
export const bulkFailureSchema: JsonSchema = {
  ...errorSchema,
  properties: { ...(errorSchema.properties as Record<string, JsonSchema>), data: { type: 'array', items: bulkResultSchema } },
};
