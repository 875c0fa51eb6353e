import { validationError } from '../../../lib/errors';
import { compileLinear, type LinearPattern } from '../../../lib/regex';

/**
 * Formance's chart of accounts (V2SchemaData.chart): a tree of address segments. A key is a fixed segment (`users`), a
 * variable one (`$userID`, at most one per level, optionally restricted by a `.pattern` regular expression, RE2 syntax
 * matched in linear time as Formance's Go regexps are: see lib/regex.ts) or a
 * property: `.self: {}` makes a segment that has children an account too (a leaf always is one), `.metadata` gives an
 * account's metadata keys with an optional `default`, `.rules` its rules (Formance defines none yet, so it is `{}`).
 * An address is allowed when its segments walk the tree to an account.
 */
export interface ChartAccount {
  metadata: Record<string, { default?: string }>;
}

export interface ChartNode {
  fixed: Map<string, ChartNode>;
  variable?: { label: string; pattern?: LinearPattern; node: ChartNode };
  account?: ChartAccount;
}

const SEGMENT = /^(\$|\.)?[a-zA-Z0-9_-]+$/;
const PROPERTIES = new Set(['.self', '.metadata', '.rules', '.pattern']);
const MAX_PATTERN = 256;

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function parseMetadata(value: unknown, where: string): ChartAccount['metadata'] {
  if (!isRecord(value)) throw validationError(`${where}: must be an object of {default?: string}`);
  const out: ChartAccount['metadata'] = {};
  for (const [key, spec] of Object.entries(value)) {
    if (!isRecord(spec) || Object.keys(spec).some((k) => k !== 'default')) throw validationError(`${where}.${key}: must be {default?: string}`);
    if (spec.default !== undefined && typeof spec.default !== 'string') throw validationError(`${where}.${key}.default: must be a string`);
    out[key] = spec.default !== undefined ? { default: spec.default } : {};
  }
  return out;
}

function parsePattern(value: unknown, where: string): LinearPattern {
  if (typeof value !== 'string' || value.length > MAX_PATTERN)
    throw validationError(`${where}: must be a regular expression of at most ${MAX_PATTERN} characters`);
  try {
    return compileLinear(value);
  } catch (error) {
    throw validationError(`${where}: invalid regular expression (${(error as Error).message}; RE2 syntax: no backreferences, no lookaround)`);
  }
}

function parseSegment(value: unknown, where: string): ChartNode {
  if (!isRecord(value)) throw validationError(`${where}: a segment must be an object`);
  const node: ChartNode = { fixed: new Map() };
  let self = false;
  let metadata: ChartAccount['metadata'] = {};
  for (const [key, child] of Object.entries(value)) {
    const path = `${where}.${key}`;
    if (!SEGMENT.test(key)) throw validationError(`${path}: invalid segment name`);
    if (key.startsWith('.')) {
      if (!PROPERTIES.has(key)) throw validationError(`${path}: unknown property; properties are ${[...PROPERTIES].join(', ')}`);
      if (key === '.self' && (!isRecord(child) || Object.keys(child).length > 0)) throw validationError(`${path}: must be an empty object`);
      if (key === '.self') self = true;
      if (key === '.metadata') metadata = parseMetadata(child, path);
      if (key === '.rules' && (!isRecord(child) || Object.keys(child).length > 0))
        throw validationError(`${path}: must be {} (Formance defines no account rule yet)`);
      continue;
    }
    if (isRecord(child) && child['.pattern'] !== undefined && !key.startsWith('$'))
      throw validationError(`${path}: a fixed segment cannot have a .pattern`);
    const sub = parseSegment(child, path);
    if (key.startsWith('$')) {
      if (node.variable) throw validationError(`${path}: a level has at most one variable segment (${node.variable.label} is one)`);
      const pattern = isRecord(child) && child['.pattern'] !== undefined ? parsePattern(child['.pattern'], `${path}..pattern`) : undefined;
      node.variable = { label: key, ...(pattern ? { pattern } : {}), node: sub };
    } else {
      node.fixed.set(key, sub);
    }
  }
  const leaf = node.fixed.size === 0 && !node.variable;
  if (self || leaf) node.account = { metadata };
  else if ('.metadata' in value || '.rules' in value) throw validationError(`${where}: .metadata and .rules need an account (add .self: {})`);
  return node;
}

/** Parses and checks a chart of accounts. @throws ApiError VALIDATION naming the offending key */
export function parseChart(chart: unknown): ChartNode {
  if (!isRecord(chart)) throw validationError('chart: must be an object');
  const root: ChartNode = { fixed: new Map() };
  for (const [key, value] of Object.entries(chart)) {
    const path = `chart.${key}`;
    if (!SEGMENT.test(key) || key.startsWith('$') || key.startsWith('.')) throw validationError(`${path}: the root holds fixed segments only`);
    if (isRecord(value) && value['.pattern'] !== undefined) throw validationError(`${path}: a fixed segment cannot have a .pattern`);
    root.fixed.set(key, parseSegment(value, path));
  }
  return root;
}

/** The account an address walks to, or why it does not (the rule it breaks, for a 400). */
export function findAccount(root: ChartNode, address: string): { account: ChartAccount } | { violation: string } {
  const segments = address.split(':');
  let node = root;
  for (const [i, segment] of segments.entries()) {
    const at = i === 0 ? 'the root' : `"${segments.slice(0, i).join(':')}"`;
    const last = i === segments.length - 1;
    let next = node.fixed.get(segment);
    if (!next && node.variable) {
      const { pattern } = node.variable;
      if (pattern && !pattern.test(segment)) {
        return { violation: `segment "${segment}" under ${at} does not match ${node.variable.label}'s pattern ${pattern.source}` };
      }
      next = node.variable.node;
    }
    if (!next) return { violation: `${at} has no segment "${segment}"` };
    if (last)
      return next.account
        ? { account: next.account }
        : { violation: `"${address}" is not an account of the chart (it has sub-accounts and no .self)` };
    node = next;
  }
  return { violation: 'empty address' };
}

/** Default metadata of an account: its `.metadata` keys that have a default. */
export const defaultMetadata = (account: ChartAccount): Record<string, string> =>
  Object.fromEntries(Object.entries(account.metadata).flatMap(([key, spec]) => (spec.default !== undefined ? [[key, spec.default]] : [])));
