import type { ProviderAccount, ProviderBalance, ProviderPayment } from '../../../areas/payments';

/**
 * Stripe's objects as the platform stores them (Formance's Stripe plugin made the same choices where noted). Pure
 * functions: the plugin (activities/payments/plugins/stripe.ts) maps what it fetches and what it creates, the webhook
 * receiver (stripe-webhooks.ts) maps the objects Stripe's events carry, so both paths write the same rows.
 *
 * A payment's reference is the id of the Stripe object that moved money (a charge `ch_`, refund `re_`, payout `po_`,
 * transfer `tr_`, transfer reversal `trr_`, dispute `du_`), not of its balance transaction: a payout's later failure
 * (a second balance transaction, or a `payout.failed` event) is then a new state of the same payment, an adjustment.
 */

/** The platform account (the API key's own): Formance names it `root`; connected accounts keep their `acct_` ids. */
export const STRIPE_ROOT_ACCOUNT = 'root';

// Stripe's amounts are integers in the currency's minor unit; these currencies have none or three decimals
// (https://docs.stripe.com/currencies#zero-decimal, #three-decimal). Every other currency has two.
const ZERO_DECIMAL = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

export const stripeDecimals = (currency: string): number => {
  const code = currency.toUpperCase();
  return ZERO_DECIMAL.has(code) ? 0 : THREE_DECIMAL.has(code) ? 3 : 2;
};

/** `usd` → `USD/2`, `jpy` → `JPY/0`, `kwd` → `KWD/3`: Formance's asset notation, the amount unchanged. */
export const stripeAsset = (currency: string): string => `${currency.toUpperCase()}/${stripeDecimals(currency)}`;

/**
 * An asset and amount of the platform as Stripe's currency and integer amount. Undefined when the asset's decimals are
 * not Stripe's minor unit for that currency (`JPY/2`): converting would round, so the caller refuses it.
 */
export function stripeAmount(asset: string, amount: bigint): { currency: string; amount: number } | undefined {
  const match = /^([A-Z]{3})\/([0-9]+)$/.exec(asset);
  if (!match || Number(match[2]) !== stripeDecimals(match[1])) return undefined;
  if (amount <= 0n || amount > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return { currency: match[1].toLowerCase(), amount: Number(amount) };
}

type Obj = Record<string, any>;
const EPOCH = new Date(0);
const at = (seconds: unknown): Date => (typeof seconds === 'number' && seconds > 0 ? new Date(seconds * 1000) : EPOCH);
const idOf = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : value && typeof value === 'object' && typeof (value as Obj).id === 'string' ? (value as Obj).id : undefined;
const int = (value: unknown): bigint => (typeof value === 'number' && Number.isInteger(value) ? BigInt(Math.abs(value)) : 0n);
const strings = (value: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(value && typeof value === 'object' ? value : {}).filter(([, v]) => typeof v === 'string')) as Record<
    string,
    string
  >;

const CARD_SCHEMES: Record<string, string> = {
  visa: 'visa',
  mastercard: 'mastercard',
  amex: 'amex',
  american_express: 'amex',
  discover: 'discover',
  jcb: 'jcb',
  diners: 'diners',
  unionpay: 'unionpay',
};
function chargeScheme(charge: Obj): string {
  const details = charge.payment_method_details ?? {};
  if (details.card?.brand) return CARD_SCHEMES[details.card.brand] ?? 'other';
  if (details.sepa_debit) return 'sepa debit';
  if (details.us_bank_account || details.ach_debit) return 'ach debit';
  if (details.alipay) return 'alipay';
  return 'other';
}

function payment(
  object: Obj,
  fields: Pick<ProviderPayment, 'type' | 'status'> & Partial<ProviderPayment>,
  extra: Record<string, string> = {},
): ProviderPayment {
  const createdAt = at(object.created);
  return {
    reference: object.id,
    createdAt,
    updatedAt: createdAt,
    scheme: 'other',
    asset: stripeAsset(object.currency ?? 'usd'),
    amount: int(object.amount),
    metadata: { ...strings(object.metadata), ...extra },
    raw: object,
    ...fields,
  };
}

const CHARGE_STATUS: Record<string, string> = { succeeded: 'SUCCEEDED', pending: 'PENDING', failed: 'FAILED' };
export const stripeCharge = (charge: Obj, account: string): ProviderPayment =>
  payment(charge, {
    type: 'PAY-IN',
    status: CHARGE_STATUS[charge.status] ?? 'OTHER',
    scheme: chargeScheme(charge),
    destinationAccountReference: account,
  });

const REFUND_STATUS: Record<string, string> = {
  succeeded: 'REFUNDED',
  pending: 'PENDING',
  requires_action: 'PENDING',
  failed: 'REFUNDED_FAILURE',
  canceled: 'CANCELLED',
};
export const stripeRefund = (refund: Obj, account: string): ProviderPayment =>
  payment(
    refund,
    { type: 'PAY-IN', status: REFUND_STATUS[refund.status] ?? 'REFUNDED', destinationAccountReference: account },
    idOf(refund.charge) ? { 'stripe/charge': idOf(refund.charge)! } : {},
  );

const PAYOUT_STATUS: Record<string, string> = {
  paid: 'SUCCEEDED',
  pending: 'PENDING',
  in_transit: 'PENDING',
  failed: 'FAILED',
  canceled: 'CANCELLED',
};
export const stripePayout = (payout: Obj, account: string): ProviderPayment =>
  payment(payout, {
    type: 'PAYOUT',
    status: PAYOUT_STATUS[payout.status] ?? 'OTHER',
    sourceAccountReference: account,
    destinationAccountReference: idOf(payout.destination),
  });

// A transfer between Stripe balances settles when it is created; its reversals are payments of their own.
export const stripeTransfer = (transfer: Obj, account: string): ProviderPayment =>
  payment(transfer, {
    type: 'TRANSFER',
    status: 'SUCCEEDED',
    sourceAccountReference: account,
    destinationAccountReference: idOf(transfer.destination),
  });

export const stripeTransferReversal = (reversal: Obj, account: string, destination?: string): ProviderPayment =>
  payment(
    reversal,
    { type: 'TRANSFER', status: 'REFUNDED', sourceAccountReference: account, destinationAccountReference: destination },
    idOf(reversal.transfer) ? { 'stripe/transfer': idOf(reversal.transfer)! } : {},
  );

const DISPUTE_STATUS: Record<string, string> = { won: 'DISPUTE_WON', lost: 'DISPUTE_LOST' };
export const stripeDispute = (dispute: Obj, account: string): ProviderPayment =>
  payment(
    dispute,
    { type: 'PAY-IN', status: DISPUTE_STATUS[dispute.status] ?? 'DISPUTE', destinationAccountReference: account },
    idOf(dispute.charge) ? { 'stripe/charge': idOf(dispute.charge)! } : {},
  );

/**
 * One balance transaction (listed with its `source` expanded) as a payment state, or undefined for the kinds that are
 * not payments (fees, top-ups, tax, climate…). The state's time is the balance transaction's: a payout and its later
 * `payout_failure` are two states of the payout. When the source is not the object its type announces (stripe-mock
 * serves one fixture for every expansion) the balance transaction's own amount, currency and time are used.
 */
export function stripeBalanceTransaction(bt: Obj, account: string): ProviderPayment | undefined {
  const source: Obj | undefined = bt.source && typeof bt.source === 'object' ? bt.source : undefined;
  const is = (kind: string) => source?.object === kind;
  const fallback = (type: string, status: string): ProviderPayment => {
    const incoming = typeof bt.amount === 'number' && bt.amount >= 0;
    return payment(
      { ...bt, id: idOf(bt.source) ?? bt.id, metadata: {} },
      {
        type,
        status,
        raw: bt,
        ...(incoming ? { destinationAccountReference: account } : { sourceAccountReference: account }),
      },
    );
  };
  let mapped: ProviderPayment | undefined;
  switch (bt.type) {
    case 'charge':
    case 'payment':
      mapped = is('charge') ? stripeCharge(source!, account) : fallback('PAY-IN', bt.status === 'pending' ? 'PENDING' : 'SUCCEEDED');
      break;
    case 'refund':
    case 'payment_refund':
      mapped = is('refund') ? stripeRefund(source!, account) : fallback('PAY-IN', 'REFUNDED');
      break;
    case 'refund_failure':
    case 'payment_failure_refund':
      mapped = { ...(is('refund') ? stripeRefund(source!, account) : fallback('PAY-IN', 'REFUNDED')), status: 'REFUNDED_FAILURE' };
      break;
    case 'payout':
      mapped = is('payout') ? stripePayout(source!, account) : fallback('PAYOUT', bt.status === 'pending' ? 'PENDING' : 'SUCCEEDED');
      break;
    case 'payout_cancel':
    case 'payout_failure': {
      const status = bt.type === 'payout_cancel' ? 'CANCELLED' : 'FAILED';
      mapped = { ...(is('payout') ? stripePayout(source!, account) : fallback('PAYOUT', status)), status };
      break;
    }
    case 'transfer':
      mapped = is('transfer') ? stripeTransfer(source!, account) : fallback('TRANSFER', 'SUCCEEDED');
      break;
    case 'transfer_refund':
      mapped = is('transfer_reversal') ? stripeTransferReversal(source!, account) : fallback('TRANSFER', 'REFUNDED');
      break;
    case 'transfer_cancel':
    case 'transfer_failure': {
      const status = bt.type === 'transfer_cancel' ? 'CANCELLED' : 'FAILED';
      mapped = { ...(is('transfer') ? stripeTransfer(source!, account) : fallback('TRANSFER', status)), status };
      break;
    }
    case 'adjustment':
      mapped = is('dispute') ? stripeDispute(source!, account) : fallback('OTHER', 'SUCCEEDED');
      break;
    default:
      return undefined;
  }
  return { ...mapped, updatedAt: at(bt.created), metadata: { ...mapped.metadata, 'stripe/balanceTransaction': bt.id } };
}

/** The platform account (`GET /v1/account`), under the reference `root`. */
export const stripePlatformAccount = (account: Obj): ProviderAccount => ({
  reference: STRIPE_ROOT_ACCOUNT,
  type: 'INTERNAL',
  name: account.business_profile?.name ?? account.settings?.dashboard?.display_name ?? 'Stripe platform account',
  ...(account.default_currency ? { defaultAsset: stripeAsset(account.default_currency) } : {}),
  // The platform account's `created` can change meaning across API versions; a fixed date keeps refetches unchanged.
  createdAt: EPOCH,
  metadata: { ...strings(account.metadata), ...(account.id ? { 'stripe/accountID': account.id } : {}) },
  raw: account,
});

export const stripeConnectedAccount = (account: Obj): ProviderAccount => ({
  reference: account.id,
  type: 'INTERNAL',
  name: account.business_profile?.name ?? account.settings?.dashboard?.display_name ?? account.email ?? account.id,
  ...(account.default_currency ? { defaultAsset: stripeAsset(account.default_currency) } : {}),
  createdAt: at(account.created),
  metadata: strings(account.metadata),
  raw: account,
});

/** A bank account (`ba_`) or card (`card_`) a connected account pays out to: an EXTERNAL account. */
export const stripeExternalAccount = (external: Obj, owner: string): ProviderAccount => ({
  reference: external.id,
  type: 'EXTERNAL',
  name: [external.bank_name ?? external.brand, external.last4 ? `••${external.last4}` : undefined].filter(Boolean).join(' ') || external.id,
  ...(external.currency ? { defaultAsset: stripeAsset(external.currency) } : {}),
  createdAt: EPOCH,
  metadata: { ...strings(external.metadata), 'stripe/account': owner },
  raw: external,
});

/** The available balance per currency (Formance reads `available` too; pending funds cannot be paid out yet). */
export const stripeBalances = (balance: Obj, account: string): ProviderBalance[] =>
  (Array.isArray(balance.available) ? balance.available : []).map((b: Obj) => ({
    accountReference: account,
    asset: stripeAsset(b.currency),
    amount: BigInt(b.amount),
  }));

/** The events the connector registers its endpoints for, and turns into rows (stripe-webhooks.ts). */
export const STRIPE_WEBHOOK_EVENTS = [
  'charge.succeeded',
  'charge.failed',
  'charge.pending',
  'charge.captured',
  'charge.updated',
  'charge.refunded',
  'charge.refund.updated',
  'charge.dispute.created',
  'charge.dispute.updated',
  'charge.dispute.closed',
  'payout.created',
  'payout.updated',
  'payout.paid',
  'payout.failed',
  'payout.canceled',
  'transfer.created',
  'transfer.updated',
  'transfer.reversed',
  'account.updated',
  'account.external_account.created',
  'account.external_account.updated',
  'balance.available',
] as const;

export interface StripeEventRows {
  accounts: ProviderAccount[];
  balances: ProviderBalance[];
  payments: ProviderPayment[];
}

/**
 * What one Stripe event says, as rows: the object it carries mapped as the fetch maps it, its state dated by the
 * event. `event.account` names the connected account an event of Connect is about (absent: the platform's).
 * Other event types carry nothing the platform keeps (empty rows).
 */
export function stripeEventRows(event: { type: string; created: number; account?: string | null; data: { object: Obj } }): StripeEventRows {
  const rows: StripeEventRows = { accounts: [], balances: [], payments: [] };
  const account = event.account || STRIPE_ROOT_ACCOUNT;
  const object = event.data.object;
  const state = (p: ProviderPayment): ProviderPayment => ({ ...p, updatedAt: at(event.created) });
  const [kind] = event.type.split('.');
  if (event.type === 'charge.refund.updated') rows.payments.push(state(stripeRefund(object, account)));
  else if (event.type.startsWith('charge.dispute.')) rows.payments.push(state(stripeDispute(object, account)));
  else if (kind === 'charge') {
    rows.payments.push(state(stripeCharge(object, account)));
    for (const refund of object.refunds?.data ?? []) rows.payments.push(state(stripeRefund(refund, account)));
  } else if (kind === 'payout') rows.payments.push(state(stripePayout(object, account)));
  else if (kind === 'transfer') {
    rows.payments.push(state(stripeTransfer(object, account)));
    for (const reversal of object.reversals?.data ?? [])
      rows.payments.push(state(stripeTransferReversal(reversal, account, idOf(object.destination))));
  } else if (event.type === 'account.updated') rows.accounts.push(event.account ? stripeConnectedAccount(object) : stripePlatformAccount(object));
  else if (event.type.startsWith('account.external_account.')) rows.accounts.push(stripeExternalAccount(object, idOf(object.account) ?? account));
  else if (event.type === 'balance.available') rows.balances.push(...stripeBalances(object, account));
  return rows;
}
