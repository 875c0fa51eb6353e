import { accountRoutes } from './accounts';
import { accountV1Routes } from './accounts-v1';
import { bulkRoute } from './bulk';
import { exporterRoutes } from './exporters';
import { pipelineRoutes } from './pipelines';
import { runQueryRoute } from './queries';
import { ledgerV1Routes } from './ledger-v1';
import { ledgerAdminRoutes } from './ledgers';
import { logRoutes } from './logs';
import { metadataRoutes } from './metadata';
import { schemaRoutes } from './schemas';
import { countRoutes, reportRoutes } from './reports';
import { transactionRoutes } from './transactions';
import { transactionV1Routes } from './transactions-v1';

/**
 * v2 routes first: `/api/ledger/v2/{name}` must win over the v1 paths `/api/ledger/{ledger}/...` (the name `v2` is
 * reserved for that reason). Counts (HEAD) before the lists: Koa's router answers HEAD with a GET route of the same
 * path; each v1 group lists its HEAD first.
 */
export const ledgerRoutes = [
  ...exporterRoutes,
  ...ledgerAdminRoutes,
  ...countRoutes,
  ...transactionRoutes,
  ...accountRoutes,
  ...metadataRoutes,
  ...reportRoutes,
  ...logRoutes,
  ...pipelineRoutes,
  runQueryRoute,
  ...schemaRoutes,
  bulkRoute,
  ...transactionV1Routes,
  ...accountV1Routes,
  ...ledgerV1Routes,
];
