import { randomUUID } from 'node:crypto';
import { Context, ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../../db/knex';
import type { EventEnvelope } from '../../db/events/envelope';
import { getConfigRow, presentConfig, signingSecrets, type WebhookConfigRow } from '../../db/webhooks/configs';
import { markDeliveryFailed, planDeliveries, recordAttempt, type DeliveryRow } from '../../db/webhooks/deliveries';
import { NO_RETRY, type WebhookAttempt } from '../../db/webhooks/attempts';
import { isApiError } from '../../lib/errors';
import { backoffDelayMs, deliveryPlan, loadWebhookSettings, type DeliveryPlan, type WebhookSettings } from '../../lib/webhooks/settings';
import { webhookHeaders } from '../../lib/webhooks/signature';
import { classifyOutcome, postWebhook } from './http-send';

export type { DeliveryPlan };

/** Retry-After is honoured up to this long; beyond, the regular schedule applies. */
const MAX_RETRY_AFTER_MS = 6 * 3600_000;

export function createWebhookActivities(deps: { db: Db; settings?: WebhookSettings }) {
  const settings = deps.settings ?? loadWebhookSettings();

  return {
    /** Creates (idempotently) one delivery per subscribed active config. */
    async planWebhookDeliveries(event: EventEnvelope): Promise<DeliveryPlan[]> {
      const deliveries = await planDeliveries(deps.db, event);
      return deliveries.map((d) => deliveryPlan(settings, d.deliveryId, d.configId));
    },

    /**
     * One attempt of one delivery. Temporal retries this activity: a retryable outcome throws a retryable failure
     * (with Retry-After as the next delay), a final one a non-retryable failure. The attempt is recorded first, so
     * the database shows every try even though Temporal owns the schedule.
     */
    async sendWebhook(deliveryId: string): Promise<{ statusCode: number }> {
      const retryAttempt = Context.current().info.attempt - 1;
      const delivery = await deps.db<DeliveryRow>('webhook_deliveries').where({ id: deliveryId }).first();
      if (!delivery) throw ApplicationFailure.nonRetryable(`delivery ${deliveryId} does not exist`, 'WEBHOOK_DELIVERY_GONE');
      if (delivery.status === 'success' || delivery.status === 'failed') return { statusCode: delivery.last_status_code ?? 0 };
      const config = await deps.db<WebhookConfigRow>('webhook_configs').where({ id: delivery.config_id }).first();
      if (!config || !config.active) {
        const reason = config ? 'the config was deactivated' : 'the config was deleted';
        await markDeliveryFailed(deps.db, deliveryId, reason);
        throw ApplicationFailure.nonRetryable(reason, 'WEBHOOK_CONFIG_GONE');
      }

      const headers = webhookHeaders({ secrets: signingSecrets(config), id: delivery.id, body: delivery.payload, test: false });
      const outcome = await postWebhook({ url: config.endpoint, headers, body: delivery.payload, timeoutMs: settings.httpTimeoutMs, allowed: settings.allowed });
      let verdict = classifyOutcome(outcome);
      let nextDelayMs: number | undefined;
      let error = outcome.error;
      if (verdict === 'retry') {
        nextDelayMs = outcome.retryAfterMs !== undefined ? Math.min(outcome.retryAfterMs, MAX_RETRY_AFTER_MS) : backoffDelayMs(settings, retryAttempt + 1);
        if (Date.now() + nextDelayMs - new Date(delivery.run_started_at).getTime() > settings.retryForMs) {
          verdict = 'final';
          error = `${error ?? `status ${outcome.statusCode}`}; retries exhausted`;
        }
      }
      const status = verdict === 'success' ? 'success' : verdict === 'retry' ? 'to retry' : 'failed';
      await recordAttempt(deps.db, {
        deliveryId,
        retryAttempt,
        statusCode: outcome.statusCode,
        status,
        error,
        config,
        nextRetryAfter: nextDelayMs !== undefined && verdict === 'retry' ? new Date(Date.now() + nextDelayMs) : undefined,
        durationMs: outcome.durationMs,
      });
      const message = `webhook ${config.endpoint} answered ${outcome.statusCode}${error ? `: ${error}` : ''}`;
      if (verdict === 'retry') {
        throw ApplicationFailure.create({ message, type: 'WEBHOOK_RETRYABLE', nextRetryDelay: outcome.retryAfterMs !== undefined ? nextDelayMs : undefined });
      }
      if (verdict === 'final') throw ApplicationFailure.nonRetryable(message, 'WEBHOOK_REJECTED');
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
      const body = JSON.stringify({ data: 'test' });
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
