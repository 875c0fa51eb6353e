import { createHmac, randomBytes } from 'node:crypto';

/**
 * Webhook secrets and signatures. A secret is standard base64 of 24 to 64 random bytes, optionally `whsec_`-prefixed
 * (Standard Webhooks' display form). Two key conventions coexist:
 * - Standard Webhooks (and its `standardwebhooks` libraries) key the HMAC with the base64-DECODED bytes;
 * - Formance keys it with the bytes of the secret STRING itself.
 * Each request therefore carries one `v1,` signature per convention (and per secret during a rotation); a verifier
 * accepts the request when any entry matches, and extra entries do not weaken it (Standard Webhooks spec).
 */

const STANDARD_BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A fresh secret: 24 random bytes, base64 (32 characters), as Formance generates them. */
export function generateSecret(): string {
  return randomBytes(24).toString('base64');
}

/** @returns why `secret` is not acceptable, or undefined when it is. */
export function secretProblem(secret: string): string | undefined {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (!STANDARD_BASE64.test(encoded) || encoded.length % 4 !== 0 || Buffer.from(encoded, 'base64').toString('base64') !== encoded) {
    return 'secret should be standard base64 (optionally prefixed with whsec_)';
  }
  const size = Buffer.from(encoded, 'base64').length;
  if (size < 24 || size > 64) return `decoded secret should be 24 to 64 bytes, got ${size}`;
  return undefined;
}

const hmac = (key: Buffer, content: string) => createHmac('sha256', key).update(content, 'utf8').digest('base64');

/** `v1,<std> v1,<formance>` for each secret: the value of both `webhook-signature` and `formance-webhook-signature`. */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  const content = `${id}.${timestamp}.${body}`;
  return secrets
    .flatMap((secret) => {
      const decoded = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
      return [`v1,${hmac(decoded, content)}`, `v1,${hmac(Buffer.from(secret, 'utf8'), content)}`];
    })
    .join(' ');
}

/** Every header of a webhook request, Standard Webhooks' and Formance's, for one attempt. */
export function webhookHeaders(input: { secrets: string[]; id: string; body: string; test: boolean; now?: Date }): Record<string, string> {
  const timestamp = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const signature = signatureHeader(input.secrets, input.id, timestamp, input.body);
  return {
    'content-type': 'application/json',
    'user-agent': 'financial-platform-webhooks/1',
    'webhook-id': input.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature,
    'formance-webhook-id': input.id,
    'formance-webhook-idempotency-key': input.id,
    'formance-webhook-timestamp': String(timestamp),
    'formance-webhook-signature': signature,
    'formance-webhook-test': String(input.test),
  };
}
