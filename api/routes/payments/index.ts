import { accountRoutes } from './accounts';
import { bankAccountRoutes } from './bank-accounts';
import { bankAccountV1Routes } from './bank-accounts-v1';
import { conversionOrderRoutes } from './conversions-orders';
import { connectorScheduleRoutes } from './connector-schedules';
import { connectorRoutes } from './connectors';
import { connectorWebhookRoutes } from './connector-webhooks';
import { connectorV1Routes } from './connectors-v1';
import { paymentInitiationRoutes } from './payment-initiations';
import { paymentServiceUserRoutes } from './payment-service-users';
import { paymentRoutes, paymentV3Routes } from './payments';
import { paymentV1Routes } from './payments-v1';
import { poolRoutes } from './pools';
import { poolV1Routes } from './pools-v1';
import { openBankingRoutes } from './psu-open-banking';
import { transferInitiationV1Routes } from './transfer-initiations-v1';

export const paymentsRoutes = [
  ...connectorRoutes,
  ...connectorScheduleRoutes,
  ...paymentRoutes,
  ...paymentV3Routes,
  ...accountRoutes,
  ...bankAccountRoutes,
  ...paymentServiceUserRoutes,
  ...poolRoutes,
  ...paymentInitiationRoutes,
  ...conversionOrderRoutes,
  ...openBankingRoutes,
  ...connectorWebhookRoutes,
  ...connectorV1Routes,
  ...paymentV1Routes,
  ...bankAccountV1Routes,
  ...poolV1Routes,
  ...transferInitiationV1Routes,
];
