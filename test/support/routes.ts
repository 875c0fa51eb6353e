import { registerBuiltInConnectorPlugins } from '../../activities/payments/plugins';
import { apiRoutes } from '../../api/routes';
import type { RouteDefinition } from '../../api/routing';

/** Every route an API with the built-in connector plugins serves (their install routes included), as a test reads them. */
export function routesWithBuiltInPlugins(): RouteDefinition[] {
  registerBuiltInConnectorPlugins();
  return apiRoutes();
}
