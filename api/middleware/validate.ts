import { ApiError, validationError } from '../../lib/errors';
import { canonicalJson, parseJson, stringifyJson } from '../../lib/json';
import type { AppContext } from '../context';
import { DEFAULT_PAGE_SIZE, decodeCursor, type CursorScope, type ListRequest } from '../pagination';
import type { ChainMiddleware, JsonSchema, ValidateMiddleware } from '../routing';
import type { BodyOf, Paginated, ParamOf } from '../schemas/common';
import { compileBody, compileParams, describeErrors, findUnstorableText } from '../validation';

interface RequestSchemas {
  params?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema;
  /** A body is required unless set to false (e.g. an optional body on a run endpoint). */
  bodyRequired?: boolean;
}

/** A list's filters: its query without the page. */
export type ListFilters<Q> = Omit<Q, 'pageSize' | 'cursor'>;

/**
 * The input a route's schemas guarantee once `validate` has passed: each part typed from its schema (unknown without
 * one), the body possibly absent when it is optional, and `list` on a paginated list.
 */
export type InputOf<S extends RequestSchemas> = {
  params: S extends { params: infer P } ? ParamOf<P> : unknown;
  query: S extends { query: infer Q } ? ParamOf<Q> : unknown;
  body: S extends { body: infer B } ? (S extends { bodyRequired: false } ? BodyOf<B> | undefined : BodyOf<B>) : unknown;
} & (S extends { query: infer Q extends Paginated } ? { list: ListRequest<ListFilters<ParamOf<Q>>> } : unknown);

/** A list is its operation and its path parameters: a cursor of one ledger's transactions does not page another's. */
function cursorScopeOf(ctx: AppContext): CursorScope {
  return { key: ctx.deps.cursorKey, list: stringifyJson([ctx.routerName ?? ctx.routerPath, ctx.params]) };
}

/**
 * Query parameters Formance defines for an operation that this platform does not use (`x-ignored`, see
 * api/schemas/common.ts): Formance's SDKs send some on every call (listLedgers' `includeDeleted`). They are checked
 * against their schema, then dropped, so they are neither filters nor part of a cursor, and may come with a cursor.
 */
function ignoredParamsOf(schema: JsonSchema | undefined): { names: string[]; check: ReturnType<typeof compileParams> } | undefined {
  const properties = Object.entries((schema?.properties ?? {}) as Record<string, JsonSchema>).filter(
    ([, property]) => property['x-ignored'] === true,
  );
  if (properties.length === 0) return undefined;
  return { names: properties.map(([name]) => name), check: compileParams({ type: 'object', properties: Object.fromEntries(properties) }) };
}

/**
 * The query's parameters, those sent empty left out: for every route, `name=` means the parameter is absent, as if not
 * sent. Formance's CLI (fctl) sends every optional parameter it has a flag for, empty when the flag is not given
 * (`cursor=`, `workflowID=`); an empty value is no filter, no cursor, no page size. A repeated parameter keeps its
 * non-empty values. Go's zero time (`0001-01-01T00:00:00Z`) is empty too: the Go SDK sends an unset time.Time flag so,
 * and Formance's Go services take a zero time as unset. Map filters (`metadata[key]=`) keep their empty value: the key
 * is the filter, and the empty string a value it can match, so dropping it would widen the list.
 */
const GO_ZERO_TIME = '0001-01-01T00:00:00Z';
const isSent = (value: string): boolean => value !== '' && value !== GO_ZERO_TIME;

function presentParams(query: Record<string, string | string[] | undefined>): Record<string, unknown> {
  const present: Record<string, unknown> = {};
  for (const name of Object.keys(query)) {
    const value = query[name];
    if (name.endsWith(']')) present[name] = value;
    else if (Array.isArray(value)) {
      const sent = value.filter(isSent);
      if (sent.length > 0) present[name] = sent.length === value.length ? value : sent;
    } else if (value !== undefined && isSent(value)) present[name] = value;
  }
  return present;
}

function dropIgnoredParams(query: Record<string, unknown>, ignored: NonNullable<ReturnType<typeof ignoredParamsOf>>): void {
  const present = Object.fromEntries(ignored.names.filter((name) => query[name] !== undefined).map((name) => [name, query[name]]));
  if (!ignored.check(present)) throw validationError(describeErrors('query', ignored.check.errors));
  for (const name of ignored.names) delete query[name];
}

/**
 * A filter sent as a GET body (Formance's ledger lists read it there) is the list's `query` parameter; sent both ways,
 * the two must agree. Routes without a filter ignore a GET body, as HTTP lets a server do.
 */
function takeBodyFilter(query: Record<string, unknown>, filter: unknown, accepted: boolean): void {
  if (!accepted) return;
  if (query.query === undefined) {
    query.query = stringifyJson(filter);
    return;
  }
  let sent: unknown;
  try {
    sent = typeof query.query === 'string' ? parseJson(query.query) : undefined;
  } catch {
    throw validationError('query.query: malformed JSON');
  }
  if (canonicalJson(sent) !== canonicalJson(filter))
    throw validationError('body: the filter in the body differs from the `query` parameter; send one of them');
}

/**
 * Validates path, query and body against the route's schemas (compiled once, here) and stores the result in
 * `ctx.state.input`. Paginated lists also resolve their cursor: a cursor carries the whole query, so another parameter
 * sent with it must have the value the cursor carries.
 */
export function validate<const S extends RequestSchemas>(schemas: S): ValidateMiddleware<InputOf<S>> {
  const params = schemas.params ? compileParams(schemas.params) : undefined;
  const query = schemas.query ? compileParams(schemas.query) : undefined;
  const body = schemas.body ? compileBody(schemas.body) : undefined;
  const paginated = schemas.query?.['x-paginated'] === true;
  const ignored = ignoredParamsOf(schemas.query);
  const bodyRequired = schemas.bodyRequired ?? true;
  const acceptsQueryFilter = (schemas.query?.properties as Record<string, unknown> | undefined)?.query !== undefined;

  // Not async: its checks are synchronous (a throw still reaches the error handler through koa-compose's rejection), and
  // an async frame per layer is a promise and a microtask more on every request, the hottest reads included.
  const middleware: ChainMiddleware = function validateRequest(ctx: AppContext, next) {
    const input: { params: Record<string, unknown>; query: Record<string, unknown>; body: unknown; list?: ListRequest } = {
      params: { ...ctx.params },
      query: presentParams(ctx.query),
      body: ctx.request.body,
    };
    const unstorable = findUnstorableText(input.params, 'path') ?? findUnstorableText(input.query, 'query') ?? findUnstorableText(input.body, 'body');
    if (unstorable) throw validationError(`${unstorable}: text must not contain NUL characters or unpaired UTF-16 surrogates`);
    if (params && !params(input.params)) throw validationError(describeErrors('path', params.errors));
    if (ignored) dropIgnoredParams(input.query, ignored);
    if (ctx.state.bodyFilter !== undefined) takeBodyFilter(input.query, ctx.state.bodyFilter, acceptsQueryFilter);

    if (paginated && input.query.cursor !== undefined) {
      const { cursor, ...others } = input.query;
      if (typeof cursor !== 'string') throw validationError('query.cursor: must be a single value');
      const scope = cursorScopeOf(ctx);
      const state = decodeCursor(cursor, scope);
      const carried: Record<string, unknown> = { ...state.f, pageSize: state.p };
      // Clients such as Formance's CLI send the cursor with every flag of the first page. A value the cursor already
      // carries is harmless; one that differs would change the list in the middle of its pages, so it is refused
      // rather than silently ignored (Formance ignores it).
      if (Object.keys(others).length > 0) {
        const sent = Object.keys(others);
        if (query && !query(others)) throw validationError(describeErrors('query', query.errors));
        const differing = sent.find((name) => canonicalJson(others[name]) !== canonicalJson(carried[name] ?? null));
        if (differing !== undefined) {
          throw validationError(
            `query.${differing}: differs from the value its cursor carries; send the cursor alone, or with the same values as the first page`,
          );
        }
      }
      input.query = carried;
      if (query && !query(input.query)) throw validationError('invalid cursor: its filters are not valid for this list');
      input.list = { filters: state.f, pageSize: state.p, position: { key: state.k, dir: state.d }, scope };
    } else if (query) {
      if (!query(input.query)) throw validationError(describeErrors('query', query.errors));
      if (paginated) {
        const { pageSize, cursor: _cursor, ...filters } = input.query;
        input.list = { filters, pageSize: typeof pageSize === 'number' ? pageSize : DEFAULT_PAGE_SIZE, scope: cursorScopeOf(ctx) };
      }
    }

    if (body) {
      if (input.body === undefined) {
        if (bodyRequired) throw validationError('body: a JSON body is required');
      } else if (!body(input.body)) {
        throw validationError(describeErrors('body', body.errors));
      }
    } else if (input.body !== undefined && !(typeof input.body === 'object' && input.body && Object.keys(input.body).length === 0)) {
      throw new ApiError('VALIDATION', 'body: this operation takes no body');
    }
    ctx.state.input = input;
    return next();
  };
  middleware.chain = { schemas };
  // The input type is the compiler's alone: nothing is added at run time.
  return middleware as ValidateMiddleware<InputOf<S>>;
}
