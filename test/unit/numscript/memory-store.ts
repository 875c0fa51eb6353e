import type { NumscriptStore } from '../../../numscript';

/**
 * An in-memory NumscriptStore for unit tests of the interpreter alone (the ledger's real store reads locked rows).
 * It records every balance read, like the ledger does to build its lock set.
 */
export class MemoryStore implements NumscriptStore {
  readonly balanceReads: string[] = [];

  constructor(
    private readonly balances: Record<string, Record<string, bigint>> = {},
    private readonly metadata: Record<string, Record<string, string>> = {},
  ) {}

  async getBalance(account: string, asset: string): Promise<bigint> {
    this.balanceReads.push(`${account} ${asset}`);
    return this.balances[account]?.[asset] ?? 0n;
  }

  async getAccountMetadata(account: string, key: string): Promise<string | undefined> {
    return this.metadata[account]?.[key];
  }
}
