import crypto from 'node:crypto';
import type { Types } from '@adyen/api-library';
import { ApiError, notFound, validationError } from '../../../lib/errors';
import { parseJson } from '../../../lib/json';
import { inTransaction } from '../../../db/errors';
import type { Db } from '../../../db/knex';
import { upsertPayments } from '../payments/payments-upsert';
import type { AdyenConfig } from './connector-config';
import { getConnectorState } from './connector-states';
import { getConnectorRow, lockInstalledConnector } from './connectors';
import { adyenItemKey, adyenNotificationPayment } from './adyen-mapping';
import type { ProviderPayment } from '../payments/payments';

type NotificationRequestItem = Types.notification.NotificationRequestItem;

/** What the install task stores under the `webhooks` state for Adyen: the company webhook and its HMAC key. */
export interface AdyenWebhooksState {
  url: string;
  endpoints: Array<{ id: string; connect: boolean; secret?: string }>;
}

const unauthorized = (message: string) => new ApiError('UNAUTHORIZED', message);

/** Constant-time equality of two strings (a mismatch must not say how much of a credential was right). */
function sameSecret(given: string, expected: string): boolean {
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

/**
 * Basic auth as Formance checks it: with credentials configured, the notification must carry exactly them; without,
 * it must carry none.
 */
function checkBasicAuth(config: AdyenConfig, authorization: string | undefined): void {
  if (!config.webhookUsername) {
    if (authorization) throw unauthorized('this connector has no webhook credentials; the notification must carry none');
    return;
  }
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(authorization ?? '');
  if (!match) throw unauthorized('missing basic auth (Authorization: Basic …)');
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  const user = separator < 0 ? decoded : decoded.slice(0, separator);
  const password = separator < 0 ? '' : decoded.slice(separator + 1);
  // Both compared, always: the answer does not depend on which one was wrong.
  const userOk = sameSecret(user, config.webhookUsername);
  const passwordOk = sameSecret(password, config.webhookPassword ?? '');
  if (!(userOk && passwordOk)) throw unauthorized('wrong basic auth credentials');
}

/** The items of a standard notification (`{live, notificationItems: [{NotificationRequestItem}]}`). Throws VALIDATION. */
function notificationItems(payload: string): NotificationRequestItem[] {
  let body: any;
  try {
    body = parseJson(payload, { maxDepth: 64 });
  } catch {
    throw validationError('body: not JSON');
  }
  const items = body?.notificationItems;
  if (!Array.isArray(items) || items.length === 0) throw validationError('body.notificationItems: a non-empty array is required');
  return items.map((container: any, i: number) => {
    const item = container?.NotificationRequestItem;
    if (!item || typeof item !== 'object' || typeof item.pspReference !== 'string' || typeof item.eventCode !== 'string')
      throw validationError(`body.notificationItems[${i}].NotificationRequestItem: needs pspReference and eventCode`);
    return item as NotificationRequestItem;
  });
}

/**
 * Receives one Adyen standard notification for a connector (Formance's TRANSLATE_WEBHOOKS): basic auth first (the
 * credentials set on the webhook at registration), then every item's `additionalData.hmacSignature` with Adyen's
 * library against the HMAC key Adyen generated for the connector's webhook. One item failing refuses the whole
 * notification (401, nothing stored): Adyen then delivers it again, and a batch is never half applied. Each verified
 * item is applied once, in one transaction, under its key (event code, PSP reference, outcome): a redelivery changes
 * nothing. Throws NOT_FOUND (unknown, uninstalled or not an Adyen connector), UNAUTHORIZED, VALIDATION.
 */
export async function receiveAdyenWebhook(
  db: Db,
  connectorID: string,
  payload: string | undefined,
  authorization: string | undefined,
): Promise<{ items: number; applied: number; changed: number }> {
  const row = await getConnectorRow(db, connectorID, { installed: true });
  if (row.provider !== 'adyen') throw notFound(`connector ${connectorID} does not receive Adyen notifications`);
  const config = row.config as AdyenConfig;
  checkBasicAuth(config, authorization);
  if (payload === undefined) throw unauthorized('a notification must have a body');
  const state = await getConnectorState<AdyenWebhooksState>(db, connectorID, 'webhooks');
  const keys = (state?.endpoints ?? []).map((e) => e.secret).filter((s): s is string => Boolean(s));
  if (keys.length === 0) throw unauthorized('no HMAC key is known for this connector (its webhook is not registered)');
  const items = notificationItems(payload);
  // Adyen's library is large: loaded with the first notification, not when the API starts.
  const validator = new (await import('@adyen/api-library')).hmacValidator();
  items.forEach((item, i) => {
    const signature = item.additionalData?.hmacSignature;
    if (!signature) throw unauthorized(`notificationItems[${i}]: missing additionalData.hmacSignature`);
    const valid = keys.some((key) => {
      try {
        return validator.validateHMAC(item, key);
      } catch {
        return false; // a malformed key or signature is a mismatch
      }
    });
    if (!valid) throw unauthorized(`notificationItems[${i}]: hmacSignature does not match the item`);
  });
  const mapped: Array<{ key: string; type: string; payment?: ProviderPayment }> = items.map((item) => {
    try {
      return { key: adyenItemKey(item), type: String(item.eventCode), payment: adyenNotificationPayment(item) };
    } catch (error) {
      throw validationError(`body: ${(error as Error).message}`);
    }
  });
  return inTransaction(db, async (trx) => {
    if (!(await lockInstalledConnector(trx, connectorID))) throw notFound(`connector ${connectorID} not found or uninstalled`);
    let applied = 0;
    let changed = 0;
    for (const { key, type, payment } of mapped) {
      const claimed = await trx('payments_webhook_events')
        .insert({ connector_id: connectorID, event_id: key, type })
        .onConflict(['connector_id', 'event_id'])
        .ignore()
        .returning('event_id');
      if (claimed.length === 0) continue;
      applied += 1;
      if (payment) changed += (await upsertPayments(trx, connectorID, [payment])).changed;
    }
    return { items: items.length, applied, changed };
  });
}
