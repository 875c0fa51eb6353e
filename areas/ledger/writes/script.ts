import type { Knex } from 'knex';
import { ApiError } from '../../../lib/errors';
import { compileNumscript, NumscriptError, runNumscript, type NumscriptResult } from '../../../numscript';
import { ledgerScriptFlags } from '../ledgers';
import { assertPostings } from '../rules/rules';
import type { Posting } from '../types';
import { lockVolumes, pairKey, readBalance, readScaledBalances, type VolumeMap } from '../reads/volumes';

/**
 * Numscript's errors carry the contract's codes; the ledger turns them into its API errors unchanged. An
 * INSUFFICIENT_FUND keeps its facts (account, accounts, asset, needed, available) as the error's `details`.
 */
function inApiTerms<T>(run: () => T): T {
  const translate = (error: unknown): never => {
    throw error instanceof NumscriptError ? new ApiError(error.code, error.message, { cause: error, details: error.details }) : error;
  };
  try {
    const result = run();
    return (result instanceof Promise ? result.catch(translate) : result) as T;
  } catch (error) {
    return translate(error);
  }
}

/** A script cannot read an unbounded set of balances; past this many lock rounds something is wrong with it. */
const MAX_LOCK_ROUNDS = 10;

/**
 * Runs a Numscript program with every balance it reads locked, so its funds checks hold at commit time.
 * Round 1 reads balances without locks and records them; the read set and the resulting postings' pairs are then
 * locked in sorted order and the program runs again. A run whose every read was served by a locked row is final (its
 * outcome, success or INSUFFICIENT_FUND, stands); otherwise the new reads are locked and it runs again.
 * On return, `locked` also holds every pair the postings touch.
 * @throws ApiError COMPILATION_FAILED, INSUFFICIENT_FUND, VALIDATION (from the interpreter)
 */
async function runScriptLocked(
  trx: Knex.Transaction,
  ledger: string,
  script: { plain: string; vars?: Record<string, unknown> },
  locked: VolumeMap,
): Promise<NumscriptResult> {
  const features = await ledgerScriptFlags(trx, ledger);
  const program = inApiTerms(() => compileNumscript(script.plain, { features }));
  for (let round = 1; ; round++) {
    const reads: Array<[string, string]> = [];
    let clean = true;
    const store = {
      async getBalance(account: string, asset: string): Promise<bigint> {
        reads.push([account, asset]);
        const row = locked.get(pairKey(account, asset));
        if (row) return row.input - row.output;
        clean = false;
        return readBalance(trx, ledger, account, asset);
      },
      async getAccountMetadata(account: string, key: string): Promise<string | undefined> {
        const row = await trx('ledger_accounts').where({ ledger, address: account }).first('metadata');
        return row?.metadata?.[key];
      },
      // Every scale found is a read like getBalance's: a locked row answers its locked value, any other makes the run
      // unclean, so it is locked and the script runs again (a scale added meanwhile shows as a new read then).
      async getScaledBalances(account: string, baseAsset: string): Promise<Record<string, bigint>> {
        const balances = await readScaledBalances(trx, ledger, account, baseAsset);
        for (const asset of Object.keys(balances)) {
          reads.push([account, asset]);
          const row = locked.get(pairKey(account, asset));
          if (row) balances[asset] = row.input - row.output;
          else clean = false;
        }
        return balances;
      },
    };
    let result: NumscriptResult | undefined;
    try {
      result = await inApiTerms(() => runNumscript(program, script.vars ?? {}, store));
    } catch (error) {
      if (clean) throw error;
    }
    const touched = (result?.postings ?? []).flatMap((p): Array<[string, string]> => [
      [p.source, p.asset],
      [p.destination, p.asset],
    ]);
    if (clean && result) {
      await lockVolumes(trx, ledger, touched, locked);
      return result;
    }
    if (round >= MAX_LOCK_ROUNDS) throw new Error(`script kept reading unlocked balances after ${MAX_LOCK_ROUNDS} rounds`);
    await lockVolumes(trx, ledger, [...reads, ...touched], locked);
  }
}

/**
 * The pairs a script would lock if it ran now: the balances an unlocked run reads and the pairs of its postings. A
 * write that must take its locks before its first insert (an atomic bulk, see bulk.ts) locks these up front; a later
 * run that reads something else (an earlier element moved a balance it branches on) still locks that as it goes.
 * A script that does not compile or fails here gives what it read so far: its real run reports the error. A database
 * error is rethrown: the transaction cannot go on after it.
 */
export async function scriptPairs(
  trx: Knex.Transaction,
  ledger: string,
  script: { plain: string; vars?: Record<string, unknown> },
  /** Balances already read by earlier calls for the same lock (one read per pair, as these reads decide nothing). */
  seen: Map<string, bigint> = new Map(),
): Promise<Array<[string, string]>> {
  const reads: Array<[string, string]> = [];
  try {
    const program = compileNumscript(script.plain, { features: await ledgerScriptFlags(trx, ledger) });
    const result = await runNumscript(program, script.vars ?? {}, {
      async getBalance(account: string, asset: string): Promise<bigint> {
        reads.push([account, asset]);
        const key = pairKey(account, asset);
        let balance = seen.get(key);
        if (balance === undefined) seen.set(key, (balance = await readBalance(trx, ledger, account, asset)));
        return balance;
      },
      async getAccountMetadata(account: string, key: string): Promise<string | undefined> {
        const row = await trx('ledger_accounts').where({ ledger, address: account }).first('metadata');
        return row?.metadata?.[key];
      },
      async getScaledBalances(account: string, baseAsset: string): Promise<Record<string, bigint>> {
        const balances = await readScaledBalances(trx, ledger, account, baseAsset);
        reads.push(...Object.keys(balances).map((asset): [string, string] => [account, asset]));
        return balances;
      },
    });
    return [
      ...reads,
      ...result.postings.flatMap((p): Array<[string, string]> => [
        [p.source, p.asset],
        [p.destination, p.asset],
      ]),
    ];
  } catch (error) {
    if (error instanceof NumscriptError) return reads;
    throw error;
  }
}

/**
 * A write's postings and metadata from its script, run with runScriptLocked: the request's own metadata merged with
 * the script's, where a key set by both is METADATA_OVERRIDE (Formance's rule), and the metadata the script sets on
 * accounts. The batched and the single write path both take a scripted write through here.
 * @throws ApiError METADATA_OVERRIDE, and those of runScriptLocked and assertPostings
 */
export async function scriptedWrite(
  trx: Knex.Transaction,
  ledger: string,
  script: { plain: string; vars?: Record<string, unknown> },
  metadata: Record<string, string>,
  locked: VolumeMap,
): Promise<{ postings: Posting[]; metadata: Record<string, string>; accountMetadata: Record<string, Record<string, string>> }> {
  const result = await runScriptLocked(trx, ledger, script, locked);
  const clash = Object.keys(result.txMetadata).find((key) => key in metadata);
  if (clash !== undefined) throw new ApiError('METADATA_OVERRIDE', `metadata key "${clash}" is set both by the script and by the request`);
  assertPostings(result.postings, 'script postings');
  return { postings: result.postings, metadata: { ...metadata, ...result.txMetadata }, accountMetadata: result.accountMetadata };
}
