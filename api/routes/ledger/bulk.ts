import { runBulk, v2TransactionView, type BulkElement, type BulkResult } from '../../../areas/ledger';
import { ErrorCodes, validationError, type ErrorCode } from '../../../lib/errors';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { defineRoute } from '../../routing';
import type { BodyOf } from '../../schemas/common';
import { bulkBodySchema, bulkFailureSchema, bulkQuery, bulkResponseSchema } from '../../schemas/ledger-bulk';
import { ledgerParams } from '../../schemas/ledger';
import { toTransactionRequest } from './input';

const tags = ['ledger'];

/** A transaction target's id: an integer, or a string of digits (Formance's clients send either). */
function transactionId(value: unknown, where: string): bigint {
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value) && value >= 0)) return BigInt(value);
  if (typeof value === 'string' && /^[0-9]{1,30}$/.test(value)) return BigInt(value);
  throw validationError(`${where}: a transaction id (an integer >= 0) when targetType is TRANSACTION`);
}

type BulkBodyElement = BodyOf<typeof bulkBodySchema>[number];
type BulkTarget = Pick<Extract<BulkBodyElement, { action: 'ADD_METADATA' }>['data'], 'targetType' | 'targetId'>;

/** The validated JSON elements as the service's input: amounts and transaction ids to BigInt. */
function toElement(raw: BulkBodyElement, index: number): BulkElement {
  const target = (data: BulkTarget) =>
    data.targetType === 'TRANSACTION'
      ? { targetType: 'TRANSACTION' as const, targetId: transactionId(data.targetId, `body[${index}].data.targetId`) }
      : { targetType: 'ACCOUNT' as const, targetId: String(data.targetId) };
  const ik = raw.ik !== undefined ? { ik: raw.ik } : {};
  switch (raw.action) {
    case 'CREATE_TRANSACTION':
      return { action: 'CREATE_TRANSACTION', ...ik, data: toTransactionRequest(raw.data) };
    case 'REVERT_TRANSACTION':
      return { action: 'REVERT_TRANSACTION', ...ik, data: { ...raw.data, id: BigInt(raw.data.id) } };
    case 'ADD_METADATA':
      return { action: 'ADD_METADATA', ...ik, data: { ...target(raw.data), metadata: raw.data.metadata } };
    default:
      return { action: 'DELETE_METADATA', ...ik, data: { ...target(raw.data), key: raw.data.key } };
  }
}

const present = (result: BulkResult) => ('data' in result ? { ...result, data: v2TransactionView(result.data) } : result);

export const bulkRoute = defineRoute(
  {
    method: 'post',
    path: '/api/ledger/v2/{ledger}/_bulk',
    operationId: 'createBulk',
    summary: 'Run several ledger writes in one request (transactions, reverts, metadata), atomically if asked',
    description:
      'Elements run in order. With `atomic=true` they share one database transaction: if one fails, nothing is written and the ' +
      "answer is 400 with that element's error (`errorDetails.index`, `errorDetails.errorCode`; the answer's `errorCode` is VALIDATION " +
      "when the element's code is not a 400 one, such as NOT_FOUND). Otherwise each element commits on its own and processing stops " +
      'at the first failure (or goes on with `continueOnFailure=true`); a bulk with a failed element answers 400 with the first ' +
      'error and `data`, the results of the elements that ran.',
    tags,
    responses: {
      200: { description: 'Every element succeeded', schema: bulkResponseSchema },
      400: { description: 'Invalid bulk, or an element failed', schema: bulkFailureSchema },
    },
  },
  authenticate('ledger:write'),
  validate({ params: ledgerParams, query: bulkQuery, body: bulkBodySchema }),
  async function bulkHandler(ctx) {
    const { params, query, body } = ctx.state.input;
    const { results, failedAt, failure } = await runBulk(
      ctx.deps.db,
      params.ledger,
      body.map((element, index) => toElement(element, index)),
      {
        atomic: query.atomic === true,
        continueOnFailure: query.continueOnFailure === true,
        ...(query.schemaVersion !== undefined ? { schemaVersion: query.schemaVersion } : {}),
      },
    );
    if (failure && failedAt !== undefined) {
      // A failed element makes the bulk a 400 (Formance's, and the status its SDK reads a bulk's results from). The
      // answer's errorCode agrees with that status: the element's own code when it is a 400 one, VALIDATION otherwise
      // (a NOT_FOUND or CONFLICT element), whose code stays in `errorDetails.errorCode` and in its result.
      ctx.status = 400;
      ctx.body = {
        errorCode: ErrorCodes[failure.errorCode as ErrorCode] === 400 ? failure.errorCode : 'VALIDATION',
        errorMessage: `element ${failedAt}: ${failure.errorDescription}${query.atomic === true ? ' (atomic bulk: nothing was written)' : ''}`,
        errorDetails: { index: failedAt, errorCode: failure.errorCode },
        ...(query.atomic === true ? {} : { data: results.map(present) }),
      };
      return;
    }
    ctx.body = { data: results.map(present) };
  },
);
