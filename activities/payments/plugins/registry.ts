import { resolveSimulatedDirectory, type ConnectorConfig, type GenericConfig, type SimulatedConfig } from '../../../areas/payments';
import { genericHttpPlugin } from './generic-http';
import type { ConnectorPlugin } from './plugin';
import { simulatedPlugin } from './simulated';

/** Builds the plugin of an installed connector; the simulated directory is confined again here, in the worker. */
export function pluginFor(provider: string, config: ConnectorConfig, dataDir: string): ConnectorPlugin {
  if (provider === 'simulated') return simulatedPlugin(resolveSimulatedDirectory((config as SimulatedConfig).directory, dataDir));
  if (provider === 'generic') return genericHttpPlugin(config as GenericConfig);
  throw new Error(`no plugin for provider ${provider}`);
}
