import http from 'node:http';
import { getConfig, type Config } from '../lib/config';
import { answerClientErrors } from './client-errors';

export interface HttpTimeouts {
  /** How long an idle keep-alive connection is kept open (HTTP_KEEP_ALIVE_TIMEOUT_MS). */
  keepAliveTimeout: number;
  /** How long a request's headers may take to arrive, from its first byte (HTTP_HEADERS_TIMEOUT_MS). */
  headersTimeout: number;
  /** How long a whole request may take to arrive (HTTP_REQUEST_TIMEOUT_MS). */
  requestTimeout: number;
}

/**
 * The API's HTTP timeouts. The keep-alive timeout must exceed the idle timeout of whatever reuses connections to the
 * API: a load balancer (AWS ALB: 60 s) or a client. Otherwise the API closes an idle connection at the moment the
 * other side sends a request on it, which the client sees as a reset (`other side closed`) and a load balancer as a
 * 502. Hence 65 s. The headers timeout does not need to exceed it on Node 18+ (it runs from a request's first byte,
 * not over the idle time; test/integration/foundation/keep-alive.test.ts checks this), so it stays short against
 * slow-header clients. lib/config.ts checks them (positive, the headers timeout within the request timeout).
 */
export function httpTimeouts(
  config: Pick<Config, 'httpKeepAliveTimeoutMs' | 'httpHeadersTimeoutMs' | 'httpRequestTimeoutMs'> = getConfig(),
): HttpTimeouts {
  return {
    keepAliveTimeout: config.httpKeepAliveTimeoutMs,
    headersTimeout: config.httpHeadersTimeoutMs,
    requestTimeout: config.httpRequestTimeoutMs,
  };
}

/**
 * The API's HTTP server: bounded header size and the timeouts above, so slow or oversized clients cannot hold
 * connections forever, and parser errors answered in JSON. `connectionsCheckingInterval` (how often Node enforces the
 * headers and request timeouts; 30 s by default) is only shortened by tests.
 */
export function createHttpServer(
  handler: http.RequestListener,
  timeouts: HttpTimeouts = httpTimeouts(),
  options: { connectionsCheckingInterval?: number } = {},
): http.Server {
  const server = http.createServer(
    { maxHeaderSize: 16 * 1024, headersTimeout: timeouts.headersTimeout, requestTimeout: timeouts.requestTimeout, ...options },
    handler,
  );
  server.keepAliveTimeout = timeouts.keepAliveTimeout;
  answerClientErrors(server);
  return server;
}
