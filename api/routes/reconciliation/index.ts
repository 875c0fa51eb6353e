import { alertRoutes } from './alerts';
import { ruleRoutes } from './rules';

export const reconciliationRoutes = [...ruleRoutes, ...alertRoutes];
