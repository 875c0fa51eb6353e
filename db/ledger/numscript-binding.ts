import { ApiError } from '../../lib/errors';

/**
 * Interim binding, on the ledger branch only, until `db/ledger/numscript` (written in parallel, same contract) is
 * merged: script transactions answer COMPILATION_FAILED. script.ts then imports './numscript' and this file goes.
 */
export interface NumscriptStore {
  getBalance(account: string, asset: string): Promise<bigint>;
  getAccountMetadata(account: string, key: string): Promise<string | undefined>;
}
export interface NumscriptResult {
  postings: Array<{ source: string; destination: string; amount: bigint; asset: string }>;
  txMetadata: Record<string, string>;
  accountMetadata: Record<string, Record<string, string>>;
}
export type NumscriptProgram = { source: string };

export function compileNumscript(source: string): NumscriptProgram {
  throw new ApiError('COMPILATION_FAILED', `1:1: Numscript is not available in this build (script of ${source.length} characters)`);
}

export async function runNumscript(_program: NumscriptProgram, _vars: Record<string, unknown>, _store: NumscriptStore): Promise<NumscriptResult> {
  throw new ApiError('COMPILATION_FAILED', '1:1: Numscript is not available in this build');
}
