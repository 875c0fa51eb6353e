import type { Expr, Portion, VarType } from './ast';
import { compilationError } from './errors';
import { withArticle, type Monetary, type Value } from './values';

/** A monetary whose amount may be `all` (`[ASSET *]`, only in `send`). */
export interface MonetaryRequest {
  asset: string;
  amount: bigint | 'all';
}

/**
 * Evaluates expressions against the resolved variables. The checker has already proven every expression has the type
 * asked for, so a mismatch here is a bug; the casts are guarded to fail loudly rather than compute nonsense.
 */
export class Scope {
  constructor(private readonly vars: Map<string, Value>) {}

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
        return { type: 'account', value: expr.address };
      case 'asset':
        return { type: 'asset', value: expr.asset };
      case 'number':
      case 'string':
      case 'portion':
        return { type: expr.kind, value: expr.value } as Value;
      case 'monetary': {
        if (expr.amount === 'all') throw compilationError(expr.pos, '[ASSET *] is only allowed as the amount of a send');
        const amount = this.number(expr.amount);
        if (amount < 0n) throw compilationError(expr.amount.pos, `amount must not be negative (got ${amount})`);
        return { type: 'monetary', value: { asset: this.asset(expr.asset), amount } };
      }
    }
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

  /** A send amount: `[ASSET *]` is allowed here only. */
  request(expr: Expr): MonetaryRequest {
    if (expr.kind === 'monetary' && expr.amount === 'all') return { asset: this.asset(expr.asset), amount: 'all' };
    return this.monetary(expr);
  }

  private typed(expr: Expr, type: VarType): Value['value'] {
    const value = this.value(expr);
    if (value.type !== type) throw compilationError(expr.pos, `expected ${withArticle(type)}, found ${withArticle(value.type)}`);
    return value.value;
  }
}
