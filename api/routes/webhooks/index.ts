import { configRoutes } from './configs';
import { deliveryRoutes } from './deliveries';

export const webhookRoutes = [...configRoutes, ...deliveryRoutes];
