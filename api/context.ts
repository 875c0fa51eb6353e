import type Koa from 'koa';
import type { RouterContext } from '@koa/router';
import type { Client, Connection } from '@temporalio/client';
import type { Config } from '../lib/config';
import type { Db } from '../db/knex';
import type { Logger } from '../lib/logger';
import type { ListRequest } from './pagination';

/** Who is calling, as established from a verified access token. */
export interface Principal {
  subject: string;
  clientId: string;
  scopes: Set<string>;
}

export interface TokenVerifier {
  /** Resolves the principal of a Bearer token; throws an ApiError 401 when the token cannot be trusted. */
  verify(token: string): Promise<Principal>;
  /** Whether `verify` would answer this exact token from memory (its signature checked before and not yet expired). */
  remembers?(token: string): boolean;
}

export interface AppDeps {
  config: Config;
  db: Db;
  logger: Logger;
  temporal: { client: Client; connection: Connection; taskQueue: string };
  verifier: TokenVerifier;
  /** Signs list cursors; shared by every API process of a deployment (db/platform-secrets.ts). */
  cursorKey: Buffer;
  /** Records state-changing requests (api/audit.ts); undefined records nothing (apps built by tests). */
  audit?: import('./audit').AuditTrail;
  /** Per-client request rate limit; undefined disables it. */
  rateLimiter?: import('./middleware/rate-limit').RateLimiter;
  /** The OpenAPI document, built from the route table at app creation. */
  openApiDocument?: unknown;
  /** Extra Koa middleware mounted before the routers (the embedded OAuth issuer lives here). */
  mounts?: Koa.Middleware[];
}

/**
 * A request's input as `validate` leaves it. Its members are unknown until a route's schemas give them a type
 * (api/middleware/validate.ts derives it from them); `list` is set on paginated lists.
 */
export interface ValidInput {
  params: unknown;
  query: unknown;
  body: unknown;
  list?: ListRequest;
}

export interface AppState<I = ValidInput> {
  /** Set once per request by request-context.ts; the logger is made on first use and cannot be replaced. */
  readonly requestId: string;
  /** The request's trace id when tracing is on (lib/tracing.ts). */
  readonly traceId?: string;
  readonly logger: Logger;
  principal?: Principal;
  input: I;
  /**
   * A ledger list's filter sent as a GET body (Formance's ledger v2 reads it there, and older SDKs and fctl send it
   * so); `validate` turns it into the list's `query` parameter. See api/middleware/json-body.ts.
   */
  bodyFilter?: unknown;
  /** A provider's webhook body as received, unparsed (its signature covers these bytes). See api/middleware/json-body.ts. */
  rawBody?: string;
}

/** The context of a request; `I` is the route's validated input (ctx.state.input). */
export type AppContext<I = ValidInput> = RouterContext<AppState<I>, { deps: AppDeps }> & { deps: AppDeps };
export type AppMiddleware = (ctx: AppContext, next: () => Promise<unknown>) => unknown;
