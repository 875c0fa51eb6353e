import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { Logger } from '../../lib/logger';
import type { ApiError } from '../../lib/errors';
import { metrics, secondsSince } from '../../lib/metrics';
import { runInContext, SpanStatusCode, startServerSpan, tracingEnabled, type Span } from '../../lib/tracing';
import type { AuditTrail } from '../audit';
import { secureHtmlAnswer } from '../html';
import { respondWithError } from './error-handler';
import { writeJsonBody } from './json-body';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A request's state, whose logger carrying the request id is made on first use: most requests log nothing below the
 * configured level, and a child logger per request was a measurable share of a read by id.
 */
class RequestState {
  private child: Logger | undefined;

  constructor(
    readonly requestId: string,
    private readonly base: Logger,
    /** The request's trace id when tracing is on: on every log line of the request, next to its request id. */
    readonly traceId?: string,
  ) {}

  get logger(): Logger {
    return (this.child ??= this.base.child(this.traceId ? { requestId: this.requestId, traceId: this.traceId } : { requestId: this.requestId }));
  }
}

/**
 * The outermost middleware, around everything a request goes through (the issuer's mounts, the body parser, the
 * routers). It gives the request an id (the caller's X-Request-Id when it is safe to echo, a UUID otherwise) and a
 * logger carrying it; answers a request no route took with `unmatched`'s error; writes an object body as JSON; turns
 * any failure into the one error answer (error-handler.ts); sets the browser security headers (nosniff on every answer,
 * so a JSON body is never sniffed into a page; CSP, no framing and no Referer on every HTML page, see html.ts); and
 * writes one access-log line. Bodies and headers are
 * never logged: they carry secrets and tokens. One async frame for all of it: each frame is a promise and a microtask
 * more on every request, and the hottest reads cost a few dozen microseconds in all.
 */
export function requestLifecycle(logger: Logger, unmatched: (ctx: Koa.Context) => ApiError, audit?: AuditTrail): Koa.Middleware {
  const traced = tracingEnabled();
  return async function handleRequest(ctx, next) {
    const incoming = ctx.req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    // The server span, child of the caller's traceparent when valid; the request id is its attribute, so a request's
    // id (in its answer's X-Request-Id, its error body and its audit record) finds its trace and the other way round.
    const server = traced
      ? startServerSpan(ctx.method, ctx.req.headers, { 'http.request.method': ctx.method, 'url.path': ctx.path, 'request.id': requestId })
      : undefined;
    const state = new RequestState(requestId, logger, server?.span.spanContext().traceId);
    ctx.state = state;
    ctx.set('X-Request-Id', requestId);
    ctx.set('X-Content-Type-Options', 'nosniff');
    const started = process.hrtime.bigint();
    try {
      await (server ? runInContext(server.context, next) : next());
      if (ctx.status === 404 && ctx.body === undefined) throw unmatched(ctx);
      writeJsonBody(ctx);
    } catch (error) {
      respondWithError(ctx, error);
    } finally {
      // Whatever wrote the page (a route, the issuer's error page, Koa's redirect body), once the answer is final.
      if (ctx.response.type === 'text/html') secureHtmlAnswer(ctx);
      const seconds = secondsSince(started);
      const route = routeLabel(ctx);
      const series = httpSeries(ctx.method, route, ctx.status);
      series.requests.inc();
      series.duration.observe(seconds);
      audit?.record(ctx, seconds * 1000);
      if (logger.isLevelEnabled('info')) {
        state.logger.info({ method: ctx.method, path: ctx.path, route, status: ctx.status, ms: Math.round(seconds * 1e4) / 10 }, 'request');
      }
      if (server) endServerSpan(server.span, ctx.method, route, ctx.status);
    }
  };
}

/** Names the span after its route template (OTel HTTP conventions: `{method} {http.route}`) once the route is known. */
function endServerSpan(span: Span, method: string, route: string, status: number): void {
  span.updateName(`${method} ${route}`);
  span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

type HttpSeries = { requests: ReturnType<typeof metrics.httpRequests.labels>; duration: ReturnType<typeof metrics.httpDuration.labels> };
const seriesByKey = new Map<string, HttpSeries>();

/**
 * The counter and histogram children of one (method, route, status), made once: labelling on each call hashes the
 * labels every time, a measurable share of a read that costs the API ~20 us. Bounded as the labels are.
 */
function httpSeries(method: string, route: string, status: number): HttpSeries {
  const key = `${method} ${status} ${route}`;
  let series = seriesByKey.get(key);
  if (!series) {
    const labels = { method, route, status: String(status) };
    seriesByKey.set(key, (series = { requests: metrics.httpRequests.labels(labels), duration: metrics.httpDuration.labels(labels) }));
  }
  return series;
}

/** The embedded issuer's endpoints, which no route definition declares; any other path it answers is `(other)`. */
const ISSUER_ROUTES = new Set([
  '/api/auth/oauth/token',
  '/api/auth/oauth/revoke',
  '/api/auth/oauth/authorize',
  '/api/auth/jwks',
  '/api/auth/.well-known/openid-configuration',
  '/metrics',
]);

/**
 * The route label of a request's metrics: the matched route's template (`/api/ledger/v2/:ledger/transactions/:id`),
 * never the raw path, so the number of series stays bounded whatever clients send.
 */
export function routeLabel(ctx: Koa.Context): string {
  // First: the issuer's own router (mounted under /api/auth) leaves its template relative to the mount.
  if (ISSUER_ROUTES.has(ctx.path)) return ctx.path;
  const template = (ctx as Koa.Context & { routerPath?: string }).routerPath;
  if (template) return template;
  return ctx.status === 404 || ctx.status === 405 ? '(unmatched)' : '(other)';
}
