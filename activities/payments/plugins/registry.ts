import { connectorPlugin, type ConnectorConfig } from '../../../areas/payments';
import type { Logger } from '../../../lib/logger';
import { metrics, secondsSince } from '../../../lib/metrics';
import { withSpan } from '../../../lib/tracing';
import { registerBuiltInConnectorPlugins } from './index';
import type { ConnectorPlugin, OpenBankingPlugin } from './plugin';

/**
 * Builds the provider calls of an installed connector from its registered plugin (activities/payments/plugins/index.ts).
 * The logger receives what must not reach a failure message (a provider's error body).
 */
export function pluginFor(provider: string, config: ConnectorConfig, dataDir: string, logger?: Pick<Logger, 'warn'>): ConnectorPlugin {
  registerBuiltInConnectorPlugins();
  return metered(provider, connectorPlugin(provider).create(config, { dataDir, logger }));
}

/**
 * The plugin with each operation counted and timed by provider, operation and outcome (payments_connector_calls_total,
 * payments_connector_call_duration_seconds), and traced as a `payments.<operation>` span around its provider requests.
 * Open-banking calls are provider calls too: each is counted as `openBanking.<method>` (e.g. `openBanking.createUser`),
 * so a provider failing its end users' bank links shows beside its fetches.
 * The provider, not the connector id, is the label: ids grow with installs, providers are a fixed set.
 */
function metered(connector: string, plugin: ConnectorPlugin): ConnectorPlugin {
  const wrapped = meteredMethods(connector, '', plugin as unknown as Record<string, unknown>) as unknown as ConnectorPlugin;
  if (plugin.openBanking)
    wrapped.openBanking = meteredMethods(
      connector,
      'openBanking.',
      plugin.openBanking as unknown as Record<string, unknown>,
    ) as unknown as OpenBankingPlugin;
  return wrapped;
}

/** Each function of `target` counted, timed and traced under `<prefix><name>`; other properties copied as they are. */
function meteredMethods(connector: string, prefix: string, target: Record<string, unknown>): Record<string, unknown> {
  const wrapped = {} as Record<string, unknown>;
  for (const [name, method] of Object.entries(target)) {
    if (typeof method !== 'function') {
      wrapped[name] = method;
      continue;
    }
    const operation = `${prefix}${name}`;
    wrapped[name] = (...args: unknown[]) => {
      const started = process.hrtime.bigint();
      const observe = (outcome: 'success' | 'error') => {
        metrics.connectorCalls.inc({ connector, operation, outcome });
        metrics.connectorCallDuration.observe({ connector, operation, outcome }, secondsSince(started));
      };
      return withSpan(`payments.${operation}`, { attributes: { 'payments.connector': connector } }, () =>
        (method as (...a: unknown[]) => Promise<unknown>).apply(target, args),
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
  return wrapped;
}
