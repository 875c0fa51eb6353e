import type { RouteDefinition } from '../routing';
import { authRoutes } from './auth/clients';
import { userRoutes } from './auth/users';
import { auditRoutes } from './auth/audit';
import { ledgerRoutes } from './ledger';
import { paymentsRoutes } from './payments';
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
 * Every route of the API. Each area exports its list from `api/routes/<area>/index.ts`; adding it here is what makes
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
