import type { Pos } from './ast';
import { compilationError } from './errors';

/**
 * A hand-written lexer for Numscript. Tokens keep their position (1-based line and column) so the parser and checker
 * can report `line:column:` of the offending token. Comments (`// ...` and `/* ... *\/`) and whitespace (newlines
 * included: Numscript needs no separators) are skipped. `#![feature("…")]` pragmas are collected apart.
 */
export type TokenKind =
  | 'ident' // keywords and function names: send, source, max, meta, set_tx_meta, ...
  | 'variable' // $name
  | 'account' // @a:b:c, or @a:$id (interpolated: the text keeps the `$`)
  | 'asset' // USD, USD/2 (capitals and digits, as Formance's lexer: no `_`)
  | 'number' // 42, 10_000 (text without the separators; a `_` only between digits)
  | 'percent' // 12.5%
  | 'string' // "text"
  | '['
  | ']'
  | '('
  | ')'
  | '{'
  | '}'
  | '='
  | ','
  | '*'
  | '/'
  | '+'
  | '-'
  | '\\'
  | 'eof';

export interface Token {
  kind: TokenKind;
  text: string; // the value: without `$`/`@`/quotes
  pos: Pos;
}

export interface Lexed {
  tokens: Token[];
  /** Feature flags the script turns on with `#![feature("…")]`. */
  pragmas: string[];
}

const PUNCTUATION = new Set(['[', ']', '(', ')', '{', '}', '=', ',', '*', '/', '+', '-', '\\']);

/** Patterns anchored at the lexer's position (sticky), tried in order. */
const RULES: Array<[TokenKind, RegExp]> = [
  ['percent', /\d+(?:\.\d+)?%/y],
  ['number', /\d+(?:_\d+)*/y],
  ['variable', /\$[a-z_][a-z0-9_]*/y],
  ['account', /@(?:[a-zA-Z0-9_:-]|\$[a-z_][a-z0-9_]*)+/y],
  ['asset', /[A-Z][A-Z0-9]*(?:\/\d+)?/y],
  ['ident', /[a-z_][a-z0-9_]*/y],
];

const PRAGMA = /#!\[feature\(([^)\n]*)\)\]/y;

export function tokenize(source: string): Lexed {
  const tokens: Token[] = [];
  const pragmas: string[] = [];
  let offset = 0;
  let line = 1;
  let lineStart = 0;
  const here = (): Pos => ({ line, column: offset - lineStart + 1 });
  // Advances over `length` characters, keeping line/column right across newlines inside comments and strings.
  const advance = (length: number) => {
    for (const end = offset + length; offset < end; offset++) {
      if (source[offset] === '\n') {
        line++;
        lineStart = offset + 1;
      }
    }
  };

  while (offset < source.length) {
    const ch = source[offset];
    if (ch === ' ' || ch === '\n' || ch === '\t' || ch === '\r' || /\s/.test(ch)) {
      advance(1);
    } else if (source.startsWith('//', offset)) {
      // Formance's lexer ends a line comment at a newline only: one that runs to the end of the script is refused.
      const newline = /[\r\n]/g;
      newline.lastIndex = offset;
      const end = newline.exec(source)?.index;
      if (end === undefined) throw compilationError(here(), 'a // comment must end with a newline');
      advance(end - offset);
    } else if (source.startsWith('/*', offset)) {
      const end = source.indexOf('*/', offset + 2);
      if (end < 0) throw compilationError(here(), 'unterminated comment');
      advance(end + 2 - offset);
    } else if (ch === '#') {
      PRAGMA.lastIndex = offset;
      const match = PRAGMA.exec(source);
      if (!match) throw compilationError(here(), 'expected a pragma like #![feature("experimental-oneof")]');
      for (const flag of match[1].split(',')) {
        const name = /^\s*"([^"]*)"\s*$/.exec(flag);
        if (!name) throw compilationError(here(), 'a feature pragma lists quoted flag names');
        pragmas.push(name[1]);
      }
      advance(match[0].length);
    } else if (ch === '"') {
      const { token, length } = readString(source, offset, here());
      tokens.push(token);
      advance(length);
    } else if (PUNCTUATION.has(ch)) {
      tokens.push({ kind: ch as TokenKind, text: ch, pos: here() });
      advance(1);
    } else {
      const token = matchRule(source, offset, here());
      tokens.push(token.token);
      advance(token.length);
    }
  }
  tokens.push({ kind: 'eof', text: '', pos: here() });
  return { tokens, pragmas };
}

function matchRule(source: string, offset: number, pos: Pos): { token: Token; length: number } {
  for (const [kind, pattern] of RULES) {
    pattern.lastIndex = offset;
    const match = pattern.exec(source);
    if (!match) continue;
    const raw = match[0];
    let text = raw;
    if (kind === 'variable' || kind === 'account') text = raw.slice(1);
    else if (kind === 'number' || kind === 'percent') text = raw.replace(/_/g, '');
    return { token: { kind, text, pos }, length: raw.length };
  }
  throw compilationError(pos, `unexpected character ${JSON.stringify(source[offset])}`);
}

/**
 * Reads a string literal starting at `offset`; strings may not span lines. As in Formance, the text between the quotes
 * is kept as written: a backslash escapes nothing, it only lets `\"` not end the string.
 */
function readString(source: string, offset: number, pos: Pos): { token: Token; length: number } {
  for (let i = offset + 1; i < source.length; i++) {
    const ch = source[i];
    if (ch === '"') return { token: { kind: 'string', text: source.slice(offset + 1, i), pos }, length: i + 1 - offset };
    if (ch === '\n') break;
    if (ch === '\\') i++;
  }
  throw compilationError(pos, 'unterminated string');
}
