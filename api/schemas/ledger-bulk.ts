import type { JsonSchema } from '../routing';
import { errorSchema, metadataSchema, objectSchema } from './common';
import { createTransactionBodySchema, transactionIdSchema, v2TransactionSchema } from './ledger';

/** Bulks larger than this are refused (400): one request should stay well under the 1 MiB body limit and a minute. */
const MAX_BULK_ELEMENTS = 1000;

const ik = { type: 'string', minLength: 1, maxLength: 255, description: 'Idempotency key of this element (CREATE_TRANSACTION).' } as const;
const target = {
  targetType: { enum: ['ACCOUNT', 'TRANSACTION'] },
  targetId: { oneOf: [{ type: 'string', minLength: 1, maxLength: 1024 }, transactionIdSchema], description: 'An account address, or a transaction id.' },
} as const;
const element = (action: string, data: JsonSchema): JsonSchema => objectSchema({ action: { const: action }, ik, data }, ['action', 'data']);

export const bulkBodySchema: JsonSchema = {
  type: 'array',
  maxItems: MAX_BULK_ELEMENTS,
  items: {
    oneOf: [
      element('CREATE_TRANSACTION', createTransactionBodySchema),
      element('ADD_METADATA', objectSchema({ ...target, metadata: metadataSchema }, ['targetType', 'targetId', 'metadata'])),
      element('REVERT_TRANSACTION', objectSchema({ id: transactionIdSchema, force: { type: 'boolean' }, atEffectiveDate: { type: 'boolean' }, metadata: metadataSchema }, ['id'])),
      element('DELETE_METADATA', objectSchema({ ...target, key: { type: 'string', minLength: 1, maxLength: 1000 } }, ['targetType', 'targetId', 'key'])),
    ],
  },
};

export const bulkQuery: JsonSchema = objectSchema({
  atomic: { type: 'boolean', description: 'All elements in one database transaction: one failure writes nothing.' },
  continueOnFailure: { type: 'boolean', description: 'Not atomic: go on with the next elements after a failed one.' },
  parallel: { type: 'boolean', description: 'Accepted for compatibility; elements always run in order.' },
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
