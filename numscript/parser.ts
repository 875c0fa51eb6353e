import type {
  AllotmentShare, Destination, Expr, Overdraft, Program, Source, Statement, Target, VarDecl, VarOrigin, VarType,
} from './ast';
import { VAR_TYPES } from './ast';
import { compilationError } from './errors';
import { tokenize } from './lexer';
import { TokenCursor } from './token-cursor';
import { ACCOUNT_PATTERN, ASSET_PATTERN, parsePortion } from './values';

/**
 * Recursive-descent parser for the Numscript subset:
 *
 *   program     := ('vars' '{' (TYPE $name ('=' origin)?)* '}')? statement*
 *   origin      := 'meta' '(' expr ',' expr ')' | 'balance' '(' expr ',' expr ')'
 *   statement   := 'send' monetary '(' 'source' '=' source 'destination' '=' destination ')'
 *                | 'set_tx_meta' '(' expr ',' expr ')' | 'set_account_meta' '(' expr ',' expr ',' expr ')'
 *   source      := account ('allowing' ('unbounded' 'overdraft' | 'overdraft' 'up' 'to' monetary))?
 *                | 'max' monetary 'from' source | '{' source+ '}' | '{' (share 'from' source)+ '}'
 *   destination := account | '{' (share target)+ '}' | '{' ('max' monetary target)* 'remaining' target '}'
 *   target      := 'to' destination | 'kept'            share := portion | 'remaining'
 *   monetary    := $var | '[' (ASSET | $var) (NUMBER | $var | '*') ']'
 *
 * Types are not checked here (see checker.ts): a `$var` is accepted wherever some literal is.
 *
 * Sources and destinations nest (`{ ... }`, `max ... from`, `to { ... }`), and the parser, the checker and the
 * interpreter each recurse once per level: nesting deeper than MAX_NESTING is a compilation error at the block that
 * goes too deep, so no script can overflow the stack (expressions and arguments do not nest).
 */
export const MAX_NESTING = 64;

export function parse(source: string): Program {
  return new Parser(tokenize(source)).program();
}

class Parser extends TokenCursor {
  private depth = 0;

  /** Runs one level of a nested source or destination, refusing the level past MAX_NESTING. */
  private nested<T>(what: string, parse: () => T): T {
    if (this.depth > MAX_NESTING) throw compilationError(this.peek().pos, `${what} nested deeper than ${MAX_NESTING} levels`);
    this.depth++;
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  program(): Program {
    const vars = this.isWord('vars') ? this.varsBlock() : [];
    const statements: Statement[] = [];
    while (this.peek().kind !== 'eof') statements.push(this.statement());
    return { vars, statements };
  }

  private varsBlock(): VarDecl[] {
    this.next();
    this.expect('{');
    const vars: VarDecl[] = [];
    while (this.peek().kind !== '}') {
      const typeToken = this.expect('ident', 'a variable type');
      if (!VAR_TYPES.includes(typeToken.text as VarType)) {
        throw compilationError(typeToken.pos, `unknown type ${typeToken.text} (expected one of ${VAR_TYPES.join(', ')})`);
      }
      const name = this.expect('variable', 'a variable name').text;
      const decl: VarDecl = { type: typeToken.text as VarType, name, pos: typeToken.pos };
      if (this.accept('=')) decl.origin = this.origin();
      vars.push(decl);
    }
    this.next();
    return vars;
  }

  private origin(): VarOrigin {
    const token = this.expect('ident', 'meta() or balance()');
    if (token.text !== 'meta' && token.text !== 'balance') {
      throw compilationError(token.pos, `unknown function ${token.text} (expected meta or balance)`);
    }
    const [account, second] = this.args(2);
    return token.text === 'meta'
      ? { kind: 'meta', account, key: second, pos: token.pos }
      : { kind: 'balance', account, asset: second, pos: token.pos };
  }

  private statement(): Statement {
    const token = this.expect('ident', 'a statement');
    switch (token.text) {
      case 'send': {
        const amount = this.monetary(true);
        this.expect('(');
        this.keyword('source');
        this.expect('=');
        const source = this.source();
        this.keyword('destination');
        this.expect('=');
        const destination = this.destination();
        this.expect(')');
        return { kind: 'send', amount, source, destination, pos: token.pos };
      }
      case 'set_tx_meta': {
        const [key, value] = this.args(2);
        return { kind: 'set_tx_meta', key, value, pos: token.pos };
      }
      case 'set_account_meta': {
        const [account, key, value] = this.args(3);
        return { kind: 'set_account_meta', account, key, value, pos: token.pos };
      }
      default:
        throw compilationError(token.pos, `unknown statement ${token.text}`);
    }
  }

  private source(): Source {
    return this.nested('source', () => this.sourceLevel());
  }

  private sourceLevel(): Source {
    const token = this.peek();
    if (this.isWord('max')) {
      this.next();
      const limit = this.monetary(false);
      this.keyword('from');
      return { kind: 'max', limit, source: this.source(), pos: token.pos };
    }
    if (token.kind !== '{') {
      const account = this.accountExpr();
      return { kind: 'account', account, overdraft: this.overdraft(), pos: token.pos };
    }
    this.next();
    if (this.peek().kind === '}') throw compilationError(this.peek().pos, 'empty source block');
    if (!this.startsShare()) {
      const sources: Source[] = [];
      while (!this.accept('}')) sources.push(this.source());
      return { kind: 'inorder', sources, pos: token.pos };
    }
    const parts: Array<{ share: AllotmentShare; source: Source }> = [];
    while (!this.accept('}')) {
      const share = this.share();
      this.keyword('from');
      parts.push({ share, source: this.source() });
    }
    return { kind: 'allotment', parts, pos: token.pos };
  }

  private overdraft(): Overdraft | undefined {
    if (!this.isWord('allowing')) return undefined;
    this.next();
    if (this.isWord('unbounded')) {
      this.next();
      this.keyword('overdraft');
      return { kind: 'unbounded' };
    }
    this.keyword('overdraft');
    this.keyword('up');
    this.keyword('to');
    return { kind: 'bounded', limit: this.monetary(false) };
  }

  private destination(): Destination {
    return this.nested('destination', () => this.destinationLevel());
  }

  private destinationLevel(): Destination {
    const token = this.peek();
    if (token.kind !== '{') return { kind: 'account', account: this.accountExpr(), pos: token.pos };
    this.next();
    if (this.peek().kind === '}') throw compilationError(this.peek().pos, 'empty destination block');
    if (this.isWord('max')) {
      const parts: Array<{ limit: Expr; target: Target }> = [];
      while (this.isWord('max')) {
        this.next();
        const limit = this.monetary(false);
        parts.push({ limit, target: this.target() });
      }
      this.keyword('remaining');
      const remaining = this.target();
      this.expect('}');
      return { kind: 'inorder', parts, remaining, pos: token.pos };
    }
    const parts: Array<{ share: AllotmentShare; target: Target }> = [];
    while (!this.accept('}')) {
      const share = this.share();
      parts.push({ share, target: this.target() });
    }
    return { kind: 'allotment', parts, pos: token.pos };
  }

  private target(): Target {
    const token = this.peek();
    if (this.isWord('kept')) {
      this.next();
      return { kind: 'kept', pos: token.pos };
    }
    this.keyword('to');
    return { kind: 'to', destination: this.destination() };
  }

  /** An allotment item starts with a portion literal, `remaining`, or a variable followed by `from`/`to`/`kept`. */
  private startsShare(): boolean {
    const { kind, text } = this.peek();
    if (kind === 'percent' || kind === 'ratio' || (kind === 'ident' && text === 'remaining')) return true;
    const after = this.tokens[this.index + 1];
    return kind === 'variable' && after.kind === 'ident' && after.text === 'from';
  }

  private share(): AllotmentShare {
    const token = this.peek();
    if (this.isWord('remaining')) {
      this.next();
      return { kind: 'remaining', pos: token.pos };
    }
    if (token.kind !== 'percent' && token.kind !== 'ratio' && token.kind !== 'variable') {
      throw this.unexpected('a portion (like 1/3 or 25%) or remaining');
    }
    return { kind: 'portion', portion: this.expr(), pos: token.pos };
  }

  private monetary(allowAll: boolean): Expr {
    const token = this.peek();
    if (token.kind === 'variable') return this.expr();
    if (token.kind !== '[') throw this.unexpected('a monetary like [USD/2 100] or a variable');
    this.next();
    const assetToken = this.peek();
    if (assetToken.kind !== 'asset' && assetToken.kind !== 'variable') throw this.unexpected('an asset');
    const asset = this.expr();
    let amount: Expr | 'all';
    if (this.peek().kind === '*') {
      if (!allowAll) throw compilationError(this.peek().pos, '* (all available funds) is only allowed in send');
      this.next();
      amount = 'all';
    } else if (this.peek().kind === 'number' || this.peek().kind === 'variable') {
      amount = this.expr();
    } else {
      throw this.unexpected('an amount');
    }
    this.expect(']');
    return { kind: 'monetary', asset, amount, pos: token.pos };
  }

  private accountExpr(): Expr {
    const { kind } = this.peek();
    if (kind !== 'account' && kind !== 'variable') throw this.unexpected('an account like @users:001 or a variable');
    return this.expr();
  }

  /** Any single value: literal of any type, a monetary, or a variable. */
  private expr(): Expr {
    const token = this.next();
    const { pos, text } = token;
    switch (token.kind) {
      case 'variable':
        return { kind: 'var', name: text, pos };
      case 'account':
        if (!ACCOUNT_PATTERN.test(text)) throw compilationError(pos, `invalid account address @${text}`);
        return { kind: 'account', address: text, pos };
      case 'asset':
        if (!ASSET_PATTERN.test(text)) throw compilationError(pos, `invalid asset ${text}`);
        return { kind: 'asset', asset: text, pos };
      case 'number':
        return { kind: 'number', value: BigInt(text), pos };
      case 'string':
        return { kind: 'string', value: text, pos };
      case 'percent':
      case 'ratio': {
        const value = parsePortion(text);
        if (!value) throw compilationError(pos, `invalid portion ${text} (must be between 0 and 100%)`);
        return { kind: 'portion', value, pos };
      }
      case '[':
        this.index--;
        return this.monetary(false);
      default:
        this.index--;
        throw this.unexpected('a value');
    }
  }

  private args(count: number): Expr[] {
    this.expect('(');
    const args: Expr[] = [];
    for (let i = 0; i < count; i++) {
      if (i > 0) this.expect(',');
      args.push(this.expr());
    }
    this.expect(')');
    return args;
  }
}
