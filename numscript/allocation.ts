import type { AllotmentShare, Expr, Portion, Pos } from './ast';
import { checkShare, validateAllotmentTotal } from './checker';
import { addPortions } from './values';

/*
 * Rounding rule of portions (the same as Formance's machine, internal/machine/allotment.go)
 * ----------------------------------------------------------------------------------------
 * An allotment splits an integer `amount` into parts with exact rational portions p_1..p_k that add up to exactly 1
 * (`remaining`, when present, is 1 minus the other portions, and may be 0).
 *   1. Each part first gets floor(amount * p_i), computed on bigints (no floating point, any size).
 *   2. The units left over, amount - sum(floors), are fewer than k; they are handed out one by one, one unit per part,
 *      to the parts in the order they are written in the script (the `remaining` part included at its position).
 * So the parts always add up to `amount` exactly, each part is within one unit of its exact share, and the result
 * depends only on the script and the amount. Examples: 100 split 1/3, 1/3, remaining gives 34, 33, 33; 7 split
 * 50%, 50% gives 4, 3; 1 split 1/2, 1/2 gives 1, 0.
 */
export function allocate(amount: bigint, portions: Portion[]): bigint[] {
  const parts = portions.map((portion) => (amount * portion.num) / portion.den);
  let leftover = amount - parts.reduce((sum, part) => sum + part, 0n);
  for (let i = 0; leftover > 0n; i++, leftover--) parts[i] += 1n;
  return parts;
}

/**
 * Turns the shares of an allotment, with their portion values resolved, into exact portions that add up to 1,
 * checking the totals again now that variable portions are known.
 * @throws NumscriptError COMPILATION_FAILED when a portion is outside [0, 1], the portions exceed 100%, or miss it
 *   without `remaining`
 */
export function resolveAllotment(shares: AllotmentShare[], valueOf: (portion: Expr) => Portion, pos: Pos): Portion[] {
  const portions = shares.map((share) => (share.kind === 'portion' ? checkShare(valueOf(share.portion), share.pos) : undefined));
  const given = portions.filter((portion): portion is Portion => portion !== undefined);
  validateAllotmentTotal(given, given.length < shares.length, pos);
  const total = given.reduce(addPortions, { num: 0n, den: 1n });
  const rest: Portion = { num: total.den - total.num, den: total.den };
  // Several `remaining`: the last takes the rest, the others 0 (Formance's interpreter does the same).
  let last = -1;
  shares.forEach((share, i) => share.kind === 'remaining' && (last = i));
  return portions.map((portion, i) => portion ?? (i === last ? rest : { num: 0n, den: 1n }));
}
