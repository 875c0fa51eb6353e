import type Koa from 'koa';
import { ApiError } from '../../lib/errors';
import { translateDbError } from '../../db/errors';
import { stringifyJson } from '../../lib/json';

/** Errors from Koa's own stack (body parser, router) carry `status`/`expose` like http-errors. */
interface HttpLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
  type?: string;
  headers?: Record<string, string>;
}

const CODE_BY_STATUS: Record<number, string> = {
  400: 'VALIDATION',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

/** The single error-to-HTTP mapping: every failure leaves as `{errorCode, errorMessage, details?, errorDetails?}`. */
export function toApiError(error: unknown): ApiError {
  const translated = translateDbError(error);
  if (translated instanceof ApiError) return translated;
  const http = (typeof error === 'object' && error !== null ? error : {}) as HttpLikeError;
  const status = http.status ?? http.statusCode;
  if (status && status >= 400 && status < 500 && http.expose !== false) {
    const message = http.type === 'entity.too.large' ? 'request body is larger than the 1 MiB limit' : (http.message ?? 'bad request');
    return new ApiError(CODE_BY_STATUS[status] ?? 'VALIDATION', message, { status, headers: http.headers });
  }
  return new ApiError('INTERNAL', 'internal error; the request id in X-Request-Id locates the cause in the logs', { cause: error });
}

/**
 * Answers a failed request with its error: status, headers and `{errorCode, errorMessage}`, plus the error's facts.
 * Formance's error bodies have `details` as a string, which its SDK checks: text goes there, and structured facts
 * (the bulk element's index, the log an import refused, what an insufficient-funds refusal lacked) go in
 * `errorDetails`, so the SDK still reads every error.
 */
export function respondWithError(ctx: Koa.Context, error: unknown): void {
  const apiError = toApiError(error);
  if (apiError.status >= 500) ctx.state.logger?.error({ err: apiError.cause ?? apiError, code: apiError.code }, 'request failed');
  ctx.status = apiError.status;
  for (const [name, value] of Object.entries(apiError.headers)) ctx.set(name, value);
  ctx.type = 'application/json';
  const body: Record<string, unknown> = { errorCode: apiError.code, errorMessage: apiError.message };
  if (typeof apiError.details === 'string') body.details = apiError.details;
  else if (apiError.details !== undefined) body.errorDetails = apiError.details;
  ctx.body = stringifyJson(body);
}
