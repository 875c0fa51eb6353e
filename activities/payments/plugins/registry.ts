import { resolveSimulatedDirectory, type ConnectorConfig, type GenericConfig, type SimulatedConfig, type StripeConfig } from '../../../areas/payments';
import type { Logger } from '../../../lib/logger';
import { genericHttpPlugin } from './generic-http';
import type { ConnectorPlugin } from './plugin';
import { simulatedPlugin } from './simulated';
import { stripePlugin } from './stripe';

/**
 * Builds the plugin of an installed connector; the simulated directory is confined again here, in the worker. The
 * logger receives what must not reach a failure message (a provider's error body).
 */
export function pluginFor(provider: string, config: ConnectorConfig, dataDir: string, logger?: Pick<Logger, 'warn'>): ConnectorPlugin {
  if (provider === 'simulated') return simulatedPlugin(resolveSimulatedDirectory((config as SimulatedConfig).directory, dataDir));
  if (provider === 'generic') return genericHttpPlugin(config as GenericConfig, logger);
  if (provider === 'stripe') return stripePlugin(config as StripeConfig);
  throw new Error(`no plugin for provider ${provider}`);
}
