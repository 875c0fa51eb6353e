import { PLATFORM_VERSION as version } from '../../../lib/version';
import { openRoute } from '../../middleware/authenticate';
import { defineRoute } from '../../routing';
import { arraySchema, booleanSchema, objectSchema, stringSchema } from '../../schemas/common';

/** The Formance services this API serves under `/api/<service>`: all of them are this process, at its version. */
const SERVICES = ['auth', 'ledger', 'payments', 'wallets', 'orchestration', 'webhooks', 'reconciliation'];

const versionsSchema = objectSchema(
  {
    region: stringSchema({ description: "Formance Cloud's region; empty: this platform runs where it is deployed." }),
    env: stringSchema({ description: "Formance Cloud's environment; empty, as region." }),
    versions: arraySchema(objectSchema({ name: stringSchema(), version: stringSchema(), health: booleanSchema() }, ['name', 'version', 'health'])),
  },
  ['region', 'env', 'versions'],
);

/**
 * Formance's gateway `GET /versions` (the SDK's getVersions): each service with its version and health. Every service
 * is this API, so each is healthy when it answers; `/_healthcheck` says whether its database and Temporal do. No auth,
 * as the gateway's.
 */
export const versionsRoute = defineRoute(
  {
    method: 'get',
    path: '/versions',
    operationId: 'getVersions',
    summary: "The services this API serves, with their version (Formance's gateway)",
    tags: ['system'],
    responses: { 200: { description: 'Versions', schema: versionsSchema } },
  },
  openRoute(),
  async function versionsHandler(ctx) {
    ctx.body = { region: '', env: '', versions: SERVICES.map((name) => ({ name, version, health: true })) };
  },
);
