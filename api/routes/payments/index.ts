import { bankAccountRoutes } from './bank-accounts';
import { connectorScheduleRoutes } from './connector-schedules';
import { connectorRoutes } from './connectors';
import { connectorV1Routes } from './connectors-v1';
import { paymentInitiationRoutes } from './payment-initiations';
import { paymentServiceUserRoutes } from './payment-service-users';
import { paymentRoutes } from './payments';
import { paymentV1Routes } from './payments-v1';
import { poolRoutes } from './pools';

export const paymentsRoutes = [
  ...connectorRoutes, ...connectorScheduleRoutes, ...paymentRoutes, ...bankAccountRoutes, ...paymentServiceUserRoutes, ...poolRoutes, ...paymentInitiationRoutes,
  ...connectorV1Routes, ...paymentV1Routes,
];
