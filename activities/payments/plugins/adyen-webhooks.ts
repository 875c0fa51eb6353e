import crypto from 'node:crypto';
import type { Types } from '@adyen/api-library';
import { parseJson } from '../../../lib/json';
import type { WebhookEvent, WebhookRequest, WebhookVerdict } from '../../../areas/payments';
import type { AdyenConfig } from './adyen-connector';
import { adyenItemKey, adyenNotificationPayment } from './adyen-mapping';

type NotificationRequestItem = Types.notification.NotificationRequestItem;

/** A refusal of the notification, answered by the webhook route (401 or 400) with nothing stored. */
class Refusal extends Error {
  constructor(
    readonly refused: 'UNAUTHORIZED' | 'VALIDATION',
    message: string,
  ) {
    super(message);
  }
}
const unauthorized = (message: string) => new Refusal('UNAUTHORIZED', message);
const invalid = (message: string) => new Refusal('VALIDATION', message);

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
    throw invalid('body: not JSON');
  }
  const items = body?.notificationItems;
  if (!Array.isArray(items) || items.length === 0) throw invalid('body.notificationItems: a non-empty array is required');
  return items.map((container: any, i: number) => {
    const item = container?.NotificationRequestItem;
    if (!item || typeof item !== 'object' || typeof item.pspReference !== 'string' || typeof item.eventCode !== 'string')
      throw invalid(`body.notificationItems[${i}].NotificationRequestItem: needs pspReference and eventCode`);
    return item as NotificationRequestItem;
  });
}

/**
 * Verifies one Adyen standard notification (Formance's TRANSLATE_WEBHOOKS): basic auth first (the credentials set on
 * the webhook at registration), then every item's `additionalData.hmacSignature` with Adyen's library against the HMAC
 * key Adyen generated for the connector's webhook. One item failing refuses the whole notification (401, nothing
 * stored): Adyen then delivers it again, and a batch is never half applied. Each item is an event under its key (event
 * code, PSP reference, outcome), so a redelivery changes nothing.
 */
export async function verifyAdyenWebhook(request: WebhookRequest): Promise<WebhookVerdict> {
  try {
    return { events: await verifiedItems(request) };
  } catch (error) {
    if (error instanceof Refusal) return { refused: error.refused, message: error.message };
    throw error;
  }
}

async function verifiedItems(request: WebhookRequest): Promise<WebhookEvent[]> {
  const config = request.config as unknown as AdyenConfig;
  checkBasicAuth(config, request.header('Authorization'));
  const payload = request.rawBody;
  if (payload === undefined) throw unauthorized('a notification must have a body');
  const keys = request.secrets;
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
  return items.map((item) => {
    try {
      const payment = adyenNotificationPayment(item);
      return { id: adyenItemKey(item), type: String(item.eventCode), payments: payment ? [payment] : [] };
    } catch (error) {
      throw invalid(`body: ${(error as Error).message}`);
    }
  });
}
