import {
  resolveSimulatedDirectory,
  type ConnectorConfig,
  type GenericConfig,
  type MangopayConfig,
  type SimulatedConfig,
  type StripeConfig,
  type AdyenConfig,
} from '../../../areas/payments';
import type { Logger } from '../../../lib/logger';
import { metrics, secondsSince } from '../../../lib/metrics';
import { withSpan } from '../../../lib/tracing';
import { genericHttpPlugin } from './generic-http';
import { mangopayPlugin } from './mangopay';
import type { ConnectorPlugin } from './plugin';
import { simulatedPlugin } from './simulated';
import { stripePlugin } from './stripe';
import { adyenPlugin } from './adyen';

/**
 * Builds the plugin of an installed connector; the simulated directory is confined again here, in the worker. The
 * logger receives what must not reach a failure message (a provider's error body).
 */
export function pluginFor(provider: string, config: ConnectorConfig, dataDir: string, logger?: Pick<Logger, 'warn'>): ConnectorPlugin {
  if (provider === 'simulated') return metered(provider, simulatedPlugin(resolveSimulatedDirectory((config as SimulatedConfig).directory, dataDir)));
  if (provider === 'generic') return metered(provider, genericHttpPlugin(config as GenericConfig, logger));
  if (provider === 'stripe') return metered(provider, stripePlugin(config as StripeConfig));
  if (provider === 'mangopay') return metered(provider, mangopayPlugin(config as MangopayConfig, logger));
  if (provider === 'adyen') return metered(provider, adyenPlugin(config as AdyenConfig));
  throw new Error(`no plugin for provider ${provider}`);
}

/**
 * The plugin with each operation counted and timed by provider, operation and outcome (payments_connector_calls_total,
 * payments_connector_call_duration_seconds), and traced as a `payments.<operation>` span around its provider requests.
 * The provider, not the connector id, is the label: ids grow with installs, providers are a fixed set.
 */
function metered(connector: string, plugin: ConnectorPlugin): ConnectorPlugin {
  const wrapped = {} as Record<string, unknown>;
  for (const [operation, method] of Object.entries(plugin)) {
    if (typeof method !== 'function') {
      wrapped[operation] = method;
      continue;
    }
    wrapped[operation] = (...args: unknown[]) => {
      const started = process.hrtime.bigint();
      const observe = (outcome: 'success' | 'error') => {
        metrics.connectorCalls.inc({ connector, operation, outcome });
        metrics.connectorCallDuration.observe({ connector, operation, outcome }, secondsSince(started));
      };
      return withSpan(`payments.${operation}`, { attributes: { 'payments.connector': connector } }, () =>
        (method as (...a: unknown[]) => Promise<unknown>).apply(plugin, args),
      ).then(
        (value) => {
          observe('success');
          return value;
        },
        (error: unknown) => {
          observe('error');
          throw error;
        },
      );
    };
  }
  return wrapped as unknown as ConnectorPlugin;
}
