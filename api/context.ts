import type Koa from 'koa';
import type { RouterContext } from '@koa/router';
import type { Client, Connection } from '@temporalio/client';
import type { Config } from '../lib/config';
import type { Db } from '../db/knex';
import type { Logger } from '../lib/logger';

/** Who is calling, as established from a verified access token. */
export interface Principal {
  subject: string;
  clientId: string;
  scopes: Set<string>;
}

export interface TokenVerifier {
  /** Resolves the principal of a Bearer token; throws an ApiError 401 when the token cannot be trusted. */
  verify(token: string): Promise<Principal>;
}

export interface AppDeps {
  config: Config;
  db: Db;
  logger: Logger;
  temporal: { client: Client; connection: Connection; taskQueue: string };
  verifier: TokenVerifier;
  /** Signs list cursors; shared by every API process of a deployment (db/platform-secrets.ts). */
  cursorKey: Buffer;
  /** Per-client request rate limit; undefined disables it. */
  rateLimiter?: import('./middleware/rate-limit').RateLimiter;
  /** The OpenAPI document, built from the route table at app creation. */
  openApiDocument?: unknown;
  /** Extra Koa middleware mounted before the routers (the embedded OAuth issuer lives here). */
  mounts?: Koa.Middleware[];
}

export interface ValidInput {
  params: Record<string, any>;
  query: Record<string, any>;
  body: any;
}

export interface AppState {
  requestId: string;
  logger: Logger;
  principal?: Principal;
  input: ValidInput;
}

export type AppContext = RouterContext<AppState, { deps: AppDeps }> & { deps: AppDeps };
export type AppMiddleware = (ctx: AppContext, next: () => Promise<unknown>) => unknown;
