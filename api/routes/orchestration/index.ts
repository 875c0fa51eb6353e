import { instanceRoutes } from './instances';
import { triggerRoutes } from './triggers';
import { workflowRoutes } from './workflows';

export const orchestrationRoutes = [...workflowRoutes, ...instanceRoutes, ...triggerRoutes];
