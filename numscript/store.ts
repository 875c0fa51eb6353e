/** What the interpreter reads from the ledger. The caller guarantees the values are locked or consistent. */
export interface NumscriptStore {
  getBalance(account: string, asset: string): Promise<bigint>;
  getAccountMetadata(account: string, key: string): Promise<string | undefined>;
  /**
   * Every balance of `account` in `baseAsset` at any scale (`EUR`, `EUR/2`, …), keyed by asset. Only asset scaling
   * (experimental-asset-scaling) asks for it; a store without it cannot run such a script.
   */
  getScaledBalances?(account: string, baseAsset: string): Promise<Record<string, bigint>>;
}

export interface NumscriptPosting {
  source: string;
  destination: string;
  amount: bigint;
  asset: string;
}

export interface NumscriptResult {
  postings: NumscriptPosting[];
  txMetadata: Record<string, string>;
  accountMetadata: Record<string, Record<string, string>>;
}
