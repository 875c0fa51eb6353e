import type { CreateTransactionInput, TransactionRequest } from '../../../areas/ledger';
import { validationError } from '../../../lib/errors';
import type { AppContext } from '../../context';
import type { BodyOf } from '../../schemas/common';
import type { createTransactionBodySchema, v2PostTransactionSchema } from '../../schemas/ledger';

/** The validated JSON body of a v2 create (V2PostTransaction), as the service's input; `force` is the caller's to combine with the query's. */
export function toTransactionRequest(body: BodyOf<typeof v2PostTransactionSchema>): TransactionRequest & { force?: boolean } {
  const { script, accountMetadata, force, runtime: _runtime, ...rest } = body;
  return {
    ...toCreateInput(rest),
    ...(script
      ? {
          script: {
            ...(script.plain !== undefined ? { plain: script.plain } : {}),
            ...(script.template !== undefined ? { template: script.template } : {}),
            vars: script.vars ?? {},
          },
        }
      : {}),
    ...(accountMetadata !== undefined ? { accountMetadata } : {}),
    ...(force !== undefined ? { force } : {}),
  };
}

/** The validated JSON body of a v1 create, as the service's input (amounts to BigInt, timestamp to Date). */
export function toCreateInput(
  body: Omit<BodyOf<typeof createTransactionBodySchema>, 'script'> & { script?: BodyOf<typeof createTransactionBodySchema>['script'] },
): CreateTransactionInput {
  return {
    ...(body.postings
      ? { postings: body.postings.map((p) => ({ source: p.source, destination: p.destination, amount: BigInt(p.amount), asset: p.asset })) }
      : {}),
    ...(body.script ? { script: { plain: body.script.plain, vars: body.script.vars ?? {} } } : {}),
    // An empty reference is none (Formance's ledger skips it; fctl's `ledger send` sends `"reference": ""` when its flag
    // is not given): as a reference, a second such send would conflict with the first.
    ...(body.reference ? { reference: body.reference } : {}),
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    ...(body.timestamp !== undefined ? { timestamp: new Date(body.timestamp) } : {}),
  };
}

export const idempotencyHeader = {
  'Idempotency-Key': {
    description: 'Same key and body: the original result with `Idempotency-Hit: true`; same key, other body: 409.',
    schema: { type: 'string', maxLength: 255 },
  },
};
export const idempotencyHitHeader = {
  'Idempotency-Hit': {
    description: '`true` when the response replays an earlier request with the same Idempotency-Key.',
    schema: { type: 'string' },
  },
};

export function idempotencyKeyOf(ctx: Pick<AppContext, 'get'>): string | undefined {
  const key = ctx.get('Idempotency-Key');
  if (key === '') return undefined;
  if (key.length > 255) throw validationError('Idempotency-Key: at most 255 characters');
  return key;
}
