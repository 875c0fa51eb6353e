import { routesWithBuiltInPlugins } from '../../support/routes';
import { api, getToken } from '../../support/http';

const allRoutes = routesWithBuiltInPlugins();

// The open-banking consent callback is opened by an end user's browser, so it takes no Bearer token: it is guarded by
// the single-use secret of its link attempt (test/integration/payments/open-banking.test.ts). `/versions` is Formance's
// gateway listing, which its SDK calls without a token. A provider's webhook deliveries carry the provider's signature
// (Stripe-Signature), not a Bearer token: they are refused with 401 unless it verifies (stripe-connector.test.ts). The
// same path answers unsigned GET callbacks (Mangopay's), whose resource is read back from the provider
// (mangopay-connector.test.ts).
const OPEN = new Set([
  '/_healthcheck',
  '/versions',
  '/api/openapi.json',
  '/api/docs',
  '/api/docs/{asset}',
  '/api/payments/v3/connectors/open-banking/{connectorID}/redirect',
  '/api/payments/v3/connectors/webhooks/{connectorID}',
]);
const protectedRoutes = allRoutes.filter((route) => route.scope !== null);
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'x0');

/**
 * Walks the router's whole table, so a route added later without authentication fails here. The only open routes are
 * the health check, the versions listing, the OpenAPI document, the docs page, the open-banking consent callback and
 * the providers' signed webhook deliveries (the OAuth endpoints are
 * oidc-provider's, not the router's).
 */
describe('every route requires its scope', () => {
  it('has exactly the documented open routes', () => {
    expect(
      allRoutes
        .filter((route) => route.scope === null)
        .map((route) => route.spec.path)
        .sort(),
    ).toEqual([...OPEN, '/api/payments/v3/connectors/webhooks/{connectorID}'].sort());
  });

  it.each(protectedRoutes.map((route) => [route.spec.method.toUpperCase(), route.spec.path, route.scope as string]))(
    '%s %s answers 401 without a token and 403 without %s',
    async (method, path, scope) => {
      const anonymous = await api(method, concrete(path), { token: null });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);

      const [area, access] = scope.split(':');
      // A token for another area, and for writes a read-only token of the same area: both must be refused.
      const wrongScopes = [area === 'auth' ? 'ledger:write' : 'auth:write', ...(access === 'write' ? [`${area}:read`] : [])];
      for (const wrong of wrongScopes) {
        const res = await api(method, concrete(path), { token: await getToken(wrong) });
        expect(res.status).toBe(403);
        // A HEAD answer has no body: status and header carry the refusal.
        if (method !== 'HEAD') expect(res.body.errorCode).toBe('FORBIDDEN');
        expect(res.headers.get('www-authenticate')).toContain('insufficient_scope');
      }
    },
  );
});
