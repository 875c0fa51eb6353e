import { randomBytes } from 'node:crypto';
import { isInteger, parse as losslessParse } from 'lossless-json';

/**
 * JSON with exact integers of any size. Amounts travel as JSON numbers on the wire and as BigInt inside: integers beyond
 * Number.MAX_SAFE_INTEGER are parsed to BigInt, every other number stays a plain number.
 */

// Digits long enough to exceed 2^53 can only come from 16 consecutive digits; the fast path skips the lossless parser.
const LONG_DIGITS = /\d{16,}/;

function parseNumber(text: string): number | bigint {
  if (isInteger(text)) {
    const value = Number(text);
    return Number.isSafeInteger(value) ? value : BigInt(text);
  }
  return Number(text);
}

/** Deepest nesting accepted in a request body; deeper documents are refused before parsing (stack and CPU safety). */
export const MAX_JSON_DEPTH = 64;

/**
 * One pass over the text outside strings: the deepest nesting, and the first number not written as plain integer
 * digits (a fraction or an exponent). Request bodies hold only integers (amounts, ids, sizes), and `1e30` or `1.0`
 * would otherwise reach them through a double: 1e30 reads as 1000000000000000019884624838656, not 10^30.
 */
function scan(text: string, stopAtNonInteger: boolean): { depth: number; nonInteger?: string } {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
    else if (c === 45 || (c >= 48 && c <= 57)) {
      let end = i + 1;
      while (end < text.length && /[0-9.eE+-]/.test(text[end])) end++;
      const token = text.slice(i, end);
      if (stopAtNonInteger && /[.eE]/.test(token)) return { depth: max, nonInteger: token };
      i = end - 1;
    }
  }
  return { depth: max };
}

export interface ParseOptions {
  /** Refuse documents nested deeper than this (stack and CPU safety). */
  maxDepth?: number;
  /** Refuse any number written with a fraction or an exponent (see scan). */
  integersOnly?: boolean;
}

export function parseJson(text: string, options: ParseOptions = {}): unknown {
  if (options.maxDepth !== undefined || options.integersOnly) {
    const { depth, nonInteger } = scan(text, options.integersOnly === true);
    if (options.maxDepth !== undefined && depth > options.maxDepth) throw new SyntaxError(`nesting deeper than ${options.maxDepth} levels`);
    if (options.integersOnly && nonInteger !== undefined) {
      throw new SyntaxError(`the number ${nonInteger.slice(0, 40)} is not an integer written with digits only (no fraction, no exponent)`);
    }
  }
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  return losslessParse(text, undefined, parseNumber);
}

// A per-process random marker: a client cannot forge it inside a string to make the serializer unquote its data.
const MARKER = `~big${randomBytes(12).toString('hex')}~`;
const MARKED = new RegExp(`"${MARKER}(-?\\d+)"`, 'g');

const PLAIN_PROTOTYPES: ReadonlySet<object | null> = new Set([Object.prototype, Array.prototype, null]);

/** What JSON.stringify writes in place of a value: its toJSON(key) result, and the primitive inside a boxed one. */
function jsonValue(value: unknown, key: string): unknown {
  if (value === null || typeof value !== 'object') return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  const replaced = typeof toJSON === 'function' ? (toJSON.call(value, key) as unknown) : value;
  // Plain objects and arrays (nearly every value written) cannot be boxed primitives: no instanceof walk for them.
  if (replaced === null || typeof replaced !== 'object' || PLAIN_PROTOTYPES.has(Object.getPrototypeOf(replaced))) return replaced;
  return replaced instanceof Number || replaced instanceof String || replaced instanceof Boolean ? replaced.valueOf() : replaced;
}

/**
 * A string as a JSON string literal. Most strings (keys, addresses, assets, dates) need no escape: they are quoted as
 * they are, without a call into JSON.stringify; any other goes through it (control characters, quotes, backslashes,
 * surrogates, which JSON.stringify escapes when lone).
 */
export function quoteJson(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(text);
  }
  return `"${text}"`;
}

/** JSON.stringify's output, member for member, with BigInts as the integers they are; undefined where it writes nothing. */
function serialize(raw: unknown, key: string): string | undefined {
  const value = jsonValue(raw, key);
  switch (typeof value) {
    case 'string':
      return quoteJson(value);
    case 'bigint':
      return value.toString();
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i += 1) {
          if (i > 0) out += ',';
          out += serialize(value[i], String(i)) ?? 'null';
        }
        return `${out}]`;
      }
      let out = '{';
      let first = true;
      for (const member of Object.keys(value)) {
        const text = serialize((value as Record<string, unknown>)[member], member);
        if (text === undefined) continue;
        if (first) first = false;
        else out += ',';
        out += `${quoteJson(member)}:${text}`;
      }
      return `${out}}`;
    }
    default:
      return undefined;
  }
}

/**
 * JSON.stringify with BigInts written as the exact integers they are. Compact output (every API body) is written by
 * our own walk of the value, which V8 runs faster than JSON.stringify with any BigInt hook: a replacer is called back
 * for every value, and a BigInt.prototype.toJSON installed for the call changes a builtin prototype at every call
 * (measured on a transaction with its volumes: 84 us per call with that hook, 52 us with the walk; on a page of 1000,
 * 40 ms against 31 ms). Indented output (files a person reads) keeps the replacer.
 */
export function stringifyJson(value: unknown, space?: number): string {
  if (space === undefined) {
    try {
      return serialize(value, '') as string;
    } catch (error) {
      // The walk has no cycle check of its own: a cyclic value ends in a stack overflow, reported as JSON.stringify does.
      if (error instanceof RangeError) throw new TypeError(`Converting circular structure to JSON (or nesting too deep): ${error.message}`);
      throw error;
    }
  }
  const text = JSON.stringify(value, (_key, member: unknown) => (typeof member === 'bigint' ? `${MARKER}${member.toString()}` : member), space);
  return text !== undefined && text.includes(MARKER) ? text.replace(MARKED, '$1') : text;
}

/**
 * The canonical text of a JSON value, for hashing: object keys sorted by UTF-16 code units at every level (as RFC 8785),
 * no whitespace, integers of any size digit for digit, dates as ISO 8601 (what stringifyJson writes), undefined members
 * dropped. Two values that serialize to the same JSON document have the same canonical text whatever their key order,
 * and whether an integer was read as a number or a BigInt.
 */
export function canonicalJson(value: unknown): string {
  // Loops and string appends rather than map/filter/join: the log hasher and the ledger's verification run this on
  // every log, and the closures and intermediate arrays were most of what it cost.
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return quoteJson(value);
    case 'bigint':
      return value.toString();
    case 'object':
      break;
    default:
      return JSON.stringify(value);
  }
  if (value instanceof Date) return quoteJson(value.toISOString());
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) text += ',';
      const member: unknown = value[i];
      // As Array.prototype.join: a member without JSON text (a function) leaves its place empty.
      text += member === undefined ? 'null' : (canonicalJson(member) ?? '');
    }
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let text = '{';
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    if (text.length > 1) text += ',';
    text += `${quoteJson(key)}:${canonicalJson(member)}`;
  }
  return `${text}}`;
}
