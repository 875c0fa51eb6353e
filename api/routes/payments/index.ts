import { bankAccountRoutes } from './bank-accounts';
import { connectorScheduleRoutes } from './connector-schedules';
import { connectorRoutes } from './connectors';
import { paymentInitiationRoutes } from './payment-initiations';
import { paymentServiceUserRoutes } from './payment-service-users';
import { paymentRoutes } from './payments';
import { poolRoutes } from './pools';

export const paymentsRoutes = [...connectorRoutes, ...connectorScheduleRoutes, ...paymentRoutes, ...bankAccountRoutes, ...paymentServiceUserRoutes, ...poolRoutes, ...paymentInitiationRoutes];
