import { instanceRoutes } from './instances';
import { workflowRoutes } from './workflows';

export const orchestrationRoutes = [...workflowRoutes, ...instanceRoutes];
