import { ApiError } from '../../../lib/errors';
import { stringifyJson } from '../../../lib/json';
import { assertLedgerExists, ensureLedger } from '../ledgers';
import { accountMatcher, evalExpr, parseExpr, type Expr } from './mapping-expr';
import { WORLD, type Executor, type VolumesByAccount } from '../types';

/** Formance v1's contract: the accounts it covers (`*` wildcards; absent = all) and the expression their balances must satisfy. */
export interface Contract {
  id?: string;
  account?: string;
  expr: Record<string, unknown>;
}
export interface Mapping {
  contracts: Contract[];
}

interface CompiledContract {
  matches: (address: string) => boolean;
  expr: Expr;
  source: Contract;
}

function compile(contracts: Contract[]): CompiledContract[] {
  return contracts.map((contract, i) => ({
    matches: accountMatcher(contract.account),
    expr: parseExpr(contract.expr, `contracts[${i}].expr`),
    source: contract,
  }));
}

/** The ledger's mapping, `null` when it never had one (as v1). @throws ApiError LEDGER_NOT_FOUND */
export async function getMapping(db: Executor, ledger: string): Promise<Mapping | null> {
  await assertLedgerExists(db, ledger);
  const row = await db('ledger_mappings').where({ ledger }).first('contracts');
  return row ? { contracts: row.contracts as Contract[] } : null;
}

/**
 * Replaces the ledger's mapping (a v1 write: it creates the ledger when missing). Every expression is parsed first: a
 * malformed one is a 400 and nothing is saved. @throws ApiError VALIDATION
 */
export async function updateMapping(db: Executor, ledger: string, mapping: Mapping): Promise<Mapping> {
  compile(mapping.contracts);
  await ensureLedger(db, ledger);
  await db.raw(
    `INSERT INTO ledger_mappings (ledger, contracts) VALUES (?, ?::jsonb)
     ON CONFLICT (ledger) DO UPDATE SET contracts = excluded.contracts, updated_at = now()`,
    [ledger, stringifyJson(mapping.contracts)],
  );
  return { contracts: mapping.contracts };
}

/** The ledger's contracts, ready to check; empty when it has no mapping (the common case: v1 writes then skip the check). */
export async function contractsOf(db: Executor, ledger: string): Promise<CompiledContract[]> {
  const row = await db('ledger_mappings').where({ ledger }).first('contracts');
  if (!row) return [];
  try {
    return compile(row.contracts as Contract[]);
  } catch (error) {
    // Saved mappings were parsed when saved; one that no longer parses is a server fault, not the writer's.
    throw new ApiError('INTERNAL', 'the ledger mapping no longer parses', { cause: error });
  }
}

/**
 * v1's check after a write, in the write's transaction: for each account and asset the write touched (not `world`),
 * the first contract whose pattern matches the address must hold for the balance after the write; otherwise the
 * write is INSUFFICIENT_FUND (v1's answer) and the caller's transaction rolls back.
 * @throws ApiError INSUFFICIENT_FUND
 */
export async function assertContracts(trx: Executor, ledger: string, contracts: CompiledContract[], volumes: VolumesByAccount): Promise<void> {
  if (contracts.length === 0) return;
  const metadataOf = new Map<string, Record<string, string>>();
  for (const [address, assets] of Object.entries(volumes)) {
    if (address === WORLD) continue;
    const contract = contracts.find((c) => c.matches(address));
    if (!contract) continue;
    if (!metadataOf.has(address)) {
      const row = await trx('ledger_accounts').where({ ledger, address }).first('metadata');
      metadataOf.set(address, (row?.metadata as Record<string, string> | undefined) ?? {});
    }
    for (const [asset, volume] of Object.entries(assets)) {
      const balance = volume.input - volume.output;
      if (!evalExpr(contract.expr, { balance, metadata: metadataOf.get(address)! })) {
        throw new ApiError(
          'INSUFFICIENT_FUND',
          `account "${address}" would end with ${balance} ${asset}, which breaks the ledger mapping's contract ${stringifyJson(contract.source)}`,
          {
            details: { account: address, asset, balance },
          },
        );
      }
    }
  }
}
