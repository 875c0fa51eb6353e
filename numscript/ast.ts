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

/** A rational in lowest terms, 0 <= num/den <= 1 once checked. */
export interface Portion {
  num: bigint;
  den: bigint;
}

export type Expr =
  | { kind: 'var'; name: string; pos: Pos }
  | { kind: 'account'; address: string; pos: Pos }
  | { kind: 'asset'; asset: string; pos: Pos }
  | { kind: 'number'; value: bigint; pos: Pos }
  | { kind: 'string'; value: string; pos: Pos }
  | { kind: 'portion'; value: Portion; pos: Pos }
  /** `[ASSET n]`, `[$asset $n]`; `amount` is 'all' only for `[ASSET *]`, which only `send` accepts. */
  | { kind: 'monetary'; asset: Expr; amount: Expr | 'all'; pos: Pos };

export type VarOrigin =
  | { kind: 'meta'; account: Expr; key: Expr; pos: Pos }
  | { kind: 'balance'; account: Expr; asset: Expr; pos: Pos };

export interface VarDecl {
  type: VarType;
  name: string;
  origin?: VarOrigin;
  pos: Pos;
}

export type Overdraft = { kind: 'unbounded' } | { kind: 'bounded'; limit: Expr };

/** A portion of an allotment: a portion expression, or `remaining` (whatever the others leave). */
export type AllotmentShare = { kind: 'portion'; portion: Expr; pos: Pos } | { kind: 'remaining'; pos: Pos };

export type Source =
  | { kind: 'account'; account: Expr; overdraft?: Overdraft; pos: Pos }
  | { kind: 'max'; limit: Expr; source: Source; pos: Pos }
  | { kind: 'inorder'; sources: Source[]; pos: Pos }
  | { kind: 'allotment'; parts: Array<{ share: AllotmentShare; source: Source }>; pos: Pos };

/** Where a share goes: to a destination, or `kept` (it never leaves the sources). */
export type Target = { kind: 'to'; destination: Destination } | { kind: 'kept'; pos: Pos };

export type Destination =
  | { kind: 'account'; account: Expr; pos: Pos }
  | { kind: 'allotment'; parts: Array<{ share: AllotmentShare; target: Target }>; pos: Pos }
  | { kind: 'inorder'; parts: Array<{ limit: Expr; target: Target }>; remaining: Target; pos: Pos };

export type Statement =
  | { kind: 'send'; amount: Expr; source: Source; destination: Destination; pos: Pos }
  | { kind: 'set_tx_meta'; key: Expr; value: Expr; pos: Pos }
  | { kind: 'set_account_meta'; account: Expr; key: Expr; value: Expr; pos: Pos };

export interface Program {
  vars: VarDecl[];
  statements: Statement[];
}
