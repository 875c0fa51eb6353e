import type { AccountRef, PaymentDestinationRef, SendStage, WalletRef } from '../../lib/orchestration/stage-types';
import { INTERNAL_LEDGER } from '../../lib/orchestration/steps';
import { failureCode, stageFailure, type StageContext } from './stage-context';

/** Ledger where payments entering a workflow are materialised as accounts (Formance's name). */
const MOVE_TO = 'orchestration/move-to-ledger';
const MOVE_FROM = 'orchestration/move-from-ledger';

interface Move {
  amount: { asset: string; amount: bigint };
  metadata: Record<string, string>;
  timestamp?: string;
}

interface ResolvedWallet {
  id: string;
  ledger: string;
  balance: string;
  metadata: Record<string, string>;
}

/**
 * The `send` stage: every source/destination pair of Formance's send, as the same sequences of activities (so op 14
 * lists the steps Formance users expect). Across ledgers, money leaves through `world` on one ledger and enters from
 * `world` on the other, with move-to/move-from metadata. Unlike Formance, a send to a payment debits the ledger or
 * wallet first and asks the provider second: insufficient funds then blocks the transfer instead of following it.
 */
export async function runSend(spec: SendStage, ctx: StageContext): Promise<void> {
  let source: { account?: AccountRef; wallet?: WalletRef } = spec.source;
  let amount = spec.amount;
  if (spec.source.payment) {
    const { data: payment } = await ctx.call('GetPayment', { id: spec.source.payment.id });
    amount ??= { asset: String(payment.asset), amount: BigInt(payment.initialAmount) };
    const account = `payment:${spec.source.payment.id.replace(/[^a-zA-Z0-9_]/g, '_')}`;
    try {
      await ctx.call('CreateTransaction', {
        ledger: INTERNAL_LEDGER,
        data: { postings: [{ source: 'world', destination: account, ...amount }], reference: account, metadata: {} },
      });
    } catch (error) {
      // The reference is taken: this payment already entered the internal ledger (an earlier send from it).
      if (failureCode(error) !== 'CONFLICT') throw error;
    }
    source = { account: { id: account, ledger: INTERNAL_LEDGER } };
  }
  const move: Move = { amount: amount as Move['amount'], metadata: spec.metadata, ...(spec.timestamp ? { timestamp: spec.timestamp } : {}) };
  const { destination } = spec;
  if (source.account) {
    if (destination.account) return accountToAccount(ctx, source.account, destination.account, move);
    if (destination.wallet) return accountToWallet(ctx, source.account, await fetchWallet(ctx, destination.wallet), move);
    if (destination.payment) return accountToPayment(ctx, source.account, destination.payment, move);
  }
  if (source.wallet) {
    const wallet = await fetchWallet(ctx, source.wallet);
    if (destination.account) return walletToAccount(ctx, wallet, destination.account, move);
    if (destination.wallet) return walletToWallet(ctx, wallet, await fetchWallet(ctx, destination.wallet), move);
    if (destination.payment) return walletToPayment(ctx, wallet, destination.payment, move);
  }
  throw stageFailure('unsupported send: check source and destination');
}

const tagged = (move: Move, key: string, ledger: string) => ({ ...move.metadata, [key]: ledger });

/** `last`: the stage's last step (see StageContext.call); every send ends with one. */
async function transfer(ctx: StageContext, ledger: string, source: string, destination: string, move: Move, metadata = move.metadata, last = false) {
  await ctx.call(
    'CreateTransaction',
    { ledger, data: { postings: [{ source, destination, ...move.amount }], metadata, ...(move.timestamp ? { timestamp: move.timestamp } : {}) } },
    { last },
  );
}

async function accountToAccount(ctx: StageContext, from: AccountRef, to: AccountRef, move: Move) {
  if (from.ledger === to.ledger) return transfer(ctx, from.ledger, from.id, to.id, move, move.metadata, true);
  await transfer(ctx, from.ledger, from.id, 'world', move, tagged(move, MOVE_TO, to.ledger));
  await transfer(ctx, to.ledger, 'world', to.id, move, tagged(move, MOVE_FROM, from.ledger), true);
}

async function accountToWallet(ctx: StageContext, from: AccountRef, to: ResolvedWallet, move: Move) {
  const sameLedger = from.ledger === to.ledger;
  if (!sameLedger) await transfer(ctx, from.ledger, from.id, 'world', move, tagged(move, MOVE_TO, to.ledger));
  await ctx.call(
    'CreditWallet',
    {
      id: to.id,
      data: {
        amount: move.amount,
        sources: sameLedger ? [{ type: 'ACCOUNT', identifier: from.id }] : [],
        balance: to.balance,
        metadata: sameLedger ? move.metadata : tagged(move, MOVE_FROM, from.ledger),
        ...(move.timestamp ? { timestamp: move.timestamp } : {}),
      },
    },
    { last: true },
  );
}

async function walletToAccount(ctx: StageContext, from: ResolvedWallet, to: AccountRef, move: Move) {
  const sameLedger = from.ledger === to.ledger;
  await ctx.call(
    'DebitWallet',
    {
      id: from.id,
      data: {
        amount: move.amount,
        balances: [from.balance],
        pending: false,
        metadata: sameLedger ? move.metadata : tagged(move, MOVE_TO, to.ledger),
        ...(sameLedger ? { destination: { type: 'ACCOUNT' as const, identifier: to.id } } : {}),
        ...(move.timestamp ? { timestamp: move.timestamp } : {}),
      },
    },
    { last: sameLedger },
  );
  if (!sameLedger) await transfer(ctx, to.ledger, 'world', to.id, move, tagged(move, MOVE_FROM, from.ledger), true);
}

async function walletToWallet(ctx: StageContext, from: ResolvedWallet, to: ResolvedWallet, move: Move) {
  const sameLedger = from.ledger === to.ledger;
  if (!sameLedger) {
    await ctx.call('DebitWallet', {
      id: from.id,
      data: { amount: move.amount, balances: [from.balance], pending: false, metadata: tagged(move, MOVE_TO, to.ledger) },
    });
  }
  await ctx.call(
    'CreditWallet',
    {
      id: to.id,
      data: {
        amount: move.amount,
        sources: sameLedger ? [{ type: 'WALLET', identifier: from.id, balance: from.balance }] : [],
        balance: to.balance,
        metadata: sameLedger ? move.metadata : tagged(move, MOVE_FROM, from.ledger),
        ...(move.timestamp ? { timestamp: move.timestamp } : {}),
      },
    },
    { last: true },
  );
}

async function accountToPayment(ctx: StageContext, from: AccountRef, to: PaymentDestinationRef, move: Move) {
  const { data: account } = await ctx.call('GetAccount', { id: from.id, ledger: from.ledger });
  const external = externalAccount(account.metadata, to.metadata, `account ${from.id}`);
  await transfer(ctx, from.ledger, from.id, 'world', move);
  await providerTransfer(ctx, to, external, move);
}

async function walletToPayment(ctx: StageContext, from: ResolvedWallet, to: PaymentDestinationRef, move: Move) {
  const external = externalAccount(from.metadata, to.metadata, `wallet ${from.id}`);
  await ctx.call('DebitWallet', { id: from.id, data: { amount: move.amount, balances: [from.balance], pending: false, metadata: move.metadata } });
  await providerTransfer(ctx, to, external, move);
}

async function providerTransfer(ctx: StageContext, to: PaymentDestinationRef, destination: string, move: Move) {
  const connectorID = to.connectorId ?? (await ctx.call('findConnector', { psp: to.psp, destination })).connectorID;
  await ctx.call(
    'ProviderTransfer',
    {
      connectorID,
      amount: move.amount.amount,
      asset: move.amount.asset,
      destination,
      waitingValidation: to.waitingValidation,
      metadata: move.metadata,
    },
    { last: true },
  );
}

/** The provider-side account id stored in the source's metadata under `key` (default formanceAccountID). */
function externalAccount(metadata: Record<string, string>, key: string, what: string): string {
  const value = metadata?.[key];
  if (!value) throw stageFailure(`${what} has no metadata "${key}" naming the provider account to pay`);
  return value;
}

/** A wallet by id (GetWallet) or by name (ListWallets, which must match exactly one). */
async function fetchWallet(ctx: StageContext, ref: WalletRef): Promise<ResolvedWallet> {
  if (ref.id) {
    const { data } = await ctx.call('GetWallet', { id: ref.id });
    return { id: data.id, ledger: data.ledger, balance: ref.balance, metadata: data.metadata };
  }
  const { cursor } = await ctx.call('ListWallets', { name: ref.name as string });
  const matches = cursor.data.filter((w) => w.name === ref.name);
  if (matches.length !== 1) {
    throw stageFailure(
      matches.length === 0 ? `wallet named "${ref.name}" not found` : `several wallets are named "${ref.name}"`,
      matches.length ? 'VALIDATION' : 'NOT_FOUND',
    );
  }
  return { id: matches[0].id, ledger: matches[0].ledger, balance: ref.balance, metadata: matches[0].metadata };
}
