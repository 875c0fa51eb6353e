import { randomUUID } from 'node:crypto';
import { ApiError, validationError } from '../../lib/errors';
import { withIdempotencyKey } from '../../db/idempotency';
import type { Db, Executor } from '../../db/knex';
import { callerRows, createTransaction, ensureLedger, WORLD } from '../ledger';
import { inWriteTransaction } from '../ledger';
import { debitSources, isExpired, walletBalance } from './balances';
import { balanceAccount, holdAccount, MAIN_BALANCE, subjectAccount, walletTxMetadata, WALLETS_LEDGER, type Subject } from './chart';
import { assertWalletExists } from './wallets';
import { holdSources, insertHolds, rememberHold, type NewHold } from './hold-rows';

export interface Amount {
  asset: string;
  amount: bigint;
}

export interface WalletDebitResult {
  id: string;
  walletID: string;
  asset: string;
  metadata: Record<string, string>;
  description: string;
  destination: Subject;
}

/** The address of a subject; a WALLET subject must name an existing wallet. @throws ApiError NOT_FOUND, VALIDATION */
async function resolveSubject(db: Db, subject: Subject): Promise<string> {
  if (subject.type === 'WALLET') await assertWalletExists(db, subject.identifier);
  return subjectAccount(subject);
}

/**
 * Refuses a credit drawing from an expired wallet balance: expired funds are out of reach of every movement, not only
 * of debits (Formance's credit does not check; see docs/wallets.md). A source balance must exist.
 * @throws ApiError VALIDATION (unknown balance), INSUFFICIENT_FUND (expired balance)
 */
async function assertSourcesLive(db: Executor, sources: Subject[], now: Date): Promise<void> {
  for (const subject of sources) {
    if (subject.type !== 'WALLET' || !subject.balance || subject.balance === MAIN_BALANCE) continue;
    const balance = await walletBalance(db, subject.identifier, subject.balance);
    if (isExpired(balance, now)) throw new ApiError('INSUFFICIENT_FUND', `balance "${balance.name}" of wallet "${subject.identifier}" has expired`);
  }
}

/**
 * `send $amount (source = { @s1 @s2 ... } destination = @d)`: the interpreter takes from the sources in order and checks
 * funds. The amount is a variable: Numscript cannot write an asset with a `_` (`COIN_RED`) as a literal, a variable can.
 */
const sendScript = (amount: Amount, sources: string[], destination: string): { plain: string; vars: Record<string, string> } => ({
  plain: `vars {\n  monetary $amount\n}\nsend $amount (\n  source = { ${sources.map((s) => `@${s}`).join(' ')} }\n  destination = @${destination}\n)`,
  vars: { amount: `${amount.asset} ${amount.amount}` },
});

/**
 * Credits a wallet balance from `sources` (default `world`, taken in order). One ledger transaction.
 * @throws ApiError NOT_FOUND (wallet), VALIDATION (unknown balance, bad subject), INSUFFICIENT_FUND (a non-world source, an expired
 * source balance), CONFLICT (reference, key)
 */
export async function creditWallet(
  db: Db,
  id: string,
  input: { amount: Amount; sources?: Subject[]; balance?: string; metadata?: Record<string, string>; reference?: string; timestamp?: Date },
  options: { idempotencyKey?: string } = {},
): Promise<void> {
  await ensureLedger(db, WALLETS_LEDGER);
  await assertWalletExists(db, id);
  // Crediting an expired balance is allowed, as in Formance: the funds land expired, out of every debit's reach.
  const balance = input.balance || MAIN_BALANCE;
  if (balance !== MAIN_BALANCE) await walletBalance(db, id, balance);
  const sources = input.sources && input.sources.length > 0 ? await Promise.all(input.sources.map((s) => resolveSubject(db, s))) : [WORLD];
  const destination = balanceAccount(id, balance);
  await withWalletKey(db, `wallets/credit/${id}`, options.idempotencyKey, input, async (executor) => {
    // Expiry is judged within the write, after an Idempotency-Key's claim: a replay answers the first result even once
    // a balance it drew from has expired.
    await assertSourcesLive(executor, input.sources ?? [], new Date());
    await createTransaction(
      executor,
      WALLETS_LEDGER,
      {
        script: sendScript(input.amount, sources, destination),
        metadata: walletTxMetadata(id, input.metadata),
        ...(input.reference ? { reference: input.reference } : {}),
        ...(input.timestamp ? { timestamp: input.timestamp } : {}),
      },
      { lock: [...sources, destination].map((account): [string, string] => [account, input.amount.asset]) },
    );
    return true;
  });
}

/**
 * Debits a wallet from its balances (default `main`; `["*"]` for all, see debitSources) to `destination` (default
 * `world`). With `pending`, the funds move to a hold account instead and the hold is returned; confirmHold/voidHold
 * settle it. Funds are checked under the ledger's row locks, so parallel debits never overdraw.
 * @throws ApiError NOT_FOUND (wallet), VALIDATION, INSUFFICIENT_FUND, CONFLICT (key reused with another body)
 */
export async function debitWallet(
  db: Db,
  id: string,
  input: {
    amount: Amount;
    balances?: string[];
    destination?: Subject;
    metadata?: Record<string, string>;
    description?: string;
    pending?: boolean;
    timestamp?: Date;
  },
  options: { idempotencyKey?: string } = {},
): Promise<WalletDebitResult | undefined> {
  await ensureLedger(db, WALLETS_LEDGER);
  await assertWalletExists(db, id);
  if (input.amount.amount <= 0n) throw validationError('amount.amount: a debit must be greater than 0');
  const destination: Subject = input.destination ?? { type: 'ACCOUNT', identifier: WORLD };
  const finalAccount = await resolveSubject(db, destination);
  const holdId = input.pending ? randomUUID() : undefined;
  const target = holdId ? holdAccount(holdId) : finalAccount;
  // The hold row goes in with the ledger transaction (in its batch, after its txid): what each source gave is known
  // only once the script ran, and a write refused for funds leaves no hold behind.
  const hold: NewHold | undefined = holdId
    ? {
        id: holdId,
        wallet_id: id,
        asset: input.amount.asset,
        original_amount: input.amount.amount.toString(),
        description: input.description ?? '',
        metadata: input.metadata ?? {},
        destination,
      }
    : undefined;
  let sourcesTaken: ReturnType<typeof holdSources> | undefined;
  const written = await withWalletKey(db, `wallets/debit/${id}`, options.idempotencyKey, input, async (executor) => {
    // The sources (expired balances left out) are resolved within the write, after an Idempotency-Key's claim: a replay
    // answers the first result even once a balance it drew from has expired.
    const sources = (await debitSources(executor, id, input.balances)).map((name) => balanceAccount(id, name));
    const { transaction } = await createTransaction(
      executor,
      WALLETS_LEDGER,
      {
        script: sendScript(input.amount, sources, target),
        metadata: walletTxMetadata(id, { ...input.metadata, ...(holdId ? { 'wallets/holds/id': holdId } : {}) }),
        ...(input.timestamp ? { timestamp: input.timestamp } : {}),
      },
      {
        lock: [...sources, target].map((account): [string, string] => [account, input.amount.asset]),
        ...(hold ? { rows: callerRows(insertHolds, hold) } : {}),
      },
    );
    sourcesTaken = holdSources(transaction.postings);
    if (!hold) return null;
    const result: WalletDebitResult = {
      id: hold.id,
      walletID: id,
      asset: hold.asset,
      metadata: hold.metadata,
      description: hold.description,
      destination,
    };
    return result;
  });
  // Once committed (not from inside a keyed write's transaction), and not on a replay, whose hold is the first request's.
  if (hold && sourcesTaken) rememberHold({ ...hold, sources: sourcesTaken });
  return written ?? undefined;
}

/**
 * Runs a wallet write under its Idempotency-Key. Without a key the write is given the pool, so it joins the wallets
 * ledger's group commit (its own rows go in with it as CallerRows); with one, the key's claim, the write and its
 * stored result are one database transaction, as every keyed write is.
 * @returns the write's result, or the stored result of the first request with that key
 */
export async function withWalletKey<T>(
  db: Db,
  scope: string,
  key: string | undefined,
  request: unknown,
  write: (executor: Executor) => Promise<T>,
): Promise<T> {
  if (key === undefined) return write(db);
  const claim = await inWriteTransaction(db, (trx) => withIdempotencyKey(trx, { scope, key, request }, () => write(trx)));
  return claim.value;
}
