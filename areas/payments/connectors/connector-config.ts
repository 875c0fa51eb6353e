import fs from 'node:fs';
import path from 'node:path';
import { getConfig } from '../../../lib/config';
import { validationError } from '../../../lib/errors';
import { DURATION_PATTERN } from './plugin-contract';
import { validatePluginConfig } from './plugin-registry';

/** A provider's name: the name of a registered connector plugin (plugin-registry.ts). */
export type ConnectorProvider = string;

/** An installed connector's stored config: the platform's members and its plugin's (plugin-contract.ts). */
export interface ConnectorConfig {
  name: string;
  pollingPeriod: string;
  [member: string]: unknown;
}

export { DURATION_PATTERN };
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `500ms`, `30s`, `2m`, `1h` in milliseconds; throws VALIDATION outside [min, max]. */
export function durationMs(value: string, field: string, min: number, max: number): number {
  const match = /^([0-9]+)(ms|s|m|h)$/.exec(value);
  const ms = match ? Number(match[1]) * UNIT_MS[match[2]] : NaN;
  if (!(ms >= min && ms <= max)) throw validationError(`body.${field}: must be a duration like "30s" between ${min} ms and ${max} ms`);
  return ms;
}

export const pollingPeriodMs = (config: ConnectorConfig): number => durationMs(config.pollingPeriod, 'pollingPeriod', 1000, 86_400_000);

/**
 * The simulated provider reads and writes files, so its directory is confined: it must exist and resolve (symlinks
 * included) inside DATA_DIR or one of the bases listed in PAYMENTS_SIMULATED_DIRS, so a client with payments:write
 * cannot make the worker read or write arbitrary paths. Both the API (at install) and the worker (at each use) check.
 */
export function resolveSimulatedDirectory(directory: string, dataDir: string, extraBases: string[] = getConfig().paymentsSimulatedDirs): string {
  const bases = [dataDir, ...extraBases];
  let real: string;
  try {
    real = fs.realpathSync(path.resolve(dataDir, directory));
    if (!fs.statSync(real).isDirectory()) throw new Error('not a directory');
  } catch {
    throw validationError(`body.directory: "${directory}" is not an existing directory`);
  }
  const allowed = bases.some((base) => {
    let realBase: string;
    try {
      realBase = fs.realpathSync(base);
    } catch {
      return false;
    }
    const relative = path.relative(realBase, real);
    return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
  });
  if (!allowed) throw validationError('body.directory: must be inside DATA_DIR or a directory listed in PAYMENTS_SIMULATED_DIRS');
  return real;
}

/**
 * A config body as its plugin's schema and `normalize` accept it, with the polling period checked and defaulted: the
 * config to store. Throws VALIDATION naming the field, NOT_FOUND for a provider no plugin is loaded for.
 */
export function normalizeConnectorConfig(provider: ConnectorProvider, body: Record<string, unknown>, dataDir: string): ConnectorConfig {
  const config = validatePluginConfig(provider, body, dataDir);
  const pollingPeriod = typeof config.pollingPeriod === 'string' ? config.pollingPeriod : '2m';
  durationMs(pollingPeriod, 'pollingPeriod', 1000, 86_400_000);
  return { ...config, name: String(config.name), pollingPeriod };
}
