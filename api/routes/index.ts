import type { RouteDefinition } from '../routing';
import { authRoutes } from './auth/clients';
import { userRoutes } from './auth/users';
import { auditRoutes } from './auth/audit';
import { ledgerRoutes } from './ledger';
import { paymentsRoutes } from './payments';
import { connectorInstallRoutes } from './payments/connectors';
import { orchestrationRoutes } from './orchestration';
import { reconciliationRoutes } from './reconciliation';
import { walletsRoutes } from './wallets';
import { docsAssetRoute, docsPageRoute } from './system/docs';
import { healthRoute } from './system/health';
import { serverInfoRoutes } from './system/info';
import { openApiRoute } from './system/openapi';
import { versionsRoute } from './system/versions';
import { webhookRoutes } from './webhooks';

/**
 * Every route of the API but the connector install routes (apiRoutes, below). Each area exports its list from `api/routes/<area>/index.ts`; adding it here is what makes
 * it served, documented in the OpenAPI document and covered by the route-table auth test.
 */
export const allRoutes: RouteDefinition[] = [
  healthRoute,
  versionsRoute,
  openApiRoute,
  docsPageRoute,
  docsAssetRoute,
  ...serverInfoRoutes,
  ...authRoutes,
  ...userRoutes,
  ...auditRoutes,
  ...ledgerRoutes,
  ...walletsRoutes,
  ...paymentsRoutes,
  ...webhookRoutes,
  ...orchestrationRoutes,
  ...reconciliationRoutes,
];

/**
 * The routes an API serves: every route above and the install route of each connector plugin registered in this
 * process (the built-in ones and PAYMENTS_CONNECTOR_PLUGINS', registered at start), whose body schemas are the
 * plugins' own. The install routes come first: `install/<name>` is matched before `{connectorID}/<action>`.
 */
export const apiRoutes = (): RouteDefinition[] => [...connectorInstallRoutes(), ...allRoutes];
