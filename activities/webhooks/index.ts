import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { Db } from '../../db/knex';
import type { EventEnvelope } from '../../areas/events';
import { getConfigRow, presentConfig, signingSecrets, type WebhookConfigRow } from '../../areas/webhooks';
import { planDeliveryBatch, type BatchDelivery } from '../../areas/webhooks';
import { ensureDrains, nextEndpointStep, recordAttempts, type EndpointDrain } from '../../areas/webhooks';
import type { TemporalDeps } from '../../lib/temporal';
import { NO_RETRY, type WebhookAttempt } from '../../areas/webhooks';
import { isApiError } from '../../lib/errors';
import { endpointConcurrency, loadWebhookSettings, type WebhookSettings } from '../../lib/webhooks/settings';
import { webhookHeaders } from '../../lib/webhooks/signature';
import { classifyOutcome, postWebhook } from './http-send';
import { createSendWebhookBatch } from './send-batch';
import { queuedAttemptRecord } from './verdict';
import { stringifyJson } from '../../lib/json';

export type { BatchDelivery };

/** What an event batch's workflow needs to deliver it: every delivery, and the settings its workflows use. */
export interface DeliveryBatchPlan {
  deliveries: BatchDelivery[];
  /** The HTTP timeout of one request: sizes the send activity's timeout. */
  httpTimeoutMs: number;
  /** Requests `sendWebhookBatch` keeps in flight even when every delivery goes to one endpoint: sizes its timeout. */
  concurrency: number;
}

/** How long one drain step keeps sending before handing back to its workflow (which may continue-as-new). */
const DRAIN_STEP_BUDGET_MS = 20_000;

export function createWebhookActivities(deps: { db: Db; settings?: WebhookSettings; temporal?: TemporalDeps }) {
  const settings = deps.settings ?? loadWebhookSettings();

  /** Starts drains; a refusal is logged and left to the worker's sweep, as the queue and its lease are durable. */
  const startDrains = async (drains: EndpointDrain[]): Promise<void> => {
    if (!deps.temporal || drains.length === 0) return;
    const refused = await ensureDrains({ db: deps.db, temporal: deps.temporal }, drains);
    for (const { drain, error } of refused)
      Context.current().log.warn('webhooks: could not start an endpoint drain; the sweep will', { ...drain, error: String(error) });
  };

  return {
    /** Creates (idempotently) the deliveries of a batch of events, in one statement. */
    async planWebhookBatch(events: EventEnvelope[]): Promise<DeliveryBatchPlan> {
      return {
        deliveries: await planDeliveryBatch(deps.db, events),
        httpTimeoutMs: settings.httpTimeoutMs,
        concurrency: endpointConcurrency(settings),
      };
    },

    sendWebhookBatch: createSendWebhookBatch({ db: deps.db, settings, ensureDrains: startDrains }),

    /**
     * One step of an endpoint's drain (the `webhookEndpoint` workflow): sends its queue in order, `drainConcurrency`
     * requests at a time while the endpoint answers, one probe at a time while it fails, and reports what the workflow
     * does next: stop (queue empty, config gone, endpoint disabled), wait for the next probe, or call again at once
     * (this step's time budget is spent). Every attempt is recorded like an event batch's.
     */
    async webhookEndpointStep(configId: string, episode: number): Promise<{ done: boolean; delayMs: number }> {
      const context = Context.current();
      const started = Date.now();
      for (;;) {
        const step = await nextEndpointStep(deps.db, configId, episode, settings, settings.drainConcurrency);
        if (step.action === 'done') return { done: true, delayMs: 0 };
        if (step.action === 'wait' && step.delayMs > 0) return { done: false, delayMs: step.delayMs };
        if (step.action === 'send') {
          const { config } = step;
          const records = await Promise.all(
            step.deliveries.map(async (delivery) => {
              const headers = webhookHeaders({ secrets: signingSecrets(config), id: delivery.id, body: delivery.payload, test: false });
              const outcome = await postWebhook({
                url: config.endpoint,
                headers,
                body: delivery.payload,
                timeoutMs: settings.httpTimeoutMs,
                allowed: settings.allowed,
              });
              return queuedAttemptRecord(
                {
                  deliveryId: delivery.id,
                  retryAttempt: delivery.attemptCount,
                  config,
                  runStartedAt: new Date(delivery.runStartedAt),
                  now: Date.now(),
                },
                outcome,
                settings,
              );
            }),
          );
          const drains = await recordAttempts(deps.db, records, {
            settings,
            probe: step.probe,
            log: (message, attributes) => context.log.warn(message, attributes),
          });
          await startDrains(drains.filter((d) => d.configId !== configId || d.episode !== episode));
        }
        context.heartbeat();
        if (Date.now() - started > DRAIN_STEP_BUDGET_MS) return { done: false, delayMs: 0 };
      }
    },

    /**
     * Op 16: one request with `{"data":"test"}`, never retried and not stored. Every outcome, an unreachable or
     * refused endpoint included, is an attempt (status `failed`, statusCode 0), never an error.
     * @returns null when the config does not exist.
     */
    async sendTestWebhook(configId: string): Promise<WebhookAttempt | null> {
      let config: WebhookConfigRow;
      try {
        config = await getConfigRow(deps.db, configId);
      } catch (error) {
        if (isApiError(error) && error.status === 404) return null;
        throw error;
      }
      const id = randomUUID();
      const body = stringifyJson({ data: 'test' });
      const now = new Date();
      const headers = webhookHeaders({ secrets: signingSecrets(config, now), id, body, test: true, now });
      const outcome = await postWebhook({ url: config.endpoint, headers, body, timeoutMs: settings.httpTimeoutMs, allowed: settings.allowed });
      return {
        id: randomUUID(),
        webhookID: id,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
        config: presentConfig(config),
        payload: body,
        statusCode: outcome.statusCode,
        retryAttempt: 0,
        status: classifyOutcome(outcome) === 'success' ? 'success' : 'failed',
        nextRetryAfter: NO_RETRY,
        ...(outcome.error ? { error: outcome.error } : {}),
      };
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
