import { allocate, resolveAllotment } from './allocation';
import type { AllotmentShare, Destination, Expr, Pos, Program, Source, Statement, Target } from './ast';
import { compilationError, NumscriptError } from './errors';
import { Scope } from './evaluate';
import type { NumscriptResult, NumscriptStore } from './store';
import { formatValue } from './values';
import { resolveVars } from './vars';

/** Funds taken from one source account, waiting to be handed to destinations (or kept). */
interface Funding {
  account: string;
  amount: bigint;
}

/**
 * Runs a checked program. Each `send` first takes the funds from its source (recording, in order, how much each
 * account gives), then pours that queue of funds into its destination: a destination takes the next units of the
 * queue, `kept` units go back to the account they came from. Balances are the store's value plus the changes of the
 * earlier postings of this run, so a second `send` sees the first one's effect. Balances are read lazily and only
 * for bounded sources (and balance()), so the caller's lock set stays minimal; destinations and `@world` are never read.
 */
export class Interpreter {
  private readonly scope = new Scope(new Map());
  private readonly read = new Map<string, bigint>();
  private readonly delta = new Map<string, bigint>();
  private readonly result: NumscriptResult = { postings: [], txMetadata: {}, accountMetadata: {} };

  constructor(private readonly program: Program, private readonly store: NumscriptStore) {}

  async run(vars: Record<string, unknown>): Promise<NumscriptResult> {
    await resolveVars(this.program.vars, vars, this.scope, this.store);
    for (const statement of this.program.statements) await this.execute(statement);
    return this.result;
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
      case 'send': {
        const { asset, amount } = scope.request(statement.amount);
        const funding: Funding[] = [];
        const taken = await this.take(statement.source, asset, amount === 'all' ? null : amount, funding);
        if (amount !== 'all' && taken < amount) throw this.insufficient(statement.source, asset, amount, taken);
        this.pour(statement.destination, asset, taken, funding);
        return;
      }
    }
  }

  /**
   * Takes up to `want` units (`null`: all that is available) from `source` into `funding`; returns how much it took.
   * Only an allotment insists on getting its exact parts; other sources give what they can and the caller checks.
   */
  private async take(source: Source, asset: string, want: bigint | null, funding: Funding[]): Promise<bigint> {
    if (want === 0n) return 0n;
    switch (source.kind) {
      case 'account': {
        const account = this.scope.account(source.account);
        const limit = this.overdraftLimit(source, account, asset);
        let taken: bigint;
        if (limit === null) {
          if (want === null) throw compilationError(source.pos, `cannot send all funds from @${account}: its overdraft is unbounded`);
          taken = want;
        } else {
          const available = (await this.balance(account, asset)) + limit;
          taken = available <= 0n ? 0n : want === null || want > available ? available : want;
        }
        if (taken > 0n) {
          funding.push({ account, amount: taken });
          this.adjust(account, asset, -taken);
        }
        return taken;
      }
      case 'max': {
        const limit = this.monetaryOf(source.limit, asset);
        return this.take(source.source, asset, want === null || want > limit ? limit : want, funding);
      }
      case 'inorder': {
        let total = 0n;
        for (const item of source.sources) {
          if (want !== null && total === want) break;
          total += await this.take(item, asset, want === null ? null : want - total, funding);
        }
        return total;
      }
      case 'allotment': {
        if (want === null) throw compilationError(source.pos, 'cannot send all funds ([ASSET *]) from a portioned source');
        const parts = allocate(want, this.portions(source.parts.map((part) => part.share), source.pos));
        for (const [i, part] of source.parts.entries()) {
          const taken = await this.take(part.source, asset, parts[i], funding);
          if (taken < parts[i]) throw this.insufficient(part.source, asset, parts[i], taken);
        }
        return want;
      }
    }
  }

  /** The overdraft an account source may use: null when unbounded (always for `@world`), 0 when none is allowed. */
  private overdraftLimit(source: Extract<Source, { kind: 'account' }>, account: string, asset: string): bigint | null {
    if (account === 'world' || source.overdraft?.kind === 'unbounded') return null;
    return source.overdraft ? this.monetaryOf(source.overdraft.limit, asset) : 0n;
  }

  /** Hands `amount` units from the head of `funding` to `destination`. */
  private pour(destination: Destination, asset: string, amount: bigint, funding: Funding[]): void {
    switch (destination.kind) {
      case 'account': {
        const account = this.scope.account(destination.account);
        for (const piece of this.dequeue(funding, amount)) {
          this.result.postings.push({ source: piece.account, destination: account, amount: piece.amount, asset });
          this.adjust(account, asset, piece.amount);
        }
        return;
      }
      case 'allotment': {
        const parts = allocate(amount, this.portions(destination.parts.map((part) => part.share), destination.pos));
        destination.parts.forEach((part, i) => this.pourTarget(part.target, asset, parts[i], funding));
        return;
      }
      case 'inorder': {
        let left = amount;
        for (const part of destination.parts) {
          const limit = this.monetaryOf(part.limit, asset);
          const share = left < limit ? left : limit;
          this.pourTarget(part.target, asset, share, funding);
          left -= share;
        }
        this.pourTarget(destination.remaining, asset, left, funding);
        return;
      }
    }
  }

  private pourTarget(target: Target, asset: string, amount: bigint, funding: Funding[]): void {
    if (target.kind === 'to') return this.pour(target.destination, asset, amount, funding);
    // Kept funds never leave their source: give them back.
    for (const piece of this.dequeue(funding, amount)) this.adjust(piece.account, asset, piece.amount);
  }

  /** Removes `amount` units from the head of the queue, splitting a funding entry when needed. */
  private dequeue(funding: Funding[], amount: bigint): Funding[] {
    const pieces: Funding[] = [];
    let left = amount;
    while (left > 0n) {
      const head = funding[0];
      const piece = head.amount <= left ? head.amount : left;
      pieces.push({ account: head.account, amount: piece });
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
    const accounts = [...new Set(this.accountsOf(source))].map((account) => `@${account}`).join(', ');
    return new NumscriptError(
      'INSUFFICIENT_FUND',
      `account(s) ${accounts} had insufficient funds: needed ${asset} ${needed}, could take ${asset} ${available}`,
    );
  }

  private accountsOf(source: Source): string[] {
    switch (source.kind) {
      case 'account':
        return [this.scope.account(source.account)];
      case 'max':
        return this.accountsOf(source.source);
      case 'inorder':
        return source.sources.flatMap((item) => this.accountsOf(item));
      case 'allotment':
        return source.parts.flatMap((part) => this.accountsOf(part.source));
    }
  }
}
