import type { Db } from '../../db/knex';
import { ensureAllDrains } from '../../areas/webhooks';
import type { Logger } from '../../lib/logger';
import type { TemporalDeps } from '../../lib/temporal';
import { loadWebhookSettings } from '../../lib/webhooks/settings';

/**
 * Runs at start and every WEBHOOKS_DRAIN_SWEEP_INTERVAL_MS in each worker: starts the drain of every endpoint whose
 * queue has none (a process died between queueing deliveries and starting the drain, or Temporal refused the start).
 * Safe in every replica at once: a drain's start is idempotent (its workflow id is its lease's episode). Costs one
 * query and one start per endpoint with a queue, whatever the number of deliveries waiting.
 */
export function startDrainSweep(deps: { db: Db; temporal: TemporalDeps; logger: Logger; intervalMs?: number }) {
  const intervalMs = deps.intervalMs ?? loadWebhookSettings().drainSweepIntervalMs;
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  const sweep = () => {
    if (busy) return;
    busy = true;
    running = ensureAllDrains(deps)
      .then(({ refused }) => {
        for (const { drain, error } of refused)
          deps.logger.warn({ err: error, ...drain }, 'webhooks: could not start an endpoint drain; retried at the next sweep');
      })
      .catch((error) => deps.logger.warn({ err: error }, 'webhooks: the drain sweep failed; retried at the next sweep'))
      .finally(() => {
        busy = false;
      });
  };
  sweep();
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
