import { bankAccountRoutes } from './bank-accounts';
import { connectorRoutes } from './connectors';
import { paymentInitiationRoutes } from './payment-initiations';
import { paymentServiceUserRoutes } from './payment-service-users';
import { paymentRoutes } from './payments';
import { poolRoutes } from './pools';

export const paymentsRoutes = [...connectorRoutes, ...paymentRoutes, ...bankAccountRoutes, ...paymentServiceUserRoutes, ...poolRoutes, ...paymentInitiationRoutes];
