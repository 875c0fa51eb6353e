import { contractProblem, registerConnectorPlugins, type ConnectorPluginModule } from '../../../areas/payments';
import { adyenConnector } from './adyen-connector';
import { genericConnector } from './generic-connector';
import { mangopayConnector } from './mangopay-connector';
import { simulatedConnector } from './simulated-connector';
import { stripeConnector } from './stripe-connector';

/**
 * The connector plugins the platform ships, the one list of them: adding an in-repo provider is one line here (and
 * its module). A team's own plugins come from PAYMENTS_CONNECTOR_PLUGINS instead, without editing the repository.
 */
export const BUILT_IN_CONNECTOR_PLUGINS: readonly ConnectorPluginModule[] = [
  simulatedConnector,
  genericConnector,
  stripeConnector,
  mangopayConnector,
  adyenConnector,
];

/** Registers the built-in plugins (idempotent: the same modules again change nothing). */
export function registerBuiltInConnectorPlugins(): void {
  registerConnectorPlugins([...BUILT_IN_CONNECTOR_PLUGINS], 'built-in connector plugin');
}

/**
 * Registers the built-in plugins and those of PAYMENTS_CONNECTOR_PLUGINS, at the start of the API and of the worker
 * (both need every plugin: the API its config schema and webhook verification, the worker its provider calls). A
 * module is loaded with `require` and must export a plugin as `default` or `connectorPlugin`. Anything wrong (the
 * module missing, failing to load, breaking the contract, or reusing a loaded plugin's name) throws an error naming the
 * setting and the module, which stops the process.
 */
export function loadConnectorPlugins(modulePaths: readonly string[]): ConnectorPluginModule[] {
  registerBuiltInConnectorPlugins();
  const loaded: ConnectorPluginModule[] = [];
  for (const modulePath of modulePaths) {
    const where = `PAYMENTS_CONNECTOR_PLUGINS: ${modulePath}`;
    let exported: Record<string, unknown>;
    try {
      exported = require(modulePath) as Record<string, unknown>;
    } catch (error) {
      throw new Error(`${where}: cannot be loaded (${(error as Error).message.split('\n')[0]})`, { cause: error });
    }
    const plugin = (exported?.connectorPlugin ?? exported?.default) as ConnectorPluginModule | undefined;
    const problem = contractProblem(plugin);
    if (problem) throw new Error(`${where}: not a connector plugin: ${problem}`);
    registerConnectorPlugins([plugin!], where);
    loaded.push(plugin!);
  }
  return loaded;
}
