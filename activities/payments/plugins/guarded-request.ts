import http from 'node:http';
import https from 'node:https';
import { getConfig } from '../../../lib/config';
import { checkEndpointUrl, guardedLookup } from '../../../lib/webhooks/ssrf';
import { tracedHttpCall } from '../../../lib/tracing';

/** Only this much of a provider's answer is read: a provider cannot make the worker buffer without bound. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * One HTTP exchange with a payment provider, under the same SSRF guard as webhook deliveries: the resolved address is
 * vetted at connect time (loopback, private, link-local/metadata and other special ranges are refused unless
 * WEBHOOKS_ALLOWED_CIDRS allows them), redirects are not followed, and the whole exchange is bounded by `timeoutMs`.
 * @throws an Error with code EBLOCKEDADDRESS for a refused address (a retry cannot succeed); other Errors for network
 *   failures and timeouts.
 */
export const isBlockedAddress = (error: unknown): boolean => (error as { code?: string } | null)?.code === 'EBLOCKEDADDRESS';

export function guardedRequest(
  url: string,
  options: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number },
): Promise<{ status: number; text: string }> {
  return tracedHttpCall(
    options.method,
    url,
    () => sendRequest(url, options),
    (answer) => answer.status,
  );
}

function sendRequest(
  url: string,
  options: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number },
): Promise<{ status: number; text: string }> {
  // The same allow list as webhook deliveries: one operator setting for every outbound call the platform makes.
  const allowed = getConfig().webhooksAllowedCidrs;
  const refusal = checkEndpointUrl(url, allowed);
  if (refusal) return Promise.reject(Object.assign(new Error(refusal), { code: 'EBLOCKEDADDRESS' }));
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const body = options.body === undefined ? undefined : Buffer.from(options.body, 'utf8');
    const request = (target.protocol === 'https:' ? https : http).request(target, {
      method: options.method,
      headers: { ...options.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
      lookup: guardedLookup(allowed) as any,
      agent: false,
    });
    const timer = setTimeout(() => request.destroy(new Error(`no complete answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) request.destroy(new Error('provider answer larger than 16 MiB'));
        else chunks.push(chunk);
      });
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
      });
      response.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(body);
  });
}

/**
 * The same guard for a provider's own client library (Stripe's): an agent whose lookups refuse what WEBHOOKS_ALLOWED_CIDRS
 * does not allow, and the check of the endpoint itself (an IP literal is never looked up).
 * @throws an Error with code EBLOCKEDADDRESS for a refused endpoint.
 */
export function guardedAgent(endpoint: string): http.Agent {
  const allowed = getConfig().webhooksAllowedCidrs;
  const refusal = checkEndpointUrl(endpoint, allowed);
  if (refusal) throw Object.assign(new Error(refusal), { code: 'EBLOCKEDADDRESS' });
  const options = { keepAlive: true, lookup: guardedLookup(allowed) as any };
  return new URL(endpoint).protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
}
