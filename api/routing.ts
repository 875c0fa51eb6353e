import type { AppContext, AppMiddleware, ValidInput } from './context';

export type HttpMethod = 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete';
export type JsonSchema = Record<string, unknown>;

export interface ResponseSpec {
  description: string;
  schema?: JsonSchema;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
}

export interface OperationSpec {
  method: HttpMethod;
  /** OpenAPI template, e.g. `/api/ledger/{ledger}/transactions/{txid}`; Koa's `:param` form is derived from it. */
  path: string;
  operationId: string;
  summary: string;
  tags: string[];
  description?: string;
  responses: Record<number, ResponseSpec>;
  /** Request headers the operation reads, for the document (e.g. Idempotency-Key). */
  headers?: Record<string, { description: string; schema: JsonSchema }>;
  /**
   * OpenAPI links of the success responses beyond the ones derived from paths (a create's id used on other paths),
   * by operationId: `{parameters: {'path.x': '$response.body#/data/id'}}`.
   */
  links?: Record<string, { parameters: Record<string, string> }>;
  /** The request body's example, for routes built at start (a connector plugin's install); others use the catalogue. */
  requestExample?: unknown;
}

/** Data a middleware carries so the OpenAPI document and the route-table tests can read a route's chain. */
export interface ChainMetadata {
  scope?: string | null;
  schemas?: { params?: JsonSchema; query?: JsonSchema; body?: JsonSchema; bodyRequired?: boolean };
}

export type ChainMiddleware = AppMiddleware & { chain?: ChainMetadata };

export interface RouteDefinition {
  spec: OperationSpec;
  chain: ChainMiddleware[];
  /** The scope the route requires, or null for the few open routes (health, docs, OAuth). */
  scope: string | null;
  schemas: NonNullable<ChainMetadata['schemas']>;
}

declare const validated: unique symbol;

/** What `validate` returns: its middleware, and for the compiler the input `I` it leaves in ctx.state.input. */
export type ValidateMiddleware<I> = ChainMiddleware & { readonly [validated]: I };

/** A route's handler, the last of its chain; `I` is its validated input. */
export type RouteHandler<I = ValidInput> = (ctx: AppContext<I>, next: () => Promise<unknown>) => unknown;

/**
 * Declares one operation: its OpenAPI description and its middleware chain, `authenticate(scope)` (or `openRoute()`),
 * usually `validate(schemas)`, then the handler. The same definition feeds the router, the OpenAPI document and the
 * request validators, so the three cannot drift apart; the handler's input is typed from the schemas it is validated
 * against.
 */
export function defineRoute<I>(
  spec: OperationSpec,
  guard: ChainMiddleware,
  validation: ValidateMiddleware<I>,
  handler: RouteHandler<I>,
): RouteDefinition;
export function defineRoute(spec: OperationSpec, guard: ChainMiddleware, handler: RouteHandler): RouteDefinition;
export function defineRoute(spec: OperationSpec, ...members: Array<ChainMiddleware | RouteHandler<never>>): RouteDefinition {
  // The one place a handler's input type is taken on trust: validate, just before it in the chain, has checked
  // ctx.state.input against the schemas that type is derived from.
  const chain = members as ChainMiddleware[];
  let scope: string | null = null;
  let schemas: RouteDefinition['schemas'] = {};
  for (const middleware of chain) {
    if (middleware.chain?.scope !== undefined) scope = middleware.chain.scope;
    if (middleware.chain?.schemas) schemas = middleware.chain.schemas;
  }
  return { spec, chain, scope, schemas };
}

export function toKoaPath(openApiPath: string): string {
  return openApiPath.replace(/\{([^}]+)\}/g, ':$1');
}
