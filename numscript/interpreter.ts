import { allocate, resolveAllotment } from './allocation';
import type { AllotmentShare, Destination, Expr, Pos, Program, Source, Statement, Target } from './ast';
import { compilationError, NumscriptError } from './errors';
import { balanceCalls, Scope } from './evaluate';
import type { NumscriptResult, NumscriptStore } from './store';
import { formatValue } from './values';
import { resolveVars } from './vars';

/** Funds taken from one source account (in one asset, colored or not), waiting to be handed to destinations. */
interface Funding {
  account: string;
  asset: string;
  amount: bigint;
}

type Call = Extract<Expr, { kind: 'call' }>;

/**
 * Runs a checked program. Each `send` first takes the funds from its source (recording, in order, how much each
 * account gives: Formance's funds queue, where consecutive funds of the same account and asset merge into one entry),
 * then pours that queue into its destination: a destination takes the next units of the queue, `kept` units go back
 * to the account they came from. So `{ max [USD 4] from @a  @a }` for 10 posts `a->b 10` once, as Formance does.
 * Balances are the store's value plus the changes of this run, so a later `send` sees the earlier ones' effect.
 * Balances are read lazily and only for bounded sources, save, and balance()/overdraft(), so the caller's lock set
 * stays minimal; destinations and `@world` are never read.
 */
export class Interpreter {
  private readonly scope = new Scope(new Map(), this);
  private readonly read = new Map<string, bigint>();
  private delta = new Map<string, bigint>();
  private readonly result: NumscriptResult = { postings: [], txMetadata: {}, accountMetadata: {} };

  constructor(
    private readonly program: Program,
    private readonly store: NumscriptStore,
    /** Per statement, the balance()/overdraft() calls to fetch first; undefined when the script has none. */
    private readonly calls: Call[][] | undefined,
  ) {}

  async run(vars: Record<string, unknown>): Promise<NumscriptResult> {
    await resolveVars(this.program.vars, vars, this.scope, this.store, (calls) => this.prefetch(calls));
    const { statements } = this.program;
    for (let i = 0; i < statements.length; i++) {
      if (this.calls && this.calls[i].length > 0) await this.prefetch(this.calls[i]);
      await this.execute(statements[i]);
    }
    return this.result;
  }

  /** Fetches the balances the calls read (inner calls first: their values may be the outer ones' arguments). */
  async prefetch(calls: Call[]): Promise<void> {
    for (let i = calls.length - 1; i >= 0; i--) {
      const call = calls[i];
      await this.balance(this.scope.account(call.args[0]), this.scope.asset(call.args[1]));
    }
  }

  currentBalance(account: string, asset: string): bigint {
    const key = `${account}\u0000${asset}`;
    const stored = this.read.get(key);
    if (stored === undefined) throw new Error(`balance of ${account} ${asset} read before it was fetched`);
    return stored + (this.delta.get(key) ?? 0n);
  }

  private async execute(statement: Statement): Promise<void> {
    const scope = this.scope;
    switch (statement.kind) {
      case 'set_tx_meta':
        this.result.txMetadata[scope.string(statement.key)] = formatValue(scope.value(statement.value));
        return;
      case 'set_account_meta': {
        const account = scope.account(statement.account);
        const metadata = (this.result.accountMetadata[account] ??= {});
        metadata[scope.string(statement.key)] = formatValue(scope.value(statement.value));
        return;
      }
      case 'save':
        return this.save(statement);
      case 'send': {
        const { asset, amount } = scope.request(statement.amount);
        if (amount !== 'all' && amount < 0n) throw compilationError(statement.amount.pos, `cannot send a negative amount (${asset} ${amount})`);
        const funding: Funding[] = [];
        const taken = await this.take(statement.source, asset, amount === 'all' ? null : amount, funding);
        if (amount !== 'all' && taken < amount) throw this.insufficient(statement.source, asset, amount, taken);
        this.pour(statement.destination, asset, taken, funding);
        return;
      }
    }
  }

  /** Sets funds of an account aside: later sends of this script cannot take them (its positive balance shrinks). */
  private async save(statement: Extract<Statement, { kind: 'save' }>): Promise<void> {
    const { asset, amount } = this.scope.request(statement.amount);
    const account = this.scope.account(statement.account);
    if (amount !== 'all' && amount < 0n) throw compilationError(statement.amount.pos, `cannot save a negative amount (${asset} ${amount})`);
    const current = await this.balance(account, asset);
    if (current <= 0n) return;
    const left = amount === 'all' || amount >= current ? 0n : current - amount;
    this.adjust(account, asset, left - current);
  }

  /**
   * Takes up to `want` units (`null`: all that is available) from `source` into `funding`; returns how much it took.
   * Only an allotment insists on getting its exact parts; other sources give what they can and the caller checks.
   */
  private async take(source: Source, asset: string, want: bigint | null, funding: Funding[]): Promise<bigint> {
    if (want === 0n) {
      this.touch(source, asset);
      return 0n;
    }
    switch (source.kind) {
      case 'account': {
        const account = this.scope.account(source.account);
        const sent = source.color ? colored(asset, this.scope.string(source.color)) : asset;
        const limit = this.overdraftLimit(source, account, asset);
        if (source.scaling) await this.scale(account, this.scope.account(source.scaling), asset, want);
        let taken: bigint;
        if (limit === null) {
          if (want === null) throw compilationError(source.pos, `cannot send all funds from @${account}: its overdraft is unbounded`);
          taken = want;
        } else {
          const available = (await this.balance(account, sent)) + limit;
          taken = available <= 0n ? 0n : want === null || want > available ? available : want;
        }
        if (taken > 0n) {
          push(funding, account, sent, taken);
          this.adjust(account, sent, -taken);
        }
        return taken;
      }
      case 'max': {
        const limit = nonNegative(this.monetaryOf(source.limit, asset));
        return this.take(source.source, asset, want === null || want > limit ? limit : want, funding);
      }
      case 'inorder': {
        let total = 0n;
        for (const item of source.sources) total += await this.take(item, asset, want === null ? null : want - total, funding);
        return total;
      }
      case 'oneof': {
        // Sending all: only the first branch. Otherwise the first branch that covers the whole amount wins; a branch
        // that falls short is undone (funds and balances), and the last branch gives what it can.
        if (want === null) return this.take(source.sources[0], asset, null, funding);
        const last = source.sources.length - 1;
        for (let i = 0; i < last; i++) {
          const postings = this.result.postings.length;
          const saved = { length: funding.length, head: funding[funding.length - 1]?.amount, delta: new Map(this.delta) };
          if ((await this.take(source.sources[i], asset, want, funding)) === want) return want;
          this.result.postings.length = postings;
          funding.length = saved.length;
          if (saved.length > 0) funding[saved.length - 1].amount = saved.head!;
          this.delta = saved.delta;
        }
        return this.take(source.sources[last], asset, want, funding);
      }
      case 'allotment': {
        if (want === null) throw compilationError(source.pos, 'cannot send all funds ([ASSET *]) from a portioned source');
        const parts = allocate(
          want,
          this.portions(
            source.parts.map((part) => part.share),
            source.pos,
          ),
        );
        for (const [i, part] of source.parts.entries()) {
          const taken = await this.take(part.source, asset, parts[i], funding);
          if (taken < parts[i]) throw this.insufficient(part.source, asset, parts[i], taken);
        }
        return want;
      }
    }
  }

  /**
   * Asset scaling (Formance's experimental-asset-scaling): before `account` gives `want` of `asset` (`null`: all it
   * can), its balances of the same base asset at other scales are converted through `swap`, largest scale first,
   * only in whole units of the converted scale and never more than needed. Each conversion posts account -> swap in
   * the converted scale, then one swap -> account posting of the total in `asset`, ahead of the send's own postings.
   */
  private async scale(account: string, swap: string, asset: string, want: bigint | null): Promise<void> {
    if (!this.store.getScaledBalances) throw new NumscriptError('VALIDATION', 'asset scaling is not available on this ledger');
    const slash = asset.indexOf('/');
    const base = slash < 0 ? asset : asset.slice(0, slash);
    const target = slash < 0 ? 0 : Number(asset.slice(slash + 1));
    const listed = await this.store.getScaledBalances(account, base);
    const scales = new Map<number, bigint>();
    for (const [name, amount] of Object.entries(listed)) {
      const key = `${account}\u0000${name}`;
      if (!this.read.has(key)) this.read.set(key, amount);
    }
    for (const key of new Set([...this.read.keys(), ...this.delta.keys()])) {
      const [owner, name] = key.split('\u0000');
      const match = owner === account ? /^([^/]+)(?:\/(\d+))?$/.exec(name) : null;
      if (match && match[1] === base) scales.set(match[2] === undefined ? 0 : Number(match[2]), await this.balance(account, name));
    }
    const needed = want === null ? null : want - (scales.get(target) ?? 0n);
    if (needed !== null && needed <= 0n) return;
    let total = 0n;
    for (const [scale, amount] of [...scales.entries()].sort(([a], [b]) => b - a)) {
      if (scale === target || amount <= 0n) continue;
      if (needed !== null && total >= needed) break;
      const factor = 10n ** BigInt(Math.abs(target - scale));
      const up = target > scale; // converting a larger unit (EUR) into a smaller one (EUR/2)
      const available = up ? amount * factor : amount / factor;
      const taken = needed === null || available < needed - total ? available : needed - total;
      const units = up ? (taken + factor - 1n) / factor : taken * factor; // of the converted scale, rounded up
      if (units === 0n) continue;
      const from = scale === 0 ? base : `${base}/${scale}`;
      this.result.postings.push({ source: account, destination: swap, amount: units, asset: from });
      this.adjust(account, from, -units);
      this.adjust(swap, from, units);
      total += up ? units * factor : units / factor;
    }
    if (total === 0n) return;
    this.result.postings.push({ source: swap, destination: account, amount: total, asset });
    this.adjust(swap, asset, -total);
    this.adjust(account, asset, total);
  }

  /**
   * A source asked for nothing is still evaluated, as Formance does: its accounts, colors, caps and overdrafts must be
   * valid (types, assets) even when earlier sources covered the amount. No balance is read for it.
   */
  private touch(source: Source, asset: string): void {
    switch (source.kind) {
      case 'account':
        this.scope.account(source.account);
        if (source.color) this.scope.string(source.color);
        if (source.overdraft?.kind === 'bounded') this.monetaryOf(source.overdraft.limit, asset);
        if (source.scaling) this.scope.account(source.scaling);
        return;
      case 'max':
        this.monetaryOf(source.limit, asset);
        return this.touch(source.source, asset);
      case 'inorder':
        return source.sources.forEach((item) => this.touch(item, asset));
      case 'oneof':
        return this.touch(source.sources[0], asset);
      case 'allotment':
        this.portions(
          source.parts.map((part) => part.share),
          source.pos,
        );
        return source.parts.forEach((part) => this.touch(part.source, asset));
    }
  }

  /** The overdraft an account source may use: null when unbounded (always for `@world`), 0 when none is allowed. */
  private overdraftLimit(source: Extract<Source, { kind: 'account' }>, account: string, asset: string): bigint | null {
    if (account === 'world' || source.overdraft?.kind === 'unbounded') return null;
    return source.overdraft ? nonNegative(this.monetaryOf(source.overdraft.limit, asset)) : 0n;
  }

  /** Hands `amount` units from the head of `funding` to `destination`. */
  private pour(destination: Destination, asset: string, amount: bigint, funding: Funding[]): void {
    switch (destination.kind) {
      case 'account': {
        const account = this.scope.account(destination.account);
        for (const piece of this.dequeue(funding, amount)) {
          this.result.postings.push({ source: piece.account, destination: account, amount: piece.amount, asset: piece.asset });
          this.adjust(account, piece.asset, piece.amount);
        }
        return;
      }
      case 'allotment': {
        const parts = allocate(
          amount,
          this.portions(
            destination.parts.map((part) => part.share),
            destination.pos,
          ),
        );
        destination.parts.forEach((part, i) => this.pourTarget(part.target, asset, parts[i], funding));
        return;
      }
      case 'inorder': {
        // As Formance: once everything is placed, the clauses after the next one and `remaining` are not evaluated.
        let left = amount;
        for (const part of destination.parts) {
          const limit = this.monetaryOf(part.limit, asset);
          if (left === 0n) break;
          const share = limit <= 0n ? 0n : left < limit ? left : limit;
          if (share > 0n) this.pourTarget(part.target, asset, share, funding);
          left -= share;
        }
        if (left > 0n) this.pourTarget(destination.remaining, asset, left, funding);
        return;
      }
      case 'oneof': {
        for (const part of destination.parts) {
          if (this.monetaryOf(part.limit, asset) >= amount) return this.pourTarget(part.target, asset, amount, funding);
        }
        return this.pourTarget(destination.remaining, asset, amount, funding);
      }
    }
  }

  private pourTarget(target: Target, asset: string, amount: bigint, funding: Funding[]): void {
    if (target.kind === 'to') return this.pour(target.destination, asset, amount, funding);
    // Kept funds never leave their source: give them back.
    for (const piece of this.dequeue(funding, amount)) this.adjust(piece.account, piece.asset, piece.amount);
  }

  /** Removes `amount` units from the head of the queue, splitting a funding entry when needed. */
  private dequeue(funding: Funding[], amount: bigint): Funding[] {
    const pieces: Funding[] = [];
    let left = amount;
    while (left > 0n) {
      const head = funding[0];
      const piece = head.amount <= left ? head.amount : left;
      pieces.push({ account: head.account, asset: head.asset, amount: piece });
      head.amount -= piece;
      if (head.amount === 0n) funding.shift();
      left -= piece;
    }
    return pieces;
  }

  private portions(shares: AllotmentShare[], pos: Pos) {
    return resolveAllotment(shares, (portion) => this.scope.portion(portion), pos);
  }

  /** A monetary limit (max, overdraft) whose asset must be the one being sent. */
  private monetaryOf(expr: Expr, asset: string): bigint {
    const value = this.scope.monetary(expr);
    if (value.asset !== asset) throw compilationError(expr.pos, `mismatched assets: ${value.asset} where ${asset} is sent`);
    return value.amount;
  }

  private async balance(account: string, asset: string): Promise<bigint> {
    const key = `${account}\u0000${asset}`;
    let stored = this.read.get(key);
    if (stored === undefined) {
      stored = await this.store.getBalance(account, asset);
      this.read.set(key, stored);
    }
    return stored + (this.delta.get(key) ?? 0n);
  }

  private adjust(account: string, asset: string, change: bigint): void {
    const key = `${account}\u0000${asset}`;
    this.delta.set(key, (this.delta.get(key) ?? 0n) + change);
  }

  private insufficient(source: Source, asset: string, needed: bigint, available: bigint): NumscriptError {
    const accounts = [...new Set(this.accountsOf(source))];
    const shown = accounts.map((account) => `@${account}`).join(', ');
    return new NumscriptError(
      'INSUFFICIENT_FUND',
      `account(s) ${shown} had insufficient funds: needed ${asset} ${needed}, could take ${asset} ${available}`,
      { account: accounts[0], accounts, asset, needed: needed.toString(), available: available.toString() },
    );
  }

  private accountsOf(source: Source): string[] {
    switch (source.kind) {
      case 'account':
        return [this.scope.account(source.account)];
      case 'max':
        return this.accountsOf(source.source);
      case 'inorder':
      case 'oneof':
        return source.sources.flatMap((item) => this.accountsOf(item));
      case 'allotment':
        return source.parts.flatMap((part) => this.accountsOf(part.source));
    }
  }
}

/** Appends funds to the queue, merging them into the last entry when it is the same account and asset. */
function push(funding: Funding[], account: string, asset: string, amount: bigint): void {
  const last = funding[funding.length - 1];
  if (last !== undefined && last.account === account && last.asset === asset) last.amount += amount;
  else funding.push({ account, asset, amount });
}

const nonNegative = (amount: bigint): bigint => (amount < 0n ? 0n : amount);

/** Formance's name for an asset of a color: `COIN` in `RED` is `COIN_RED`, `USD/4` in `COL` is `USD_COL/4`. */
export function colored(asset: string, color: string): string {
  if (color === '') return asset;
  const slash = asset.indexOf('/');
  return slash < 0 ? `${asset}_${color}` : `${asset.slice(0, slash)}_${color}${asset.slice(slash)}`;
}

/** Per statement, its balance()/overdraft() calls (undefined when the program has none, the common case). */
export function statementCalls(program: Program): Call[][] | undefined {
  const all = program.statements.map((statement) => {
    const found: Call[] = [];
    for (const expr of statementExprs(statement)) balanceCalls(expr, found);
    return found;
  });
  return all.some((calls) => calls.length > 0) ? all : undefined;
}

function statementExprs(statement: Statement): Expr[] {
  switch (statement.kind) {
    case 'set_tx_meta':
      return [statement.key, statement.value];
    case 'set_account_meta':
      return [statement.account, statement.key, statement.value];
    case 'save':
      return [statement.amount, statement.account];
    case 'send': {
      const exprs: Expr[] = [statement.amount];
      sourceExprs(statement.source, exprs);
      destinationExprs(statement.destination, exprs);
      return exprs;
    }
  }
}

function sourceExprs(source: Source, out: Expr[]): void {
  switch (source.kind) {
    case 'account':
      out.push(source.account);
      if (source.color) out.push(source.color);
      if (source.overdraft?.kind === 'bounded') out.push(source.overdraft.limit);
      if (source.scaling) out.push(source.scaling);
      return;
    case 'max':
      out.push(source.limit);
      return sourceExprs(source.source, out);
    case 'inorder':
    case 'oneof':
      return source.sources.forEach((item) => sourceExprs(item, out));
    case 'allotment':
      return source.parts.forEach((part) => {
        if (part.share.kind === 'portion') out.push(part.share.portion);
        sourceExprs(part.source, out);
      });
  }
}

function destinationExprs(destination: Destination, out: Expr[]): void {
  const target = (t: Target) => t.kind === 'to' && destinationExprs(t.destination, out);
  switch (destination.kind) {
    case 'account':
      out.push(destination.account);
      return;
    case 'allotment':
      return destination.parts.forEach((part) => {
        if (part.share.kind === 'portion') out.push(part.share.portion);
        target(part.target);
      });
    case 'inorder':
    case 'oneof':
      destination.parts.forEach((part) => {
        out.push(part.limit);
        target(part.target);
      });
      target(destination.remaining);
      return;
  }
}
