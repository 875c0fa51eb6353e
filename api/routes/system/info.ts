import { PLATFORM_VERSION as version } from '../../../lib/version';
import { authenticate, type Scope } from '../../middleware/authenticate';
import { defineRoute, type RouteDefinition, type RouteHandler } from '../../routing';
import { objectSchema, stringSchema } from '../../schemas/common';
import { versionedRoutes } from '../orchestration/versions';

const infoSchema = objectSchema({ name: stringSchema(), version: stringSchema() }, ['name', 'version']);

const spec = (service: string) => ({
  method: 'get' as const,
  operationId: `get${service[0].toUpperCase()}${service.slice(1)}ServerInfo`,
  summary: `Formance's server info of the ${service} service: its name and the platform's version`,
  tags: [service],
  responses: { 200: { description: 'Server info', schema: infoSchema } },
});

// No input: the handler reads none.
const handler = (service: string): RouteHandler =>
  async function serverInfoHandler(ctx) {
    ctx.body = { name: service, version };
  };

const infoRoute = (service: string, scope: Scope): RouteDefinition =>
  defineRoute({ ...spec(service), path: `/api/${service}/_info` }, authenticate(scope), handler(service));

/** `/_info` of each service this platform serves in Formance's layout (ledger and payments keep their own). */
export const serverInfoRoutes: RouteDefinition[] = [
  infoRoute('wallets', 'wallets:read'),
  infoRoute('auth', 'auth:read'),
  infoRoute('reconciliation', 'reconciliation:read'),
  ...versionedRoutes({ ...spec('orchestration'), path: '/_info' }, authenticate('orchestration:read'), handler('orchestration')),
];
