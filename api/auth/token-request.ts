import type Koa from 'koa';
import getRawBody from 'raw-body';
import type { Db } from '../../db/knex';
import { ALL_SCOPES } from '../middleware/authenticate';
import { checkPresentedSecret, readBasicCredentials, type SecretStandIn } from './client-secret';
import { REVOCATION_PATH } from './jwt-revocation';
import { inTokenRequest } from './oidc-adapter';

const TOKEN_PATH = '/api/auth/oauth/token';

/**
 * The provider endpoint a path reaches, read as the provider's router reads it (@koa/router: case-insensitive, one
 * trailing slash allowed), so no spelling of the token or revocation path reaches the provider around this middleware.
 */
export function providerEndpoint(path: string): 'token' | 'revocation' | undefined {
  const normalized = path.toLowerCase().replace(/(.)\/$/, '$1');
  if (normalized === TOKEN_PATH) return 'token';
  if (normalized === REVOCATION_PATH) return 'revocation';
  return undefined;
}

/**
 * Runs before oidc-provider on the token and revocation endpoints:
 * - it checks the client secret against the stored hashes and hands the provider a stand-in (client-secret.ts);
 * - a client may authenticate with client_secret_basic or client_secret_post, whichever it sends (the provider wants
 *   one registered method per client);
 * - a client_credentials request without `scope` is granted all of the client's scopes (the provider grants none);
 * - a revocation's `token_type_hint` is dropped. RFC 7009 §2.1 makes it a hint the server may ignore, and the only
 *   tokens issued here are access tokens, so it can only be right or wrong; the provider, given `refresh_token`, looks
 *   the token up as a refresh token, a grant not enabled here, and fails with a 500 instead of going on to search the
 *   other kinds. Without the hint it searches them all, answers 200, and jwt-revocation.ts revokes the token.
 * It hands the (possibly completed) form body to the provider through `req.body`, which the provider reads.
 */
export function tokenRequestDefaults(db: Db, standIn: SecretStandIn): Koa.Middleware {
  // Every request passes here; only token and revocation requests enter the async part.
  return function tokenRequestDefaultsMiddleware(ctx, next) {
    const endpoint = ctx.method === 'POST' ? providerEndpoint(ctx.path) : undefined;
    if (!endpoint) return next();
    if (ctx.is('application/x-www-form-urlencoded')) return completeTokenRequest(ctx, next, endpoint);
    // The provider refuses any other body type before it reads credentials; with no body type it reads the
    // Authorization header alone.
    if (ctx.get('Content-Type')) return next();
    return authenticateHeaderOnly(ctx, next);
  };

  async function authenticateHeaderOnly(ctx: Koa.Context, next: Koa.Next): Promise<unknown> {
    const secretId = await checkPresentedSecret(db, standIn, ctx, undefined);
    return inTokenRequest({ authMethod: 'client_secret_basic', secretId }, next);
  }

  async function completeTokenRequest(ctx: Koa.Context, next: Koa.Next, endpoint: 'token' | 'revocation'): Promise<unknown> {
    const basicId = readBasicCredentials(ctx.request.headers.authorization)?.clientId;
    const authMethod = basicId ? 'client_secret_basic' : 'client_secret_post';
    const raw = await getRawBody(ctx.req, { length: ctx.get('Content-Length') || undefined, limit: '56kb', encoding: 'utf8' });
    const form = new URLSearchParams(raw);
    if (endpoint === 'revocation') form.delete('token_type_hint');
    else {
      const clientId = basicId ?? form.get('client_id');
      // RFC 6749 §5.2: an unknown scope is invalid_scope (the provider would silently drop it and issue a weaker token).
      const unknown = (form.get('scope') ?? '').split(' ').filter((s) => s && !(ALL_SCOPES as string[]).includes(s));
      if (unknown.length > 0) {
        ctx.status = 400;
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { error: 'invalid_scope', error_description: `unknown scope: ${unknown.join(' ')}` };
        return;
      }
      if (form.get('grant_type') === 'client_credentials' && !form.get('scope') && clientId) {
        const client = await db('auth_clients').where({ id: clientId }).first();
        if (client && client.scopes.length > 0) form.set('scope', client.scopes.join(' '));
      }
    }
    const secretId = await checkPresentedSecret(db, standIn, ctx, form);
    Object.assign(ctx.req, { body: form.toString() });
    return inTokenRequest({ authMethod, secretId }, next);
  }
}
