import type { RouteDefinition } from '../../routing';
import { policyRoutes } from './policies';

export const reconciliationRoutes: RouteDefinition[] = [
  // --- Policies and reconciliations (Formance's classic model) ---
  ...policyRoutes,
  // --- end of policies and reconciliations ---
];
