import { randomUUID } from 'node:crypto';
import { Context, ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../../db/knex';
import type { EventEnvelope } from '../../areas/events';
import { getConfigRow, presentConfig, signingSecrets, type WebhookConfigRow } from '../../areas/webhooks';
import { cancelDelivery, markDeliveryFailed, planDeliveries, recordAttempt, type DeliveryRow } from '../../areas/webhooks';
import { planDeliveryBatch, type BatchDelivery } from '../../areas/webhooks';
import { NO_RETRY, type WebhookAttempt } from '../../areas/webhooks';
import { isApiError } from '../../lib/errors';
import { deliveryPlan, endpointConcurrency, loadWebhookSettings, type DeliveryPlan, type WebhookSettings } from '../../lib/webhooks/settings';
import { webhookHeaders } from '../../lib/webhooks/signature';
import { classifyOutcome, postWebhook } from './http-send';
import { createSendWebhookBatch, type RetryDue } from './send-batch';
import { attemptRecord, judgeAttempt } from './verdict';
import { stringifyJson } from '../../lib/json';

export type { DeliveryPlan, BatchDelivery, RetryDue };

/** What an event batch's workflow needs to deliver it: every delivery, and the settings its workflows use. */
export interface DeliveryBatchPlan {
  deliveries: BatchDelivery[];
  /** Template of each delivery workflow's plan (deliveryId and configId left to fill in). */
  plan: Omit<DeliveryPlan, 'deliveryId' | 'configId'>;
  /** Requests `sendWebhookBatch` keeps in flight even when every delivery goes to one endpoint: sizes its timeout. */
  concurrency: number;
}

export function createWebhookActivities(deps: { db: Db; settings?: WebhookSettings }) {
  const settings = deps.settings ?? loadWebhookSettings();

  return {
    /** Creates (idempotently) one delivery per subscribed active config. */
    async planWebhookDeliveries(event: EventEnvelope): Promise<DeliveryPlan[]> {
      const deliveries = await planDeliveries(deps.db, event);
      return deliveries.map((d) => deliveryPlan(settings, d.deliveryId, d.configId));
    },

    /** Creates (idempotently) the deliveries of a batch of events, in one statement. */
    async planWebhookBatch(events: EventEnvelope[]): Promise<DeliveryBatchPlan> {
      const { initialIntervalMs, backoffCoefficient, maximumIntervalMs, httpTimeoutMs } = settings;
      return {
        deliveries: await planDeliveryBatch(deps.db, events),
        plan: { retry: { initialIntervalMs, backoffCoefficient, maximumIntervalMs }, httpTimeoutMs },
        concurrency: endpointConcurrency(settings),
      };
    },

    sendWebhookBatch: createSendWebhookBatch({ db: deps.db, settings }),

    /**
     * One attempt of one delivery. Temporal retries this activity: a retryable outcome throws a retryable failure
     * (with Retry-After as the next delay), a final one a non-retryable failure. The attempt is recorded first, so
     * the database shows every try even though Temporal owns the schedule. `firstRetryAttempt` numbers the attempts
     * after those made before the delivery workflow started (the event batch's).
     */
    async sendWebhook(deliveryId: string, firstRetryAttempt = 0): Promise<{ statusCode: number }> {
      const retryAttempt = firstRetryAttempt + Context.current().info.attempt - 1;
      const delivery = await deps.db<DeliveryRow>('webhook_deliveries').where({ id: deliveryId }).first();
      if (!delivery) throw ApplicationFailure.nonRetryable(`delivery ${deliveryId} does not exist`, 'WEBHOOK_DELIVERY_GONE');
      // Final (or cancelled) meanwhile: nothing to send. A replay makes it pending again under another workflow.
      if (delivery.status !== 'pending') return { statusCode: delivery.last_status_code ?? 0 };
      const config = await deps.db<WebhookConfigRow>('webhook_configs').where({ id: delivery.config_id }).first();
      if (!config || !config.active) {
        const reason = config ? 'the config was deactivated' : 'the config was deleted';
        await cancelDelivery(deps.db, deliveryId, reason);
        throw ApplicationFailure.nonRetryable(reason, 'WEBHOOK_CONFIG_GONE');
      }

      const headers = webhookHeaders({ secrets: signingSecrets(config), id: delivery.id, body: delivery.payload, test: false });
      const outcome = await postWebhook({ url: config.endpoint, headers, body: delivery.payload, timeoutMs: settings.httpTimeoutMs, allowed: settings.allowed });
      const now = Date.now();
      const verdict = judgeAttempt(outcome, { retryAttempt, runStartedAt: new Date(delivery.run_started_at), now, settings });
      await recordAttempt(deps.db, attemptRecord({ deliveryId, retryAttempt, config, now }, outcome, verdict));
      const message = `webhook ${config.endpoint} answered ${outcome.statusCode}${verdict.error ? `: ${verdict.error}` : ''}`;
      if (verdict.status === 'to retry') {
        throw ApplicationFailure.create({ message, type: 'WEBHOOK_RETRYABLE', nextRetryDelay: verdict.retryAfter ? verdict.nextDelayMs : undefined });
      }
      if (verdict.status === 'failed') throw ApplicationFailure.nonRetryable(message, 'WEBHOOK_REJECTED');
      return { statusCode: outcome.statusCode };
    },

    /** Closes a delivery whose send activity failed outside an attempt (e.g. timed out); a success is never undone. */
    async markWebhookDeliveryFailed(deliveryId: string, reason: string): Promise<void> {
      await markDeliveryFailed(deps.db, deliveryId, reason);
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
