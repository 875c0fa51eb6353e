/**
 * The syntax tree of a Numscript program. Every node carries the position of its first token so that type errors and
 * runtime errors can point at the script (`line:column: message`), as COMPILATION_FAILED messages must.
 */
export interface Pos {
  line: number;
  column: number;
}

export type VarType = 'account' | 'monetary' | 'portion' | 'number' | 'string' | 'asset';
export const VAR_TYPES: readonly VarType[] = ['account', 'monetary', 'portion', 'number', 'string', 'asset'];

/** A rational in lowest terms (den > 0). As an allotment share it must lie within [0, 1]; `$x/2` may be more. */
export interface Portion {
  num: bigint;
  den: bigint;
}

export type Expr =
  | { kind: 'var'; name: string; pos: Pos }
  /** `@a:b`; with `parts` when it interpolates variables (`@users:$id`, experimental-account-interpolation). */
  | { kind: 'account'; address: string; parts?: Array<string | Expr>; pos: Pos }
  | { kind: 'asset'; asset: string; pos: Pos }
  | { kind: 'number'; value: bigint; pos: Pos }
  | { kind: 'string'; value: string; pos: Pos }
  | { kind: 'portion'; value: Portion; pos: Pos }
  /** `[ASSET n]`, `[$asset $n]`; `amount` is 'all' only for `[ASSET *]`, which only `send` and `save` accept. */
  | { kind: 'monetary'; asset: Expr; amount: Expr | 'all'; pos: Pos }
  /** `a + b`, `a - b` (numbers, or monetaries of one asset); `a / b` (two numbers give a portion). */
  | { kind: 'infix'; op: '+' | '-' | '/'; left: Expr; right: Expr; pos: Pos }
  | { kind: 'negate'; operand: Expr; pos: Pos }
  /** balance(), overdraft(), meta(), get_asset(), get_amount(). */
  | { kind: 'call'; name: string; args: Expr[]; pos: Pos };

export interface VarDecl {
  type: VarType;
  name: string;
  origin?: Expr;
  pos: Pos;
}

export type Overdraft = { kind: 'unbounded' } | { kind: 'bounded'; limit: Expr };

/** A portion of an allotment: a portion expression, or `remaining` (whatever the others leave). */
export type AllotmentShare = { kind: 'portion'; portion: Expr; pos: Pos } | { kind: 'remaining'; pos: Pos };

export type Source =
  /**
   * `@a`, `@a \ "COLOR"` (experimental-asset-colors), with an optional overdraft, and optionally `with scaling through
   * @swap` (experimental-asset-scaling: the account's other scales of the asset are converted through @swap first).
   */
  | { kind: 'account'; account: Expr; color?: Expr; overdraft?: Overdraft; scaling?: Expr; pos: Pos }
  | { kind: 'max'; limit: Expr; source: Source; pos: Pos }
  | { kind: 'inorder'; sources: Source[]; pos: Pos }
  /** `oneof { ... }` (experimental-oneof): the first branch that covers the whole amount, else the last one. */
  | { kind: 'oneof'; sources: Source[]; pos: Pos }
  | { kind: 'allotment'; parts: Array<{ share: AllotmentShare; source: Source }>; pos: Pos };

/** Where a share goes: to a destination, or `kept` (it never leaves the sources). */
export type Target = { kind: 'to'; destination: Destination } | { kind: 'kept'; pos: Pos };

export type Destination =
  | { kind: 'account'; account: Expr; pos: Pos }
  | { kind: 'allotment'; parts: Array<{ share: AllotmentShare; target: Target }>; pos: Pos }
  | { kind: 'inorder'; parts: Array<{ limit: Expr; target: Target }>; remaining: Target; pos: Pos }
  /** `oneof { max … to …  remaining to … }` (experimental-oneof): everything to the first clause whose cap covers it. */
  | { kind: 'oneof'; parts: Array<{ limit: Expr; target: Target }>; remaining: Target; pos: Pos };

export type Statement =
  | { kind: 'send'; amount: Expr; source: Source; destination: Destination; pos: Pos }
  /** `save [ASSET n] from @acc` / `save [ASSET *] from @acc`: that much of the balance is out of reach of later sends. */
  | { kind: 'save'; amount: Expr; account: Expr; pos: Pos }
  | { kind: 'set_tx_meta'; key: Expr; value: Expr; pos: Pos }
  | { kind: 'set_account_meta'; account: Expr; key: Expr; value: Expr; pos: Pos };

export interface Program {
  vars: VarDecl[];
  statements: Statement[];
  /** Feature flags turned on by the script's own `#![feature("…")]` lines. */
  pragmas: string[];
}
