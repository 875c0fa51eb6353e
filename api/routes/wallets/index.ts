import { balanceRoutes } from './balances';
import { holdRoutes } from './holds';
import { movementRoutes } from './movements';
import { listWalletTransactionsRoute } from './transactions';
import { walletRoutes } from './wallets';

export const walletsRoutes = [...walletRoutes, ...balanceRoutes, ...movementRoutes, ...holdRoutes, listWalletTransactionsRoute];
