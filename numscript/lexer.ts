import type { Pos } from './ast';
import { compilationError } from './errors';

/**
 * A hand-written lexer for the Numscript subset. Tokens keep their position (1-based line and column) so the parser
 * and checker can report `line:column:` of the offending token. Comments (`// ...` and `/* ... *\/`) and whitespace
 * (newlines included: Numscript needs no separators) are skipped.
 */
export type TokenKind =
  | 'ident' // keywords and function names: send, source, max, meta, set_tx_meta, ...
  | 'variable' // $name
  | 'account' // @a:b:c
  | 'asset' // USD/2, EUR_CENTS
  | 'number' // 42
  | 'percent' // 12.5%
  | 'ratio' // 1/3
  | 'string' // "text"
  | '[' | ']' | '(' | ')' | '{' | '}' | '=' | ',' | '*'
  | 'eof';

export interface Token {
  kind: TokenKind;
  text: string; // the value: without `$`/`@`/quotes, strings unescaped
  pos: Pos;
}

const PUNCTUATION = new Set(['[', ']', '(', ')', '{', '}', '=', ',', '*']);
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', n: '\n', t: '\t', r: '\r' };

/** Patterns anchored at the lexer's position (sticky), tried in order. */
const RULES: Array<[TokenKind, RegExp]> = [
  ['ratio', /\d+ ?\/ ?\d+/y],
  ['percent', /\d+(?:\.\d+)?%/y],
  ['number', /\d+/y],
  ['variable', /\$[a-z_][a-z0-9_]*/y],
  ['account', /@[a-zA-Z0-9_:-]+/y],
  ['asset', /[A-Z][A-Z0-9_]*(?:\/\d+)?/y],
  ['ident', /[a-z_][a-z0-9_]*/y],
];

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
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
    if (/\s/.test(ch)) {
      advance(1);
    } else if (source.startsWith('//', offset)) {
      const end = source.indexOf('\n', offset);
      advance((end < 0 ? source.length : end) - offset);
    } else if (source.startsWith('/*', offset)) {
      const end = source.indexOf('*/', offset + 2);
      if (end < 0) throw compilationError(here(), 'unterminated comment');
      advance(end + 2 - offset);
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
  return tokens;
}

function matchRule(source: string, offset: number, pos: Pos): { token: Token; length: number } {
  for (const [kind, pattern] of RULES) {
    pattern.lastIndex = offset;
    const match = pattern.exec(source);
    if (!match) continue;
    const raw = match[0];
    const text = kind === 'variable' || kind === 'account' ? raw.slice(1) : raw;
    return { token: { kind, text: kind === 'ratio' ? raw.replace(/ /g, '') : text, pos }, length: raw.length };
  }
  throw compilationError(pos, `unexpected character ${JSON.stringify(source[offset])}`);
}

/** Reads a string literal starting at `offset`; strings may not span lines. */
function readString(source: string, offset: number, pos: Pos): { token: Token; length: number } {
  let value = '';
  for (let i = offset + 1; i < source.length; i++) {
    const ch = source[i];
    if (ch === '"') return { token: { kind: 'string', text: value, pos }, length: i + 1 - offset };
    if (ch === '\n') break;
    if (ch === '\\') {
      const escaped = ESCAPES[source[i + 1]];
      if (escaped === undefined) throw compilationError(pos, `invalid escape \\${source[i + 1] ?? ''} in string`);
      value += escaped;
      i++;
    } else {
      value += ch;
    }
  }
  throw compilationError(pos, 'unterminated string');
}
