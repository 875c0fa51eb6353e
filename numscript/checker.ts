import type { AllotmentShare, Destination, Expr, Portion, Program, Source, Target, VarDecl, VarType } from './ast';
import { compilationError } from './errors';
import { addPortions, withArticle } from './values';

/**
 * Static checks run once at compile time: every variable is declared once before use (an origin may only use the
 * variables declared above it), every expression has the type its place needs, and allotments made only of literal
 * portions add up (at most 100%, exactly 100% without `remaining`, one `remaining` at most). Allotments that use
 * portion variables are checked again at run time, once the values are known.
 */
export function check(program: Program): void {
  const scope = new Map<string, VarDecl>();
  for (const decl of program.vars) {
    if (scope.has(decl.name)) throw compilationError(decl.pos, `variable $${decl.name} is declared twice`);
    if (decl.origin?.kind === 'meta') {
      expectType(scope, decl.origin.account, 'account');
      expectType(scope, decl.origin.key, 'string');
    } else if (decl.origin?.kind === 'balance') {
      if (decl.type !== 'monetary') {
        throw compilationError(decl.origin.pos, `balance() gives a monetary, not ${withArticle(decl.type)} ($${decl.name})`);
      }
      expectType(scope, decl.origin.account, 'account');
      expectType(scope, decl.origin.asset, 'asset');
    }
    scope.set(decl.name, decl);
  }

  for (const statement of program.statements) {
    switch (statement.kind) {
      case 'send':
        expectType(scope, statement.amount, 'monetary');
        checkSource(scope, statement.source);
        checkDestination(scope, statement.destination);
        break;
      case 'set_tx_meta':
        expectType(scope, statement.key, 'string');
        typeOf(scope, statement.value);
        break;
      case 'set_account_meta':
        expectType(scope, statement.account, 'account');
        expectType(scope, statement.key, 'string');
        typeOf(scope, statement.value);
        break;
    }
  }
}

function checkSource(scope: Map<string, VarDecl>, source: Source): void {
  switch (source.kind) {
    case 'account':
      expectType(scope, source.account, 'account');
      if (source.overdraft?.kind === 'bounded') expectType(scope, source.overdraft.limit, 'monetary');
      return;
    case 'max':
      expectType(scope, source.limit, 'monetary');
      return checkSource(scope, source.source);
    case 'inorder':
      return source.sources.forEach((item) => checkSource(scope, item));
    case 'allotment':
      checkShares(scope, source.parts.map((part) => part.share));
      return source.parts.forEach((part) => checkSource(scope, part.source));
  }
}

function checkDestination(scope: Map<string, VarDecl>, destination: Destination): void {
  const checkTarget = (target: Target) => target.kind === 'to' && checkDestination(scope, target.destination);
  switch (destination.kind) {
    case 'account':
      return expectType(scope, destination.account, 'account');
    case 'allotment':
      checkShares(scope, destination.parts.map((part) => part.share));
      return destination.parts.forEach((part) => checkTarget(part.target));
    case 'inorder':
      destination.parts.forEach((part) => {
        expectType(scope, part.limit, 'monetary');
        checkTarget(part.target);
      });
      checkTarget(destination.remaining);
      return;
  }
}

function checkShares(scope: Map<string, VarDecl>, shares: AllotmentShare[]): void {
  const literals: Portion[] = [];
  let remaining: AllotmentShare | undefined;
  for (const share of shares) {
    if (share.kind === 'remaining') {
      if (remaining) throw compilationError(share.pos, '`remaining` is used twice in one allotment');
      remaining = share;
    } else {
      expectType(scope, share.portion, 'portion');
      if (share.portion.kind === 'portion') literals.push(share.portion.value);
    }
  }
  if (literals.length < shares.length - (remaining ? 1 : 0)) return; // a variable portion: checked at run time
  validateAllotmentTotal(literals, remaining !== undefined, shares[0].pos);
}

/** Shared with the interpreter: the portions of one allotment must not exceed 100%, and reach it without `remaining`. */
export function validateAllotmentTotal(portions: Portion[], hasRemaining: boolean, pos: Expr['pos']): void {
  const total = portions.reduce(addPortions, { num: 0n, den: 1n });
  if (total.num > total.den) throw compilationError(pos, 'the portions of an allotment add up to more than 100%');
  if (!hasRemaining && total.num !== total.den) {
    throw compilationError(pos, 'the portions of an allotment must add up to 100% (or use `remaining`)');
  }
}

function expectType(scope: Map<string, VarDecl>, expr: Expr, expected: VarType): void {
  const actual = typeOf(scope, expr);
  if (actual !== expected) {
    const what = expr.kind === 'var' ? `$${expr.name} is ${withArticle(actual)}` : `found ${withArticle(actual)}`;
    throw compilationError(expr.pos, `expected ${withArticle(expected)}, ${what}`);
  }
}

function typeOf(scope: Map<string, VarDecl>, expr: Expr): VarType {
  switch (expr.kind) {
    case 'var': {
      const decl = scope.get(expr.name);
      if (!decl) throw compilationError(expr.pos, `variable $${expr.name} is not declared`);
      return decl.type;
    }
    case 'monetary':
      expectType(scope, expr.asset, 'asset');
      if (expr.amount !== 'all') expectType(scope, expr.amount, 'number');
      return 'monetary';
    case 'account':
    case 'asset':
    case 'number':
    case 'string':
    case 'portion':
      return expr.kind;
  }
}
