import type { RouteDefinition } from '../../routing';
import { alertRoutes } from './alerts';
import { policyRoutes } from './policies';
import { ruleRoutes } from './rules';

/** Formance's classic model (policies and reconciliations) and the SDK's newer one (rules, evaluations, alerts). */
export const reconciliationRoutes: RouteDefinition[] = [...policyRoutes, ...ruleRoutes, ...alertRoutes];
