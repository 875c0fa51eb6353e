import { randomUUID } from 'node:crypto';
import { validationError } from '../../lib/errors';
import { withIdempotencyKey } from '../../db/idempotency';
import type { Db } from '../../db/knex';
import { createTransaction, ensureLedger, WORLD } from '../ledger';
import { inWriteTransaction } from '../ledger';
import { debitSources } from './balances';
import { balanceAccount, holdAccount, MAIN_BALANCE, subjectAccount, walletTxMetadata, WALLETS_LEDGER, type Subject } from './chart';
import { getWalletRow } from './wallets';
import { stringifyJson } from '../../lib/json';

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
  if (subject.type === 'WALLET') await getWalletRow(db, subject.identifier);
  return subjectAccount(subject);
}

/** `send [A n] (source = { @s1 @s2 ... } destination = @d)`: the interpreter takes from the sources in order and checks funds. */
const sendScript = (amount: Amount, sources: string[], destination: string): string =>
  `send [${amount.asset} ${amount.amount}] (\n  source = { ${sources.map((s) => `@${s}`).join(' ')} }\n  destination = @${destination}\n)`;

/**
 * Credits a wallet balance from `sources` (default `world`, taken in order). One ledger transaction.
 * @throws ApiError NOT_FOUND (wallet), VALIDATION (unknown balance, bad subject), INSUFFICIENT_FUND (a non-world source), CONFLICT (reference, key)
 */
export async function creditWallet(
  db: Db,
  id: string,
  input: { amount: Amount; sources?: Subject[]; balance?: string; metadata?: Record<string, string>; reference?: string; timestamp?: Date },
  options: { idempotencyKey?: string } = {},
): Promise<void> {
  await ensureLedger(db, WALLETS_LEDGER);
  await getWalletRow(db, id);
  const balance = input.balance ?? MAIN_BALANCE;
  if (balance !== MAIN_BALANCE) await debitSources(db, id, [balance]);
  const sources = input.sources && input.sources.length > 0 ? await Promise.all(input.sources.map((s) => resolveSubject(db, s))) : [WORLD];
  await inWriteTransaction(db, async (trx) => {
    await withIdempotencyKey(trx, { scope: `wallets/credit/${id}`, key: options.idempotencyKey, request: input }, async () => {
      const destination = balanceAccount(id, balance);
      await createTransaction(
        trx,
        WALLETS_LEDGER,
        {
          script: { plain: sendScript(input.amount, sources, destination) },
          metadata: walletTxMetadata(id, input.metadata),
          ...(input.reference ? { reference: input.reference } : {}),
          ...(input.timestamp ? { timestamp: input.timestamp } : {}),
        },
        { lockFirst: [...sources, destination].map((account): [string, string] => [account, input.amount.asset]) },
      );
      return true;
    });
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
  input: { amount: Amount; balances?: string[]; destination?: Subject; metadata?: Record<string, string>; description?: string; pending?: boolean; timestamp?: Date },
  options: { idempotencyKey?: string } = {},
): Promise<WalletDebitResult | undefined> {
  await ensureLedger(db, WALLETS_LEDGER);
  await getWalletRow(db, id);
  if (input.amount.amount <= 0n) throw validationError('amount.amount: a debit must be greater than 0');
  const sources = (await debitSources(db, id, input.balances)).map((name) => balanceAccount(id, name));
  const destination: Subject = input.destination ?? { type: 'ACCOUNT', identifier: WORLD };
  const finalAccount = await resolveSubject(db, destination);
  const claim = await inWriteTransaction(db, (trx) =>
    withIdempotencyKey(trx, { scope: `wallets/debit/${id}`, key: options.idempotencyKey, request: input }, async () => {
      const holdId = input.pending ? randomUUID() : undefined;
      const target = holdId ? holdAccount(holdId) : finalAccount;
      const insertHold = (taken: Array<{ account: string; amount: bigint }>) =>
        trx('wallet_holds').insert({
          id: holdId,
          wallet_id: id,
          asset: input.amount.asset,
          original_amount: input.amount.amount.toString(),
          description: input.description ?? '',
          metadata: stringifyJson(input.metadata ?? {}),
          destination: stringifyJson(destination),
          sources: stringifyJson(taken.map((t) => ({ account: t.account, amount: t.amount.toString() }))),
        });
      // With one source the script takes the whole amount from it (or fails and rolls this back), so the hold is
      // written before the ledger write, which takes the wallets ledger's txid row last and holds it to the commit.
      if (holdId && sources.length === 1) await insertHold([{ account: sources[0], amount: input.amount.amount }]);
      const { transaction } = await createTransaction(
        trx,
        WALLETS_LEDGER,
        {
          script: { plain: sendScript(input.amount, sources, target) },
          metadata: walletTxMetadata(id, { ...input.metadata, ...(holdId ? { 'wallets/holds/id': holdId } : {}) }),
          ...(input.timestamp ? { timestamp: input.timestamp } : {}),
        },
        { lockFirst: [...sources, target].map((account): [string, string] => [account, input.amount.asset]) },
      );
      if (!holdId) return null;
      if (sources.length > 1) await insertHold(transaction.postings.filter((p) => p.amount > 0n).map((p) => ({ account: p.source, amount: p.amount })));
      const hold: WalletDebitResult = { id: holdId, walletID: id, asset: input.amount.asset, metadata: input.metadata ?? {}, description: input.description ?? '', destination };
      return hold;
    }),
  );
  return claim.value ?? undefined;
}
