import { createLimiter, keyedLimiter } from '../../../activities/webhooks/limiter';
import { sortDeliveries } from '../../../activities/webhooks/send-batch';
import { MAX_RETRY_AFTER_MS, queuedAttemptRecord } from '../../../activities/webhooks/verdict';
import type { DeliveryToSend } from '../../../areas/webhooks/delivery-batch';
import type { WebhookConfigRow } from '../../../areas/webhooks/configs';
import { endpointConcurrency } from '../../../lib/webhooks/settings';
import { sendBatchTimeoutMs } from '../../../workflows/webhooks/retry-schedule';

const settings = { initialIntervalMs: 10_000, backoffCoefficient: 3, maximumIntervalMs: 6 * 3600_000, retryForMs: 72 * 3600_000 };
const now = Date.parse('2030-01-01T00:00:00Z');
const config0 = { id: 'c', endpoint: 'https://example.com/hook', active: true } as WebhookConfigRow;
const judge = (outcome: { statusCode: number; blocked?: boolean; error?: string; retryAfterMs?: number }, startedAgoMs = 0) => {
  const { deliveryId, config, durationMs, retryAttempt, statusCode, ...verdict } = queuedAttemptRecord(
    { deliveryId: 'd', retryAttempt: 0, config: config0, runStartedAt: new Date(now - startedAgoMs), now },
    { blocked: false, durationMs: 5, ...outcome },
    settings,
  );
  expect([deliveryId, config, durationMs, retryAttempt, statusCode]).toEqual(['d', config0, 5, 0, outcome.statusCode]);
  return verdict;
};

describe('webhook attempt verdicts', () => {
  it('succeed on 2xx, fail for good on other 4xx, 3xx and blocked addresses', () => {
    expect(judge({ statusCode: 204 })).toEqual({ status: 'success' });
    for (const statusCode of [400, 404, 302]) expect(judge({ statusCode })).toEqual({ status: 'failed' });
    expect(judge({ statusCode: 0, blocked: true, error: 'refusing' })).toEqual({ status: 'failed', error: 'refusing' });
  });

  it('disable the endpoint on 410 Gone (Standard Webhooks)', () => {
    expect(judge({ statusCode: 410 })).toEqual({ status: 'failed', error: 'the endpoint answered 410 Gone: it is disabled', gone: true });
  });

  it('retry no response, 408, 429 and 5xx through the endpoint queue, passing Retry-After on', () => {
    for (const statusCode of [0, 408, 429, 500, 503]) expect(judge({ statusCode })).toEqual({ status: 'to retry' });
    expect(judge({ statusCode: 0, error: 'ECONNREFUSED' })).toEqual({ status: 'to retry', error: 'ECONNREFUSED' });
    expect(judge({ statusCode: 429, retryAfterMs: 2000 })).toEqual({ status: 'to retry', retryAfterMs: 2000 });
    expect(MAX_RETRY_AFTER_MS).toBe(6 * 3600_000);
  });

  it("fail for good once the delivery's retry window is over", () => {
    expect(judge({ statusCode: 500 }, settings.retryForMs - 1)).toEqual({ status: 'to retry' });
    expect(judge({ statusCode: 500 }, settings.retryForMs)).toEqual({ status: 'failed', error: 'status 500; retries exhausted' });
    expect(judge({ statusCode: 0, error: 'ECONNREFUSED' }, settings.retryForMs).error).toBe('ECONNREFUSED; retries exhausted');
  });
});

describe('the first attempts of an event batch', () => {
  const config = { id: 'c', endpoint: 'https://example.com/hook', active: true } as WebhookConfigRow;
  const delivery = (id: string, fields: Partial<DeliveryToSend> = {}): DeliveryToSend => ({
    id,
    configId: 'c',
    queued: false,
    payload: '{}',
    status: 'pending',
    attemptCount: 0,
    replayGeneration: 0,
    nextRetryAt: null,
    runStartedAt: new Date(now),
    config,
    ...fields,
  });

  it('send only fresh deliveries; queue the attempted ones still pending outside a queue; skip the rest', () => {
    const sorted = sortDeliveries([
      delivery('fresh'),
      delivery('done', { status: 'succeeded', attemptCount: 1 }),
      delivery('rejected', { status: 'failed', attemptCount: 1 }),
      delivery('cancelled', { status: 'cancelled' }),
      delivery('stranded', { status: 'pending', attemptCount: 1, nextRetryAt: new Date(now + 4000) }),
      delivery('replayed', { status: 'pending', attemptCount: 1, replayGeneration: 1 }),
      delivery('queued', { status: 'pending', attemptCount: 1, queued: true }),
      delivery('held', { status: 'pending', queued: true }),
      delivery('deleted', { config: undefined }),
      delivery('inactive', { config: { ...config, active: false } }),
    ]);
    expect(sorted.toSend.map((d) => d.id)).toEqual(['fresh']);
    expect(sorted.stranded).toEqual(['stranded']);
    expect(sorted.deleted).toEqual(['deleted']);
    expect(sorted.deactivated).toEqual(['inactive']);
  });

  it('bound the batch activity by rounds of per-endpoint concurrency', () => {
    expect(endpointConcurrency({ batchConcurrency: 64 })).toBe(16);
    expect(endpointConcurrency({ batchConcurrency: 1 })).toBe(1);
    expect(sendBatchTimeoutMs(1, 16, 15_000)).toBe(75_000);
    expect(sendBatchTimeoutMs(33, 16, 15_000)).toBe(3 * 15_000 + 60_000);
  });
});

describe('concurrency limiters', () => {
  const deferred = () => {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  };

  it('run at most `limit` tasks at once, in arrival order, and free the slot of a failed task', async () => {
    const limit = createLimiter(2);
    const gates = Array.from({ length: 5 }, deferred);
    const started: number[] = [];
    let running = 0;
    let peak = 0;
    const runs = gates.map((gate, i) =>
      limit(async () => {
        started.push(i);
        peak = Math.max(peak, ++running);
        await gate.promise;
        running -= 1;
        if (i === 0) throw new Error('boom');
        return i;
      }),
    );
    const settled = Promise.allSettled(runs);
    for (const gate of gates) {
      await new Promise((resolve) => setImmediate(resolve));
      gate.resolve();
    }
    const results = await settled;
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
  });

  it('limit each key on its own', async () => {
    const limit = keyedLimiter(1);
    const gate = deferred();
    const order: string[] = [];
    const a1 = limit('a', async () => {
      order.push('a1');
      await gate.promise;
    });
    const a2 = limit('a', async () => {
      order.push('a2');
    });
    const b1 = limit('b', async () => {
      order.push('b1');
    });
    await b1;
    expect(order).toEqual(['a1', 'b1']);
    gate.resolve();
    await Promise.all([a1, a2]);
    expect(order).toEqual(['a1', 'b1', 'a2']);
  });
});
