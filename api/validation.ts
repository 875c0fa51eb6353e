import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { JsonSchema } from './routing';
import { stringifyJson } from '../lib/json';

/**
 * Two ajv instances, each compiling a schema once at start-up: bodies are validated strictly (no coercion), path and
 * query parameters arrive as strings and are coerced to the declared types.
 */
function buildAjv(coerce: boolean): Ajv {
  // `discriminator`: a oneOf that declares one validates only the branch its tag names, so errors point into that branch.
  // `verbose` gives an error its parent schema, where describeErrors finds the values such a tag accepts.
  const ajv = new Ajv({
    allErrors: false,
    strict: false,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: false,
    discriminator: true,
    verbose: true,
  });
  addFormats(ajv);
  // Amounts and ids of any size: integers from the JSON parser are numbers when safe and BigInt beyond; a path or query
  // parameter is a string, read digit for digit (ajv's coercion would round it to a double).
  ajv.addKeyword({
    keyword: 'bigInteger',
    errors: true,
    compile(range: IntegerRange) {
      const { minimum, maximum } = range;
      const message = maximum === undefined ? `must be an integer >= ${minimum}` : `must be an integer from ${minimum} to ${maximum}`;
      const bigInteger: ((data: unknown) => boolean) & { errors?: Partial<ErrorObject>[] } = (data) => {
        const value = exactInteger(data, coerce);
        const ok = value !== undefined && value >= minimum && (maximum === undefined || value <= maximum);
        bigInteger.errors = ok ? undefined : [{ keyword: 'bigInteger', message, params: {} }];
        return ok;
      };
      return bigInteger;
    },
  });
  return ajv;
}

/** Exact bounds: ajv's own `maximum` takes only numbers, and 2^63 - 1 is not one. */
interface IntegerRange {
  minimum: bigint;
  maximum?: bigint;
}

function exactInteger(data: unknown, digits: boolean): bigint | undefined {
  if (typeof data === 'bigint') return data;
  if (typeof data === 'number') return Number.isInteger(data) ? BigInt(data) : undefined;
  return digits && typeof data === 'string' && /^-?[0-9]+$/.test(data) ? BigInt(data) : undefined;
}

const bodyAjv = buildAjv(false);
const paramAjv = buildAjv(true);

const bound = (value: unknown) => (typeof value === 'number' || typeof value === 'bigint' ? BigInt(value) : undefined);

/**
 * Rewrites `{type: integer, format: bigint | int64}` nodes into the `bigInteger` keyword; the document keeps the original,
 * whose BigInt bounds it prints exactly. Without `type`, ajv leaves a parameter's string as it is for the keyword.
 */
function forAjv(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forAjv);
  if (!schema || typeof schema !== 'object') return schema;
  const node = schema as Record<string, unknown>;
  if (node.format === 'bigint' || node.format === 'int64') {
    const { type: _type, format: _format, minimum, maximum, ...rest } = node;
    const range: IntegerRange = { minimum: bound(minimum) ?? BigInt(Number.MIN_SAFE_INTEGER), maximum: bound(maximum) };
    return { ...rest, bigInteger: range };
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, forAjv(v)]));
}

export type Validator = ValidateFunction;

export function compileBody(schema: JsonSchema): Validator {
  return bodyAjv.compile(forAjv(schema) as object);
}

export function compileParams(schema: JsonSchema): Validator {
  return paramAjv.compile(forAjv(schema) as object);
}

/** `body.postings/0/amount: must be an integer >= 0`, the JSON path first so a client can find the field. */
export function describeErrors(where: string, errors: ErrorObject[] | null | undefined): string {
  const error = errors?.[0];
  if (!error) return `${where}: invalid`;
  const path = `${where}${error.instancePath.replace(/\//g, '.').replace(/\.(\d+)/g, '[$1]')}`;
  if (error.keyword === 'additionalProperties') {
    return `${path}: unknown field "${(error.params as { additionalProperty: string }).additionalProperty}"`;
  }
  if (error.keyword === 'required') return `${path}: missing required field "${(error.params as { missingProperty: string }).missingProperty}"`;
  if (error.keyword === 'enum') return `${path}: must be one of ${stringifyJson((error.params as { allowedValues: unknown[] }).allowedValues)}`;
  if (error.keyword === 'discriminator') {
    const { error: kind, tag, tagValue } = error.params as { error: 'tag' | 'mapping'; tag: string; tagValue: unknown };
    if (tagValue === undefined) return `${path}: missing required field "${tag}"`;
    if (kind === 'tag') return `${path}.${tag}: must be a string`;
    return `${path}.${tag}: must be one of ${stringifyJson(discriminatorValues(error.parentSchema, tag))}`;
  }
  return `${path}: ${error.message ?? 'is invalid'}`;
}

/** The values a discriminated oneOf accepts for its tag (each branch's `const` or `enum`). */
function discriminatorValues(schema: unknown, tag: string): unknown[] {
  const branches = (schema as { oneOf?: Array<{ properties?: Record<string, { const?: unknown; enum?: unknown[] }> }> } | undefined)?.oneOf ?? [];
  return branches.flatMap((branch) => {
    const property = branch.properties?.[tag];
    return property?.const !== undefined ? [property.const] : (property?.enum ?? []);
  });
}

// NUL, or a UTF-16 surrogate without its pair.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * PostgreSQL text and jsonb cannot hold NUL, and UTF-8 cannot encode an unpaired surrogate, so such strings (values or
 * object keys) are refused as input up front instead of failing in the database as a 500. Returns the path of the first
 * offending string, or undefined.
 */
export function findUnstorableText(value: unknown, where: string): string | undefined {
  // The common answer, none, without building the path of every string on the way; only a value that holds one is
  // walked again for its path (once: the walk below does not repeat this check at every level).
  return holdsUnstorableText(value) ? locateUnstorableText(value, where) : undefined;
}

function locateUnstorableText(value: unknown, where: string): string | undefined {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? where : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = locateUnstorableText(value[i], `${where}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (UNSTORABLE.test(key)) return `${where} (a key)`;
      const found = locateUnstorableText(inner, `${where}.${key}`);
      if (found) return found;
    }
  }
  return undefined;
}

function holdsUnstorableText(value: unknown): boolean {
  if (typeof value === 'string') return UNSTORABLE.test(value);
  if (Array.isArray(value)) return value.some(holdsUnstorableText);
  if (value && typeof value === 'object') {
    for (const key of Object.keys(value)) if (UNSTORABLE.test(key) || holdsUnstorableText((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}
