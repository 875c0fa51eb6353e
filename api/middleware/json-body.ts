import type Koa from 'koa';
import { koaBody } from 'koa-body';
import { ApiError, validationError } from '../../lib/errors';
import { MAX_JSON_DEPTH, parseJson, stringifyJson } from '../../lib/json';

export const MAX_BODY_BYTES = 1024 * 1024;
const JSON_TYPES = ['application/json', 'application/*+json'];
// Bodies their route reads as a stream: a ledger log import, newline-delimited JSON (Formance's SDK sends it as
// application/octet-stream), which can be far larger than a JSON body.
const STREAMED_BODY_PATH = /^\/api\/ledger\/v2\/[^/]+\/logs\/import$/;
const STREAMED_BODY_TYPES = ['application/octet-stream', 'application/x-ndjson'];
const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];
// Bodies kept as the text received, unparsed (`ctx.state.rawBody`): a provider's signed webhook, whose signature covers
// those exact bytes (and whose JSON may hold fractions, which request bodies refuse).
const RAW_BODY_PATH = /^\/api\/payments\/v3\/connectors\/webhooks\/[^/]+$/;
// Formance's ledger v2 lists read their filter from a GET body too (fctl and SDKs before v7 send it there).
const GET_FILTER_PATH = /^\/api\/ledger\/v2\//;

/**
 * Reads JSON request bodies (koa-body enforces the 1 MiB limit and hands over the raw text) and parses them without
 * losing digits of big integers. A body of any other media type is a 415; an empty body means "no body".
 * Response bodies are written by writeJsonBody, once the routes are done.
 */
export function jsonBody(): Koa.Middleware {
  // koa-body hands over the raw text (within the 1 MiB limit) of the methods it is given; parsing is ours.
  const textReader = (methods: string[]) =>
    koaBody({
      json: false,
      urlencoded: false,
      multipart: false,
      text: true,
      textTypes: JSON_TYPES,
      textLimit: MAX_BODY_BYTES,
      parsedMethods: methods,
    } as Parameters<typeof koaBody>[0]);
  const readBodyText = textReader(BODY_METHODS);
  const readGetBodyText = textReader(['GET']);
  const sendsBody = (ctx: Koa.Context) => Number(ctx.get('Content-Length') || 0) > 0 || ctx.get('Transfer-Encoding') !== '';

  /** A GET body on a ledger route: its JSON filter, kept for `validate` (an empty body or `{}` is no filter). */
  function parseGetFilter(ctx: Koa.Context, next: Koa.Next) {
    if (!ctx.is(JSON_TYPES))
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `request bodies must be application/json, got "${ctx.get('Content-Type') || 'none'}"`);
    const text = ctx.request.body;
    ctx.request.body = undefined;
    if (typeof text === 'string' && text.trim() !== '') {
      let filter: unknown;
      try {
        filter = parseJson(text, { maxDepth: MAX_JSON_DEPTH, integersOnly: true });
      } catch (error) {
        throw validationError(`body: malformed JSON (${(error as Error).message})`);
      }
      if (filter === null || typeof filter !== 'object' || Array.isArray(filter))
        throw validationError("body: a list's filter must be a JSON object");
      if (Object.keys(filter).length > 0) ctx.state.bodyFilter = filter;
    }
    return next();
  }

  // Not async: it has nothing to do once the routes are done (request-context.ts writes the response body).
  function parseBody(ctx: Koa.Context, next: Koa.Next) {
    const hasBody = BODY_METHODS.includes(ctx.method) && (Number(ctx.get('Content-Length') || 0) > 0 || ctx.get('Transfer-Encoding') !== '');
    if (hasBody && ctx.method === 'POST' && STREAMED_BODY_PATH.test(ctx.path) && ctx.is(STREAMED_BODY_TYPES)) {
      ctx.request.body = undefined;
    } else if (hasBody) {
      if (!ctx.is(JSON_TYPES)) {
        throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `request bodies must be application/json, got "${ctx.get('Content-Type') || 'none'}"`);
      }
      const text = ctx.request.body;
      if (ctx.method === 'POST' && RAW_BODY_PATH.test(ctx.path)) {
        ctx.state.rawBody = typeof text === 'string' ? text : undefined;
        ctx.request.body = undefined;
      } else if (typeof text === 'string' && text.trim() !== '') {
        try {
          ctx.request.body = parseJson(text, { maxDepth: MAX_JSON_DEPTH, integersOnly: true }) as typeof ctx.request.body;
        } catch (error) {
          throw validationError(`body: malformed JSON (${(error as Error).message})`);
        }
      } else {
        ctx.request.body = undefined;
      }
    } else {
      ctx.request.body = undefined;
    }
    return next();
  }

  // koa-body would look at a GET and let it through; not entering it spares the hottest reads two middleware calls.
  return function readJsonBody(ctx, next) {
    if (BODY_METHODS.includes(ctx.method)) return readBodyText(ctx, () => parseBody(ctx, next));
    ctx.request.body = undefined;
    if (ctx.method === 'GET' && GET_FILTER_PATH.test(ctx.path) && sendsBody(ctx)) return readGetBodyText(ctx, () => parseGetFilter(ctx, next));
    return next();
  };
}

/**
 * Writes a response body that is an object (not a Buffer or a stream) as JSON, as the request bodies are read: a BigInt
 * amount leaves as a plain JSON number, digit for digit. A JSON media type already set is kept (the issuer's key set
 * is `application/jwk-set+json`); any other becomes application/json.
 */
export function writeJsonBody(ctx: Koa.Context): void {
  if (
    ctx.body !== null &&
    typeof ctx.body === 'object' &&
    !Buffer.isBuffer(ctx.body) &&
    typeof (ctx.body as { pipe?: unknown }).pipe !== 'function'
  ) {
    if (!ctx.response.is('json', '+json')) ctx.type = 'application/json';
    ctx.body = stringifyJson(ctx.body);
  }
}
