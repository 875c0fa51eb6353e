import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { Logger } from '../../lib/logger';

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
  ) {}

  get logger(): Logger {
    return (this.child ??= this.base.child({ requestId: this.requestId }));
  }
}

/**
 * Gives each request an id (the caller's X-Request-Id when it is safe to echo, a UUID otherwise), a logger carrying
 * it, and one access-log line. Bodies and headers are never logged: they carry secrets and tokens.
 */
export function requestContext(logger: Logger): Koa.Middleware {
  return async function requestContextMiddleware(ctx, next) {
    const incoming = ctx.get('X-Request-Id');
    const requestId = SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const state = new RequestState(requestId, logger);
    ctx.state = state;
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      if (logger.isLevelEnabled('info')) {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        state.logger.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
      }
    }
  };
}
