import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/knex';
import { stringifyJson } from '../../lib/json';
import { backoffDelayMs, loadWebhookSettings, type WebhookSettings } from '../../lib/webhooks/settings';
import { presentConfig } from './configs';
import type { AttemptRecord } from './deliveries';
import { disableEndpoint, queuePositions, type EndpointConfigRow, type EndpointDrain } from './endpoints';
import { metrics } from '../../lib/metrics';

/** The delivery status an attempt leaves: another attempt to come keeps it pending (in its endpoint's queue). */
const statusAfter = { success: 'succeeded', 'to retry': 'pending', failed: 'failed' } as const;

/** Retry-After is honoured up to this long; beyond, the endpoint's schedule applies. */
export const MAX_RETRY_AFTER_MS = 6 * 3600_000;

export interface RecordOptions {
  settings?: Pick<WebhookSettings, 'initialIntervalMs' | 'backoffCoefficient' | 'maximumIntervalMs'>;
  /**
   * Whether these attempts are a drain's probe of a failing endpoint: a failure then moves the endpoint one step
   * further on its backoff schedule. An event batch's first attempts (possibly many at once to one endpoint) only
   * start the backoff, at its first step.
   */
  probe?: boolean;
  /**
   * Where each failed attempt is logged, as one line (the activity's logger, which writes one JSON line per call):
   * its delivery, endpoint (without its query, which may hold a token), status or error, attempt and next retry.
   */
  log?: (message: string, attributes: Record<string, unknown>) => void;
}

/**
 * Stores attempts and their consequences in one transaction: each delivery's new state (a retryable failure puts it in
 * its endpoint's queue, where it keeps its place on later failures), the attempt rows, and each endpoint's state: a
 * retryable failure starts (or, for a probe, extends) its backoff and takes its drain lease; a success with no failure
 * ends the backoff; a 410 Gone disables it. Configs are locked first (id order), as every writer of a queue does.
 * @returns the drains the caller must make sure of (the endpoints whose queue gained deliveries).
 */
export async function recordAttempts(db: Db, records: AttemptRecord[], options: RecordOptions = {}): Promise<EndpointDrain[]> {
  if (records.length === 0) return [];
  const settings = options.settings ?? loadWebhookSettings();
  const gone = new Set<string>();
  const nextRetry = new Map<AttemptRecord, Date | null>();
  const drains = await db.transaction(async (trx) => {
    const now = Date.now();
    // Only the configs whose state changes are locked and written: a healthy endpoint's successes update its
    // last success at most once a second, so concurrent batches to one endpoint do not queue on its row.
    const changing = (c: Pick<EndpointConfigRow, 'id' | 'failing_since' | 'last_success_at'>) =>
      records.some((r) => r.config.id === c.id && r.status !== 'success') ||
      c.failing_since !== null ||
      !c.last_success_at ||
      now - c.last_success_at.getTime() >= 1000;
    const seen: Array<Pick<EndpointConfigRow, 'id' | 'failing_since' | 'last_success_at'>> = await trx('webhook_configs')
      .whereIn('id', [...new Set(records.map((r) => r.config.id))])
      .select('id', 'failing_since', 'last_success_at');
    const configIds = seen
      .filter(changing)
      .map((c) => c.id)
      .sort();
    const configs: EndpointConfigRow[] =
      configIds.length > 0 ? await trx<EndpointConfigRow>('webhook_configs').whereIn('id', configIds).orderBy('id').forUpdate() : [];
    const retryAt = new Map<string, Date>();
    const claimed: EndpointDrain[] = [];
    for (const config of configs) {
      const own = records.filter((r) => r.config.id === config.id);
      if (own.some((r) => r.gone)) {
        gone.add(config.id);
        continue;
      }
      const retries = own.filter((r) => r.status === 'to retry');
      const failedAt = own.some((r) => r.status !== 'success') ? new Date(now) : config.last_failure_at;
      if (retries.length > 0) {
        const step = options.probe ? config.backoff_attempts + 1 : Math.max(config.backoff_attempts, 1);
        const asked = Math.max(0, ...retries.map((r) => Math.min(r.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS)));
        let next = new Date(now + Math.max(backoffDelayMs(settings, step), asked));
        // An event batch's failures do not push back a probe already scheduled.
        if (!options.probe && config.failing_since && config.retry_at && config.retry_at.getTime() > now) next = config.retry_at;
        retryAt.set(config.id, next);
        const [row] = await trx('webhook_configs')
          .where({ id: config.id })
          .update({
            failing_since: config.failing_since ?? new Date(now),
            backoff_attempts: step,
            retry_at: next,
            last_failure_at: failedAt,
            drain_running: true,
            drain_episode: config.drain_running ? config.drain_episode : config.drain_episode + 1,
          })
          .returning(['drain_episode']);
        claimed.push({ configId: config.id, episode: row.drain_episode });
      } else if (own.some((r) => r.status === 'success')) {
        await trx('webhook_configs')
          .where({ id: config.id })
          .update({ last_success_at: new Date(now), last_failure_at: failedAt, failing_since: null, backoff_attempts: 0, retry_at: null });
      } else {
        await trx('webhook_configs').where({ id: config.id }).update({ last_failure_at: failedAt });
      }
    }
    const joining = records.filter((r) => r.status === 'to retry');
    const positions = new Map((await queuePositions(trx, joining.length)).map((seq, i) => [joining[i].deliveryId, seq]));
    const nextOf = (r: AttemptRecord) => (r.status === 'to retry' ? (retryAt.get(r.config.id) ?? r.nextRetryAfter ?? null) : null);
    for (const record of records) nextRetry.set(record, nextOf(record));
    const updated = await trx.raw(
      `UPDATE webhook_deliveries d
       SET status = v.status, attempt_count = d.attempt_count + 1, last_status_code = v.code, last_error = v.error, next_retry_at = v.next,
           last_attempt_at = now(), updated_at = now(),
           queued = v.status = 'pending', queue_seq = CASE WHEN v.status <> 'pending' THEN NULL WHEN d.queued THEN d.queue_seq ELSE v.qseq::bigint END
       FROM json_to_recordset(?::json) AS v(id uuid, status text, code int, error text, next timestamptz, qseq text)
       WHERE d.id = v.id
       RETURNING d.id, d.replay_generation`,
      [
        stringifyJson(
          records.map((r) => ({
            id: r.deliveryId,
            status: statusAfter[r.status],
            code: r.statusCode,
            error: r.error ?? null,
            next: nextOf(r)?.toISOString() ?? null,
            qseq: positions.get(r.deliveryId) ?? null,
          })),
        ),
      ],
    );
    const generation = new Map<string, number>(updated.rows.map((row: { id: string; replay_generation: number }) => [row.id, row.replay_generation]));
    await trx('webhook_attempts').insert(
      records.map((record) => ({
        id: randomUUID(),
        delivery_id: record.deliveryId,
        retry_attempt: record.retryAttempt,
        replay_generation: generation.get(record.deliveryId) ?? 0,
        status_code: record.statusCode,
        status: record.status,
        error: record.error ?? null,
        config: stringifyJson(presentConfig(record.config)),
        next_retry_after: nextOf(record),
        duration_ms: record.durationMs,
      })),
    );
    // After the deliveries' update: the disabling fails the queue, this attempt's delivery included.
    for (const configId of gone) await disableEndpoint(trx, configId, 'the endpoint answered 410 Gone');
    return claimed;
  });
  // Every attempt, the batch's first ones and the endpoint queues' alike, is recorded here and only here.
  // Per endpoint by its config id, not its URL: one series set per config an operator created (a URL may change or
  // carry secrets in its query).
  for (const record of records) {
    const outcome = record.status === 'to retry' ? 'retry' : record.status;
    const labels = { config_id: record.config.id, outcome };
    metrics.webhookAttempts.inc(labels);
    metrics.webhookAttemptDuration.observe(labels, record.durationMs / 1000);
    if (outcome !== 'retry') metrics.webhookAttemptNumber.observe(labels, record.retryAttempt + 1);
    if (outcome !== 'success' && options.log) {
      options.log(outcome === 'retry' ? 'webhooks: delivery attempt failed; retried' : 'webhooks: delivery attempt failed; not retried', {
        deliveryId: record.deliveryId,
        configId: record.config.id,
        endpoint: endpointForLog(record.config.endpoint),
        statusCode: record.statusCode,
        ...(record.error ? { error: record.error } : {}),
        attempt: record.retryAttempt + 1,
        nextRetryAt: nextRetry.get(record)?.toISOString() ?? null,
      });
    }
  }
  return drains;
}

/** An endpoint URL without its query and credentials: what a log line may show of it. */
function endpointForLog(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}
