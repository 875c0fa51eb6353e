import { accountRoutes } from './accounts';
import { bulkRoute } from './bulk';
import { ledgerAdminRoutes } from './ledgers';
import { logRoutes } from './logs';
import { metadataRoutes } from './metadata';
import { countRoutes, reportRoutes } from './reports';
import { transactionRoutes } from './transactions';
import { transactionV1Routes } from './transactions-v1';

/** v2 routes first: `POST /api/ledger/v2/{name}` must win over the v1 path (the name `v2` is reserved for that reason). */
// Counts (HEAD) before the lists: Koa's router answers HEAD with a GET route of the same path.
export const ledgerRoutes = [...ledgerAdminRoutes, ...countRoutes, ...transactionRoutes, ...accountRoutes, ...metadataRoutes, ...reportRoutes, ...logRoutes, bulkRoute, ...transactionV1Routes];
