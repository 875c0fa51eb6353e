import type { AllotmentShare, Destination, Expr, Portion, Program, Source, Target, VarDecl, VarType } from './ast';
import { compilationError } from './errors';
import { FEATURES, type Feature } from './features';
import { addPortions, ratio, withArticle } from './values';

/**
 * Static checks run once at compile time: every variable is declared once before use (an origin may only use the
 * variables declared above it), every expression has the type its place needs, every experimental construct has its
 * feature flag, and allotments made only of literal portions add up (at most 100%, exactly 100% without `remaining`,
 * `remaining` takes the rest). Allotments that use variable portions are checked again at run time.
 */
export function check(program: Program, features: ReadonlySet<string>): void {
  new Checker(features).program(program);
}

class Checker {
  private readonly scope = new Map<string, VarDecl>();
  /** True while checking a var origin, where function calls need no mid-script flag. */
  private inOrigin = false;

  constructor(private readonly features: ReadonlySet<string>) {}

  program(program: Program): void {
    for (const decl of program.vars) {
      if (this.scope.has(decl.name)) throw compilationError(decl.pos, `variable $${decl.name} is declared twice`);
      if (decl.origin) this.origin(decl);
      this.scope.set(decl.name, decl);
    }
    for (const statement of program.statements) {
      switch (statement.kind) {
        case 'send':
        case 'save':
          this.sent(statement.amount);
          if (statement.kind === 'save') this.expect(statement.account, 'account');
          else {
            this.source(statement.source);
            this.destination(statement.destination);
          }
          break;
        case 'set_tx_meta':
          this.expect(statement.key, 'string');
          this.typeOf(statement.value);
          break;
        case 'set_account_meta':
          this.expect(statement.account, 'account');
          this.expect(statement.key, 'string');
          this.typeOf(statement.value);
          break;
      }
    }
  }

  private origin(decl: VarDecl): void {
    const origin = decl.origin!;
    this.inOrigin = true;
    if (origin.kind === 'call' && origin.name === 'meta') {
      this.arity(origin, 2);
      this.expect(origin.args[0], 'account');
      this.expect(origin.args[1], 'string');
    } else {
      if (origin.kind !== 'call') this.require('experimental-mid-script-function-call', origin);
      const type = this.typeOf(origin);
      if (type !== decl.type) {
        throw compilationError(origin.pos, `the origin of $${decl.name} gives ${withArticle(type)}, not ${withArticle(decl.type)}`);
      }
    }
    this.inOrigin = false;
  }

  private sent(amount: Expr): void {
    if (amount.kind === 'monetary' && amount.amount === 'all') this.expect(amount.asset, 'asset');
    else this.expect(amount, 'monetary');
  }

  private source(source: Source): void {
    switch (source.kind) {
      case 'account':
        this.expect(source.account, 'account');
        if (source.color) {
          this.require('experimental-asset-colors', source.color);
          this.expect(source.color, 'string');
        }
        if (source.overdraft?.kind === 'bounded') this.expect(source.overdraft.limit, 'monetary');
        if (source.scaling) {
          this.require('experimental-asset-scaling', source.scaling);
          this.expect(source.scaling, 'account');
        }
        return;
      case 'max':
        this.expect(source.limit, 'monetary');
        return this.source(source.source);
      case 'oneof':
        this.require('experimental-oneof', source);
        return source.sources.forEach((item) => this.source(item));
      case 'inorder':
        return source.sources.forEach((item) => this.source(item));
      case 'allotment':
        this.shares(source.parts.map((part) => part.share));
        return source.parts.forEach((part) => this.source(part.source));
    }
  }

  private destination(destination: Destination): void {
    const target = (t: Target) => t.kind === 'to' && this.destination(t.destination);
    switch (destination.kind) {
      case 'account':
        return this.expect(destination.account, 'account');
      case 'allotment':
        this.shares(destination.parts.map((part) => part.share));
        return destination.parts.forEach((part) => target(part.target));
      case 'oneof':
      case 'inorder':
        if (destination.kind === 'oneof') this.require('experimental-oneof', destination);
        destination.parts.forEach((part) => {
          this.expect(part.limit, 'monetary');
          target(part.target);
        });
        target(destination.remaining);
        return;
    }
  }

  /** `remaining` may appear anywhere, and more than once: as in Formance's interpreter, the last one takes the rest. */
  private shares(shares: AllotmentShare[]): void {
    const literals: Portion[] = [];
    let remaining: AllotmentShare | undefined;
    for (const share of shares) {
      if (share.kind === 'remaining') {
        remaining = share;
      } else {
        this.expect(share.portion, 'portion');
        const literal = constantPortion(share.portion);
        if (literal) literals.push(checkShare(literal, share.pos));
      }
    }
    const remainings = shares.filter((share) => share.kind === 'remaining').length;
    if (literals.length < shares.length - remainings) return; // a variable portion: checked at run time
    validateAllotmentTotal(literals, remaining !== undefined, shares[0].pos);
  }

  private require(feature: Feature, at: { pos: Expr['pos'] }): void {
    if (!this.features.has(feature)) {
      throw compilationError(at.pos, `${FEATURES[feature]} is experimental: enable the feature flag "${feature}"`);
    }
  }

  private arity(call: Extract<Expr, { kind: 'call' }>, count: number): void {
    if (call.args.length !== count) throw compilationError(call.pos, `${call.name}() takes ${count} argument(s), got ${call.args.length}`);
  }

  private expect(expr: Expr, expected: VarType): void {
    const actual = this.typeOf(expr);
    if (actual !== expected) {
      const what = expr.kind === 'var' ? `$${expr.name} is ${withArticle(actual)}` : `found ${withArticle(actual)}`;
      throw compilationError(expr.pos, `expected ${withArticle(expected)}, ${what}`);
    }
  }

  private typeOf(expr: Expr): VarType {
    switch (expr.kind) {
      case 'var': {
        const decl = this.scope.get(expr.name);
        if (!decl) throw compilationError(expr.pos, `variable $${expr.name} is not declared`);
        return decl.type;
      }
      case 'account':
        if (expr.parts) {
          this.require('experimental-account-interpolation', expr);
          for (const part of expr.parts) {
            if (typeof part === 'string') continue;
            const type = this.typeOf(part);
            if (type !== 'account' && type !== 'string' && type !== 'number') {
              throw compilationError(part.pos, `cannot interpolate ${withArticle(type)} in an account address`);
            }
          }
        }
        return 'account';
      case 'monetary':
        this.expect(expr.asset, 'asset');
        if (expr.amount === 'all') throw compilationError(expr.pos, '[ASSET *] is only allowed as the amount of a send or save');
        this.expect(expr.amount, 'number');
        return 'monetary';
      case 'infix': {
        const left = this.typeOf(expr.left);
        if (expr.op === '/') {
          if (left !== 'number') throw compilationError(expr.left.pos, `expected a number before /, found ${withArticle(left)}`);
          this.expect(expr.right, 'number');
          return 'portion';
        }
        if (left !== 'number' && left !== 'monetary') {
          throw compilationError(expr.left.pos, `${expr.op} works on numbers or monetaries, found ${withArticle(left)}`);
        }
        this.expect(expr.right, left);
        return left;
      }
      case 'negate': {
        const type = this.typeOf(expr.operand);
        if (type !== 'number' && type !== 'monetary') throw compilationError(expr.pos, `cannot negate ${withArticle(type)}`);
        return type;
      }
      case 'call':
        return this.call(expr);
      case 'asset':
      case 'number':
      case 'string':
      case 'portion':
        return expr.kind;
    }
  }

  private call(call: Extract<Expr, { kind: 'call' }>): VarType {
    if (!this.inOrigin && call.name !== 'meta') this.require('experimental-mid-script-function-call', call);
    switch (call.name) {
      case 'balance':
      case 'overdraft':
        if (call.name === 'overdraft') this.require('experimental-overdraft-function', call);
        this.arity(call, 2);
        this.expect(call.args[0], 'account');
        this.expect(call.args[1], 'asset');
        return 'monetary';
      case 'get_asset':
      case 'get_amount':
        this.require(call.name === 'get_asset' ? 'experimental-get-asset-function' : 'experimental-get-amount-function', call);
        this.arity(call, 1);
        this.expect(call.args[0], 'monetary');
        return call.name === 'get_asset' ? 'asset' : 'number';
      case 'meta':
        throw compilationError(call.pos, 'meta() can only be the whole origin of a variable');
      default:
        throw compilationError(call.pos, `unknown function ${call.name}`);
    }
  }
}

/** The value of a portion written with literals only (`25%`, `1/3`), else undefined (it uses a variable). */
export function constantPortion(expr: Expr): Portion | undefined {
  if (expr.kind === 'portion') return expr.value;
  if (expr.kind === 'infix' && expr.op === '/' && expr.left.kind === 'number' && expr.right.kind === 'number') {
    return ratio(expr.left.value, expr.right.value, expr.pos);
  }
  return undefined;
}

/** A share of an allotment must lie within [0, 1]. */
export function checkShare(portion: Portion, pos: Expr['pos']): Portion {
  if (portion.num < 0n || portion.num > portion.den) {
    throw compilationError(pos, `invalid portion ${portion.num}/${portion.den} (must be between 0 and 100%)`);
  }
  return portion;
}

/** Shared with the interpreter: the portions of one allotment must not exceed 100%, and reach it without `remaining`. */
export function validateAllotmentTotal(portions: Portion[], hasRemaining: boolean, pos: Expr['pos']): void {
  const total = portions.reduce(addPortions, { num: 0n, den: 1n });
  if (total.num > total.den) throw compilationError(pos, 'the portions of an allotment add up to more than 100%');
  if (!hasRemaining && total.num !== total.den) {
    throw compilationError(pos, 'the portions of an allotment must add up to 100% (or use `remaining`)');
  }
}
