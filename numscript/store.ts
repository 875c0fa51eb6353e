/** What the interpreter reads from the ledger. The caller guarantees the values are locked or consistent. */
export interface NumscriptStore {
  getBalance(account: string, asset: string): Promise<bigint>;
  getAccountMetadata(account: string, key: string): Promise<string | undefined>;
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
