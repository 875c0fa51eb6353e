import type { AppContext } from '../../context';

export const tags = ['payments'];
export const idempotencyHeader = {
  'Idempotency-Key': {
    description: 'Makes a retried creation return the first result instead of creating twice.',
    schema: { type: 'string', maxLength: 255 },
  },
};
export const idempotencyKey = (ctx: Pick<AppContext, 'get'>): string | undefined => ctx.get('Idempotency-Key') || undefined;
export const noContent = { 204: { description: 'Done, no body' } };
export const temporalOf = (ctx: Pick<AppContext, 'deps'>) => ({ client: ctx.deps.temporal.client, taskQueue: ctx.deps.temporal.taskQueue });
