import path from 'node:path';
import type { BlockList } from 'node:net';
import { parseCidrList } from './webhooks/ssrf';

/**
 * The forms a setting of lib/config.ts can take: each states itself (for docs and error messages) and parses a raw
 * environment value (undefined: not of that form). Pure: nothing here reads the environment.
 */

/** The form a variable must have: how docs and errors state it, and its parser (undefined: not of that form). */
export interface Kind<T> {
  form: string;
  parse(raw: string): T | undefined;
  /** How a value is written in the environment, for the documented default. */
  show?(value: T): string;
}

/** Who reads a variable: the API, the worker, or the supervisor of `npm start` (which passes the rest to its children). */
export type Reader = 'api' | 'worker' | 'start';

export interface Setting<T = unknown, F = unknown> {
  variable: string;
  kind: Kind<T>;
  fallback: F;
  /** The default as the docs state it, where it is not simply the fallback (one computed from other settings). */
  defaultText?: string;
  readBy: readonly Reader[];
  doc: string;
}

export const DIGITS = /^-?[0-9]+$/;
export const DECIMAL = /^-?[0-9]+(\.[0-9]+)?$/;

export function integer(min: number, max = Number.MAX_SAFE_INTEGER): Kind<number> {
  const form = max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`;
  return { form, parse: (raw) => (DIGITS.test(raw) && Number(raw) >= min && Number(raw) <= max ? Number(raw) : undefined) };
}

export const port = integer(0, 65535);
/** Durations are whole milliseconds, at least 1 (a zero timeout or interval would spin or fail every call). */
export const milliseconds: Kind<number> = { ...integer(1), form: 'an integer ≥ 1 (milliseconds)' };

export function decimal(min: number): Kind<number> {
  return { form: `a number ≥ ${min}`, parse: (raw) => (DECIMAL.test(raw) && Number(raw) >= min ? Number(raw) : undefined) };
}

export function oneOf<const V extends string>(values: readonly V[], options: { ignoreCase?: boolean } = {}): Kind<V> {
  const form = `one of ${values.join(', ')}${options.ignoreCase ? ' (any case)' : ''}`;
  return { form, parse: (raw) => values.find((v) => (options.ignoreCase ? v.toLowerCase() === raw.toLowerCase() : v === raw)) };
}

export function flag(on: string, off: string): Kind<boolean> {
  return { form: `"${on}" or "${off}"`, parse: (raw) => (raw === on ? true : raw === off ? false : undefined), show: (value) => (value ? on : off) };
}

export function text(minLength = 1): Kind<string> {
  return {
    form: minLength > 1 ? `at least ${minLength} characters` : 'a non-empty string',
    parse: (raw) => (raw.length >= minLength ? raw : undefined),
  };
}

export function url(protocols: readonly string[]): Kind<string> {
  const parse = (raw: string) => {
    try {
      return protocols.includes(new URL(raw).protocol) ? raw : undefined;
    } catch {
      return undefined;
    }
  };
  return { form: `a URL (${protocols.map((p) => p.replace(/:$/, '')).join(' or ')})`, parse };
}

export const hostPort: Kind<string> = {
  form: 'host:port',
  parse: (raw) => (/^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):[0-9]{1,5}$/.test(raw) ? raw : undefined),
};

export const directory: Kind<string> = { form: 'a path', parse: (raw) => path.resolve(raw) };

export const directories: Kind<string[]> = {
  form: `paths separated by "${path.delimiter}"`,
  parse: (raw) =>
    raw
      .split(path.delimiter)
      .filter(Boolean)
      .map((p) => path.resolve(p)),
  show: (value) => value.join(path.delimiter),
};

/** Module paths (absolute, or relative to the working directory), comma-separated; each resolved to an absolute path. */
export const modulePaths: Kind<string[]> = {
  form: 'comma-separated module paths',
  parse: (raw) => {
    const paths = raw.split(',').map((p) => p.trim());
    if (paths.every((p) => p === '')) return [];
    return paths.some((p) => p === '') ? undefined : paths.map((p) => path.resolve(p));
  },
  show: (value) => value.join(','),
};

export const cidrs: Kind<BlockList> = {
  form: 'comma-separated IP addresses or CIDR ranges (v4 or v6)',
  parse: (raw) => {
    try {
      return parseCidrList(raw);
    } catch {
      return undefined;
    }
  },
};

/** The OTel list format of headers and resource attributes: `key=value,key2=value2`, values URL-encoded. */
export const keyValues: Kind<Record<string, string>> = {
  form: 'a list of key=value pairs separated by commas (values URL-encoded)',
  parse: (raw) => {
    const result: Record<string, string> = {};
    for (const item of raw.split(',')) {
      if (item.trim() === '') continue;
      const at = item.indexOf('=');
      if (at <= 0) return undefined;
      try {
        result[item.slice(0, at).trim()] = decodeURIComponent(item.slice(at + 1).trim());
      } catch {
        return undefined;
      }
    }
    return result;
  },
  show: (value) =>
    Object.entries(value)
      .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
      .join(','),
};

export const ratio: Kind<number> = {
  form: 'a number from 0 to 1',
  parse: (raw) => (DECIMAL.test(raw) && Number(raw) >= 0 && Number(raw) <= 1 ? Number(raw) : undefined),
};

/** OTel's boolean form: `true` or `false`, in any case. */
export const otelBoolean: Kind<boolean> = {
  form: '"true" or "false" (any case)',
  parse: (raw) => (raw.toLowerCase() === 'true' ? true : raw.toLowerCase() === 'false' ? false : undefined),
};

export function setting<T, const F extends T | undefined>(
  variable: string,
  kind: Kind<T>,
  fallback: F,
  readBy: readonly Reader[],
  doc: string,
  defaultText?: string,
): Setting<T, F> {
  return { variable, kind, fallback, readBy, doc, defaultText };
}
