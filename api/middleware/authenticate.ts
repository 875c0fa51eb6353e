import { ApiError } from '../../lib/errors';
import type { AppContext } from '../context';
import type { ChainMiddleware } from '../routing';

export const AREAS = ['auth', 'ledger', 'wallets', 'payments', 'orchestration', 'webhooks', 'reconciliation'] as const;
export type Area = (typeof AREAS)[number];
export type Scope = `${Area}:${'read' | 'write'}`;
export const ALL_SCOPES: Scope[] = AREAS.flatMap((area) => [`${area}:read`, `${area}:write`] as Scope[]);

/** `<area>:write` implies `<area>:read`: a client allowed to change an area may read it. */
export function grants(scopes: Set<string>, required: string): boolean {
  if (scopes.has(required)) return true;
  const [area, access] = required.split(':');
  return access === 'read' && scopes.has(`${area}:write`);
}

/** RFC 6750 §2.1: the scheme, case-insensitive, then a b64token. */
const BEARER = /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)\s*$/i;

const challenge = (error?: string, description?: string, scope?: string) =>
  ['Bearer realm="financial-platform"', error && `error="${error}"`, description && `error_description="${description}"`, scope && `scope="${scope}"`]
    .filter(Boolean)
    .join(', ');

/**
 * Requires a valid Bearer access token carrying `scope` (RFC 6750), then counts the request against the client's rate
 * limit (the client is only known once the token is verified): 401 with a `WWW-Authenticate: Bearer` challenge
 * when the token is missing or cannot be trusted, 403 `insufficient_scope` when it is valid but not enough.
 */
export function authenticate(scope: Scope): ChainMiddleware {
  const middleware: ChainMiddleware = async function authenticateRequest(ctx: AppContext, next) {
    const header = ctx.get('Authorization');
    // A token the verifier remembers passed this syntax check when it was first seen: on a 1 KB token the check costs
    // more than finding it in memory, and a client sends the same token with every request.
    let token = header.startsWith('Bearer ') ? header.slice(7) : '';
    if (!ctx.deps.verifier.remembers?.(token)) {
      const match = BEARER.exec(header);
      if (!match) {
        throw new ApiError('UNAUTHORIZED', header ? 'malformed Authorization header; expected "Bearer <token>"' : 'missing Bearer access token', {
          headers: { 'WWW-Authenticate': header ? challenge('invalid_request') : challenge() },
        });
      }
      token = match[1];
    }
    try {
      ctx.state.principal = await ctx.deps.verifier.verify(token);
    } catch (error) {
      if (error instanceof ApiError && error.status !== 401) throw error;
      const message = error instanceof ApiError ? error.message : 'invalid access token';
      throw new ApiError('UNAUTHORIZED', message, { headers: { 'WWW-Authenticate': challenge('invalid_token', message.replace(/"/g, "'")) } });
    }
    ctx.deps.rateLimiter?.take(ctx.state.principal.clientId);
    if (!grants(ctx.state.principal.scopes, scope)) {
      throw new ApiError('FORBIDDEN', `insufficient_scope: this operation requires the "${scope}" scope`, {
        details: { error: 'insufficient_scope', scope },
        headers: { 'WWW-Authenticate': challenge('insufficient_scope', `requires ${scope}`, scope) },
      });
    }
    await next();
  };
  middleware.chain = { scope };
  return middleware;
}

/** Marks a route as open (health, OpenAPI document, docs): the route-table test lists exactly these. */
export function openRoute(): ChainMiddleware {
  const middleware: ChainMiddleware = async function openRouteMiddleware(_ctx, next) {
    await next();
  };
  middleware.chain = { scope: null };
  return middleware;
}
