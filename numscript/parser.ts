import type { AllotmentShare, Destination, Expr, Overdraft, Program, Source, Statement, Target, VarDecl, VarType } from './ast';
import { VAR_TYPES } from './ast';
import { compilationError } from './errors';
import { tokenize, type Token } from './lexer';
import { TokenCursor } from './token-cursor';
import { ACCOUNT_PATTERN, ASSET_PATTERN, parsePortion } from './values';

/**
 * Recursive-descent parser for the Numscript subset:
 *
 *   program     := ('vars' '{' (TYPE $name ('=' expr)?)* '}')? statement*
 *   statement   := 'send' sent '(' 'source' '=' source 'destination' '=' destination ')' | 'save' sent 'from' expr
 *                | 'set_tx_meta' '(' expr ',' expr ')' | 'set_account_meta' '(' expr ',' expr ',' expr ')'
 *   source      := account ('\\' color)? ('allowing' ('unbounded' 'overdraft' | 'overdraft' 'up' 'to' expr))?
 *                  ('with' 'scaling' 'through' account)?
 *                | 'max' expr 'from' source | '{' source+ '}' | 'oneof' '{' source+ '}' | '{' (share 'from' source)+ '}'
 *   destination := account | '{' (share target)+ '}' | 'oneof'? '{' ('max' expr target)* 'remaining' target '}'
 *   target      := 'to' destination | 'kept'            share := expr | 'remaining'
 *   sent        := expr | '[' unary '*' ']'
 *   expr        := term (('+' | '-') term)*       term := unary ('/' unary)*       unary := '-' unary | primary
 *   primary     := $var | @account | ASSET | NUMBER | PERCENT | STRING | '[' unary expr ']' | NAME '(' args ')' | '(' expr ')'
 *
 * Types are not checked here (see checker.ts): a `$var` is accepted wherever some literal is.
 *
 * Sources and destinations nest (`{ ... }`, `max ... from`, `to { ... }`), and the parser, the checker and the
 * interpreter each recurse once per level: nesting deeper than MAX_NESTING is a compilation error at the block that
 * goes too deep, so no script can overflow the stack. Expressions nest too (parentheses, `-`, monetaries, calls), and
 * are bounded the same way, as are chains of `+`, `-` and `/`.
 */
export const MAX_NESTING = 64;

export function parse(source: string): Program {
  const { tokens, pragmas } = tokenize(source);
  return new Parser(tokens, pragmas).program();
}

class Parser extends TokenCursor {
  constructor(
    tokens: Token[],
    private readonly pragmas: string[],
  ) {
    super(tokens);
  }

  /** Levels entered, counted apart for blocks (sources, destinations) and for expressions inside them. */
  private readonly depth = { block: 0, expression: 0 };

  /** Runs one level of a nested source, destination or expression, refusing the level past MAX_NESTING. */
  private nested<T>(what: 'source' | 'destination' | 'expression', parse: () => T): T {
    const kind = what === 'expression' ? 'expression' : 'block';
    if (this.depth[kind] > MAX_NESTING) throw compilationError(this.peek().pos, `${what} nested deeper than ${MAX_NESTING} levels`);
    this.depth[kind]++;
    try {
      return parse();
    } finally {
      this.depth[kind]--;
    }
  }

  program(): Program {
    const vars = this.isWord('vars') ? this.varsBlock() : [];
    const statements: Statement[] = [];
    while (this.peek().kind !== 'eof') statements.push(this.statement());
    return { vars, statements, pragmas: this.pragmas };
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
      if (this.accept('=')) decl.origin = this.expr();
      vars.push(decl);
    }
    this.next();
    return vars;
  }

  private statement(): Statement {
    const token = this.expect('ident', 'a statement');
    switch (token.text) {
      case 'send': {
        const amount = this.sent();
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
      case 'save': {
        const amount = this.sent();
        this.keyword('from');
        return { kind: 'save', amount, account: this.expr(), pos: token.pos };
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
      const limit = this.expr();
      this.keyword('from');
      return { kind: 'max', limit, source: this.source(), pos: token.pos };
    }
    if (this.isWord('oneof')) {
      this.next();
      this.expect('{');
      const sources: Source[] = [];
      while (!this.accept('}')) sources.push(this.source());
      if (sources.length === 0) throw compilationError(token.pos, 'empty oneof block');
      return { kind: 'oneof', sources, pos: token.pos };
    }
    if (token.kind !== '{') {
      const account = this.accountExpr();
      const source: Source = { kind: 'account', account, pos: token.pos };
      if (this.accept('\\')) source.color = this.unary();
      source.overdraft = this.overdraft();
      if (this.isWord('with')) {
        this.next();
        this.keyword('scaling');
        this.keyword('through');
        source.scaling = this.accountExpr();
      }
      return source;
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
    return { kind: 'bounded', limit: this.expr() };
  }

  private destination(): Destination {
    return this.nested('destination', () => this.destinationLevel());
  }

  private destinationLevel(): Destination {
    const token = this.peek();
    const oneof = this.isWord('oneof');
    if (oneof) {
      this.next();
      if (this.peek().kind !== '{') throw this.unexpected("'{'");
    }
    if (this.peek().kind !== '{') return { kind: 'account', account: this.accountExpr(), pos: token.pos };
    this.next();
    if (this.peek().kind === '}') throw compilationError(this.peek().pos, 'empty destination block');
    if (oneof || this.isWord('max')) {
      const parts: Array<{ limit: Expr; target: Target }> = [];
      while (this.isWord('max')) {
        this.next();
        const limit = this.expr();
        parts.push({ limit, target: this.target() });
      }
      this.keyword('remaining');
      const remaining = this.target();
      this.expect('}');
      return { kind: oneof ? 'oneof' : 'inorder', parts, remaining, pos: token.pos };
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

  /** An allotment item starts with a portion (a literal, `(`, or a variable followed by `/` or `from`) or `remaining`. */
  private startsShare(): boolean {
    const { kind, text } = this.peek();
    if (kind === 'percent' || kind === 'number' || kind === '(' || (kind === 'ident' && text === 'remaining')) return true;
    const after = this.tokens[this.index + 1];
    return kind === 'variable' && ((after.kind === 'ident' && after.text === 'from') || after.kind === '/');
  }

  private share(): AllotmentShare {
    const token = this.peek();
    if (this.isWord('remaining')) {
      this.next();
      return { kind: 'remaining', pos: token.pos };
    }
    return { kind: 'portion', portion: this.expr(), pos: token.pos };
  }

  /** What a send or save moves: any monetary expression, or `[ASSET *]` (everything available). */
  private sent(): Expr {
    const token = this.peek();
    if (token.kind === '[' && this.tokens[this.index + 2]?.kind === '*') {
      this.next();
      const asset = this.unary();
      this.expect('*');
      this.expect(']');
      return { kind: 'monetary', asset, amount: 'all', pos: token.pos };
    }
    return this.expr();
  }

  private accountExpr(): Expr {
    const { kind } = this.peek();
    if (kind !== 'account' && kind !== 'variable') throw this.unexpected('an account like @users:001 or a variable');
    return this.primary();
  }

  /** Any value: literals, monetaries, variables, function calls, and `+`, `-`, `/` between them. */
  expr(): Expr {
    let left = this.term();
    for (let kind = this.peek().kind, terms = 1; kind === '+' || kind === '-'; kind = this.peek().kind, terms++) {
      this.chainLimit(terms);
      this.next();
      left = { kind: 'infix', op: kind, left, right: this.term(), pos: left.pos };
    }
    return left;
  }

  private term(): Expr {
    let left = this.unary();
    for (let factors = 1; this.peek().kind === '/'; factors++) {
      this.chainLimit(factors);
      this.next();
      left = { kind: 'infix', op: '/', left, right: this.unary(), pos: left.pos };
    }
    return left;
  }

  /**
   * `a + b + c` is a left-deep tree the checker and the interpreter walk recursively, one frame per operator: a chain
   * is bounded like any other nesting, so a script of a hundred thousand `+ 1` cannot overflow their stacks.
   */
  private chainLimit(operands: number): void {
    if (operands >= MAX_NESTING)
      throw compilationError(this.peek().pos, `expression with more than ${MAX_NESTING} operands in a row (use parentheses or variables)`);
  }

  /** Every nested expression (`-x`, `( … )`, `[ASSET amount]`, a call's arguments) passes here: one level each. */
  private unary(): Expr {
    return this.nested('expression', () => this.unaryLevel());
  }

  private unaryLevel(): Expr {
    const token = this.peek();
    if (token.kind !== '-') return this.primary();
    this.next();
    return { kind: 'negate', operand: this.unary(), pos: token.pos };
  }

  private primary(): Expr {
    const token = this.next();
    const { pos, text } = token;
    switch (token.kind) {
      case 'variable':
        return { kind: 'var', name: text, pos };
      case 'account':
        return this.account(text, pos);
      case 'asset':
        if (!ASSET_PATTERN.test(text)) throw compilationError(pos, `invalid asset ${text}`);
        return { kind: 'asset', asset: text, pos };
      case 'number':
        return { kind: 'number', value: BigInt(text), pos };
      case 'string':
        return { kind: 'string', value: text, pos };
      case 'percent': {
        const value = parsePortion(text);
        if (!value) throw compilationError(pos, `invalid portion ${text} (must be between 0 and 100%)`);
        return { kind: 'portion', value, pos };
      }
      case '(': {
        const inner = this.expr();
        this.expect(')');
        return inner;
      }
      case '[': {
        if (this.peek().kind === '*') throw compilationError(this.peek().pos, '* (all available funds) is only allowed in send and save');
        const asset = this.unary();
        if (this.peek().kind === '*') throw compilationError(this.peek().pos, '* (all available funds) is only allowed in send and save');
        const amount = this.expr();
        this.expect(']');
        return { kind: 'monetary', asset, amount, pos };
      }
      case 'ident':
        if (this.peek().kind === '(') return { kind: 'call', name: text, args: this.callArgs(), pos };
        this.index--;
        throw this.unexpected('a value');
      default:
        this.index--;
        throw this.unexpected('a value');
    }
  }

  /** `@a:b`, or with `$var` segments (interpolation): the parts keep the literal segments and the variables. */
  private account(text: string, pos: Expr['pos']): Expr {
    if (!text.includes('$')) {
      if (!ACCOUNT_PATTERN.test(text)) throw compilationError(pos, `invalid account address @${text}`);
      return { kind: 'account', address: text, pos };
    }
    const parts: Array<string | Expr> = [];
    text.split(':').forEach((segment, i) => {
      if (i > 0) parts.push(':');
      if (!/^(?:[a-zA-Z0-9_-]+|\$[a-z_][a-z0-9_]*)$/.test(segment)) throw compilationError(pos, `invalid account address @${text}`);
      parts.push(segment.startsWith('$') ? { kind: 'var', name: segment.slice(1), pos } : segment);
    });
    return { kind: 'account', address: text, parts, pos };
  }

  private callArgs(): Expr[] {
    this.expect('(');
    const args: Expr[] = [];
    while (!this.accept(')')) {
      if (args.length > 0) this.expect(',');
      args.push(this.expr());
    }
    return args;
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
