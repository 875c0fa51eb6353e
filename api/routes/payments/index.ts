import { accountRoutes } from './accounts';
import { bankAccountRoutes } from './bank-accounts';
import { conversionOrderRoutes } from './conversions-orders';
import { connectorScheduleRoutes } from './connector-schedules';
import { connectorRoutes } from './connectors';
import { paymentInitiationRoutes } from './payment-initiations';
import { paymentServiceUserRoutes } from './payment-service-users';
import { paymentRoutes, paymentV3Routes } from './payments';
import { poolRoutes } from './pools';
import { openBankingRoutes } from './psu-open-banking';

export const paymentsRoutes = [...connectorRoutes, ...connectorScheduleRoutes, ...paymentRoutes, ...paymentV3Routes, ...accountRoutes, ...bankAccountRoutes, ...paymentServiceUserRoutes, ...poolRoutes, ...paymentInitiationRoutes, ...conversionOrderRoutes, ...openBankingRoutes];
