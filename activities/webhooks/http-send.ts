import http from 'node:http';
import https from 'node:https';
import type { BlockList } from 'node:net';
import { BlockedAddressError, checkEndpointUrl, guardedLookup } from '../../lib/webhooks/ssrf';
import { tracedHttpCall } from '../../lib/tracing';

export interface HttpOutcome {
  /** 0 when no response came back (refused, unreachable, timeout, blocked). */
  statusCode: number;
  error?: string;
  /** Retry-After of a 408/429/5xx response, in ms (seconds or HTTP-date form). */
  retryAfterMs?: number;
  /** Whether the address was refused by the SSRF guard: a retry cannot succeed. */
  blocked: boolean;
  durationMs: number;
}

/** Only this much of a response is read (and discarded): a receiver cannot make the worker buffer megabytes. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** Idle kept-alive sockets are closed after this, before the 5 s keep-alive timeout of Node and many servers. */
const IDLE_SOCKET_MS = 4000;

const agents = new WeakMap<BlockList, { 'http:': http.Agent; 'https:': https.Agent }>();

/**
 * Keep-alive agents, one pair per SSRF allow list: deliveries to an endpoint reuse its connections instead of opening
 * one per request, which at hundreds of deliveries per second costs more CPU than the requests themselves. The SSRF
 * guard is unaffected: it vets the address of every new connection (the request's `lookup`, run at connect time),
 * and a reused connection goes to the address vetted when it was opened.
 */
function agentFor(protocol: string, allowed: BlockList): http.Agent {
  let pair = agents.get(allowed);
  if (!pair) {
    const options = { keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' as const };
    pair = { 'http:': new http.Agent(options), 'https:': new https.Agent(options) };
    agents.set(allowed, pair);
  }
  return protocol === 'https:' ? pair['https:'] : pair['http:'];
}

function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * POSTs one webhook request. Never throws: every failure becomes an outcome. Redirects are not followed (a 3xx is
 * returned as is), the SSRF guard vets the address at connect time, and the whole exchange is bounded by `timeoutMs`.
 */
export function postWebhook(input: {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowed: BlockList;
}): Promise<HttpOutcome> {
  return tracedHttpCall(
    'POST',
    input.url,
    () => sendWebhook(input),
    (outcome) => outcome.statusCode,
  );
}

function sendWebhook(input: {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowed: BlockList;
}): Promise<HttpOutcome> {
  const started = Date.now();
  const done = (outcome: Omit<HttpOutcome, 'durationMs'>): HttpOutcome => ({ ...outcome, durationMs: Date.now() - started });
  const refusal = checkEndpointUrl(input.url, input.allowed);
  if (refusal) return Promise.resolve(done({ statusCode: 0, error: refusal, blocked: true }));

  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<HttpOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(outcome));
    };
    const url = new URL(input.url);
    const body = Buffer.from(input.body, 'utf8');
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      headers: { ...input.headers, 'content-length': String(body.length) },
      lookup: guardedLookup(input.allowed) as any,
      agent: agentFor(url.protocol, input.allowed),
    });
    const timer = setTimeout(() => request.destroy(new Error(`no complete response within ${input.timeoutMs} ms`)), input.timeoutMs);
    request.on('response', (response) => {
      let received = 0;
      const statusCode = response.statusCode ?? 0;
      const result = { statusCode, blocked: false, retryAfterMs: parseRetryAfter(response.headers['retry-after'], Date.now()) };
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > MAX_RESPONSE_BYTES) {
          finish(result);
          response.destroy();
        }
      });
      response.on('end', () => finish(result));
      response.on('error', () => finish(result));
    });
    request.on('error', (error) =>
      finish({
        statusCode: 0,
        error: error.message,
        blocked: error instanceof BlockedAddressError || (error as { code?: string }).code === 'EBLOCKEDADDRESS',
      }),
    );
    request.end(body);
  });
}

/** success: 2xx. retry: no response, 408, 429, 5xx. final: everything else (3xx, other 4xx, a blocked address). */
export function classifyOutcome(outcome: Pick<HttpOutcome, 'statusCode' | 'blocked'>): 'success' | 'retry' | 'final' {
  const code = outcome.statusCode;
  if (code >= 200 && code < 300) return 'success';
  if (outcome.blocked) return 'final';
  if (code === 0 || code === 408 || code === 429 || code >= 500) return 'retry';
  return 'final';
}
