import { accountRoutes } from './accounts';
import { bulkRoute } from './bulk';
import { ledgerAdminRoutes } from './ledgers';
import { metadataRoutes } from './metadata';
import { transactionRoutes } from './transactions';
import { transactionV1Routes } from './transactions-v1';

/** v2 routes first: `POST /api/ledger/v2/{name}` must win over the v1 path (the name `v2` is reserved for that reason). */
export const ledgerRoutes = [...ledgerAdminRoutes, ...transactionRoutes, ...accountRoutes, ...metadataRoutes, bulkRoute, ...transactionV1Routes];
