import type { Expr, Portion, VarType } from './ast';
import { compilationError, NumscriptError } from './errors';
import { ACCOUNT_PATTERN, ratio, withArticle, type Monetary, type Value } from './values';

/** A monetary whose amount may be `all` (`[ASSET *]`, only in `send` and `save`). */
export interface MonetaryRequest {
  asset: string;
  amount: bigint | 'all';
}

/** What function calls read: the current balance (the store's, changed by this run), already fetched. */
export interface BalanceSource {
  currentBalance(account: string, asset: string): bigint;
}

/**
 * Evaluates expressions against the resolved variables. The checker has already proven every expression has the type
 * asked for, so a mismatch here is a bug; the casts are guarded to fail loudly rather than compute nonsense.
 * Evaluation is synchronous: the balances that function calls read are fetched before (see Interpreter.prefetch).
 */
export class Scope {
  constructor(
    private readonly vars: Map<string, Value>,
    private readonly balances: BalanceSource,
  ) {}

  set(name: string, value: Value): void {
    this.vars.set(name, value);
  }

  value(expr: Expr): Value {
    switch (expr.kind) {
      case 'var': {
        const value = this.vars.get(expr.name);
        if (!value) throw compilationError(expr.pos, `variable $${expr.name} has no value`);
        return value;
      }
      case 'account':
        return { type: 'account', value: expr.parts ? this.interpolate(expr) : expr.address };
      case 'asset':
        return { type: 'asset', value: expr.asset };
      case 'number':
      case 'string':
      case 'portion':
        return { type: expr.kind, value: expr.value } as Value;
      case 'monetary': {
        if (expr.amount === 'all') throw compilationError(expr.pos, '[ASSET *] is only allowed as the amount of a send or save');
        return { type: 'monetary', value: { asset: this.asset(expr.asset), amount: this.number(expr.amount) } };
      }
      case 'negate': {
        const value = this.value(expr.operand);
        if (value.type === 'number') return { type: 'number', value: -value.value };
        if (value.type === 'monetary') return { type: 'monetary', value: { asset: value.value.asset, amount: -value.value.amount } };
        throw compilationError(expr.pos, `cannot negate ${withArticle(value.type)}`);
      }
      case 'infix':
        return this.infix(expr);
      case 'call':
        return this.call(expr);
    }
  }

  private infix(expr: Extract<Expr, { kind: 'infix' }>): Value {
    const left = this.value(expr.left);
    if (expr.op === '/')
      return { type: 'portion', value: ratio(this.typedValue(left, 'number', expr.left) as bigint, this.number(expr.right), expr.pos) };
    const sign = expr.op === '+' ? 1n : -1n;
    if (left.type === 'number') return { type: 'number', value: left.value + sign * this.number(expr.right) };
    if (left.type !== 'monetary') throw compilationError(expr.pos, `${expr.op} works on numbers or monetaries, found ${withArticle(left.type)}`);
    const right = this.monetary(expr.right);
    if (right.asset !== left.value.asset) {
      throw compilationError(expr.pos, `mismatched assets: ${left.value.asset} ${expr.op} ${right.asset}`);
    }
    return { type: 'monetary', value: { asset: right.asset, amount: left.value.amount + sign * right.amount } };
  }

  private call(expr: Extract<Expr, { kind: 'call' }>): Value {
    switch (expr.name) {
      case 'balance':
      case 'overdraft': {
        const account = this.account(expr.args[0]);
        const asset = this.asset(expr.args[1]);
        const balance = this.balances.currentBalance(account, asset);
        if (expr.name === 'overdraft') return { type: 'monetary', value: { asset, amount: balance < 0n ? -balance : 0n } };
        if (balance < 0n) {
          throw new NumscriptError(
            'VALIDATION',
            `${expr.pos.line}:${expr.pos.column}: balance of @${account} is negative (${asset} ${balance}), not a monetary`,
          );
        }
        return { type: 'monetary', value: { asset, amount: balance } };
      }
      case 'get_asset':
        return { type: 'asset', value: this.monetary(expr.args[0]).asset };
      case 'get_amount':
        return { type: 'number', value: this.monetary(expr.args[0]).amount };
      default:
        throw compilationError(expr.pos, `${expr.name}() cannot be used here`);
    }
  }

  /** `@users:$id:$status`: the segments joined with the variables' text (an account's address, a number's digits). */
  private interpolate(expr: Extract<Expr, { kind: 'account' }>): string {
    let address = '';
    for (const part of expr.parts!) {
      if (typeof part === 'string') address += part;
      else {
        const value = this.value(part);
        address += value.type === 'number' ? value.value.toString() : (value.value as string);
      }
    }
    if (!ACCOUNT_PATTERN.test(address)) throw compilationError(expr.pos, `invalid account address @${address}`);
    return address;
  }

  account(expr: Expr): string {
    return this.typed(expr, 'account') as string;
  }

  asset(expr: Expr): string {
    return this.typed(expr, 'asset') as string;
  }

  string(expr: Expr): string {
    return this.typed(expr, 'string') as string;
  }

  number(expr: Expr): bigint {
    return this.typed(expr, 'number') as bigint;
  }

  portion(expr: Expr): Portion {
    return this.typed(expr, 'portion') as Portion;
  }

  monetary(expr: Expr): Monetary {
    return this.typed(expr, 'monetary') as Monetary;
  }

  /** A send or save amount: `[ASSET *]` is allowed here only. */
  request(expr: Expr): MonetaryRequest {
    if (expr.kind === 'monetary' && expr.amount === 'all') return { asset: this.asset(expr.asset), amount: 'all' };
    return this.monetary(expr);
  }

  private typed(expr: Expr, type: VarType): Value['value'] {
    return this.typedValue(this.value(expr), type, expr);
  }

  private typedValue(value: Value, type: VarType, expr: Expr): Value['value'] {
    if (value.type !== type) throw compilationError(expr.pos, `expected ${withArticle(type)}, found ${withArticle(value.type)}`);
    return value.value;
  }
}

/** Calls to balance()/overdraft() in `expr`, whose balances must be fetched before it is evaluated. */
export function balanceCalls(expr: Expr | undefined, found: Array<Extract<Expr, { kind: 'call' }>>): void {
  if (!expr) return;
  switch (expr.kind) {
    case 'call':
      if (expr.name === 'balance' || expr.name === 'overdraft') found.push(expr);
      expr.args.forEach((arg) => balanceCalls(arg, found));
      return;
    case 'infix':
      balanceCalls(expr.left, found);
      balanceCalls(expr.right, found);
      return;
    case 'negate':
      return balanceCalls(expr.operand, found);
    case 'monetary':
      balanceCalls(expr.asset, found);
      if (expr.amount !== 'all') balanceCalls(expr.amount, found);
      return;
    default:
      return;
  }
}
