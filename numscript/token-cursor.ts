import { compilationError } from './errors';
import type { Token, TokenKind } from './lexer';

/**
 * The parser's view of the token list: where it stands, what comes next, and the compilation error for what it did not
 * expect (with the token's position). The grammar itself is in parser.ts.
 */
export abstract class TokenCursor {
  protected index = 0;

  constructor(protected readonly tokens: Token[]) {}

  protected peek(): Token {
    return this.tokens[this.index];
  }

  protected next(): Token {
    const token = this.tokens[this.index];
    if (token.kind !== 'eof') this.index++;
    return token;
  }

  protected isWord(word: string): boolean {
    const token = this.peek();
    return token.kind === 'ident' && token.text === word;
  }

  protected accept(kind: TokenKind): boolean {
    if (this.peek().kind !== kind) return false;
    this.next();
    return true;
  }

  protected expect(kind: TokenKind, what: string = `'${kind}'`): Token {
    if (this.peek().kind !== kind) throw this.unexpected(what);
    return this.next();
  }

  protected keyword(word: string): void {
    if (!this.isWord(word)) throw this.unexpected(`'${word}'`);
    this.next();
  }

  protected unexpected(what: string): Error {
    const token = this.peek();
    const found = token.kind === 'eof' ? 'end of script' : describe(token);
    return compilationError(token.pos, `expected ${what}, found ${found}`);
  }
}

function describe(token: Token): string {
  const prefix = token.kind === 'variable' ? '$' : token.kind === 'account' ? '@' : '';
  return token.kind === 'string' ? JSON.stringify(token.text) : `'${prefix}${token.text}'`;
}
