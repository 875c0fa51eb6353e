import { parseJson, stringifyJson } from '../../../lib/json';
import type { GenericConfig } from './generic-connector';
import type { Logger } from '../../../lib/logger';
import { durationMs } from '../../../areas/payments';
import { guardedRequest, isBlockedAddress } from './guarded-request';
import { invalidData, providerRejected, type ConnectorPlugin } from './plugin';
import { parseAccount, parseAccounts, parseBalances, parsePayment, parsePayments } from './provider-data';

const MAX_LOGGED_BODY = 2000;

/**
 * The generic HTTP connector: any provider implementing the small REST contract in docs/payments.md ("Generic
 * HTTP connector"). Each request is bounded by the config's timeout and goes through the SSRF guard of webhook
 * deliveries (guarded-request.ts). A 4xx other than 408/429 is a definitive refusal
 * (not retried); 5xx, 408, 429, timeouts and network errors are thrown as plain errors, which Temporal retries. Writes
 * send an Idempotency-Key so a retried transfer is not executed twice by the provider.
 *
 * A provider's error body never reaches a failure message: those become schedule, task and initiation errors that any
 * `payments:read` client reads, and a body can hold what the provider says about its account, its other customers or
 * the platform's credentials. The message names the status and the operation; the body (its first
 * MAX_LOGGED_BODY characters) goes to the worker's log, for the operator.
 */
export function genericHttpPlugin(config: GenericConfig, logger?: Pick<Logger, 'warn'>): ConnectorPlugin {
  const timeoutMs = durationMs(config.timeout, 'timeout', 100, 60_000);

  async function call(method: 'GET' | 'POST', path: string, body?: unknown, idempotencyKey?: string): Promise<any> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (config.apiKey) headers.Authorization = `Bearer ${config.apiKey}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
    const { status, text } = await guardedRequest(`${config.endpoint}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : stringifyJson(body),
      timeoutMs,
    }).catch((error: Error) => {
      // A refused address stays refused: failing at once beats retrying for the life of the workflow.
      throw isBlockedAddress(error) ? providerRejected(error.message) : error;
    });
    // The path without its query: a cursor is the provider's data too.
    const operation = `${method} ${path.split('?')[0]}`;
    if (status < 200 || status >= 300) {
      logger?.warn(
        { connector: config.name, operation, status, providerBody: text.slice(0, MAX_LOGGED_BODY) },
        'payments provider answered an error',
      );
      const message = `provider answered ${status} to ${operation}`;
      if (status >= 400 && status < 500 && status !== 408 && status !== 429) throw providerRejected(message);
      throw new Error(message);
    }
    try {
      return parseJson(text);
    } catch {
      throw invalidData(`provider answered ${operation} with invalid JSON`);
    }
  }

  /** Lists follow `next` (an opaque cursor passed back as `?cursor=`) until the provider gives none. */
  async function list(path: string): Promise<unknown[]> {
    const all: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10_000; page++) {
      const body = await call('GET', cursor ? `${path}?cursor=${encodeURIComponent(cursor)}` : path);
      if (!body || !Array.isArray(body.data)) throw invalidData(`GET ${path}: expected {data: [...]}`);
      all.push(...body.data);
      cursor = typeof body.next === 'string' && body.next !== '' ? body.next : undefined;
      if (!cursor) return all;
    }
    throw invalidData(`GET ${path}: too many pages`);
  }

  return {
    fetchAccounts: async () => parseAccounts(await list('/accounts'), 'GET /accounts'),
    fetchBalances: async () => parseBalances(await list('/balances'), 'GET /balances'),
    fetchPayments: async () => parsePayments(await list('/payments'), 'GET /payments'),
    async initiatePayment(request) {
      const { idempotencyKey, type, ...body } = request;
      const answer = await call('POST', type === 'TRANSFER' ? '/transfers' : '/payouts', body, idempotencyKey);
      return parsePayment(answer?.data ?? {}, `POST /${type === 'TRANSFER' ? 'transfers' : 'payouts'}`);
    },
    async createBankAccount(request) {
      const answer = await call('POST', '/accounts', request, request.reference);
      return parseAccount(answer?.data ?? {}, 'POST /accounts');
    },
  };
}
