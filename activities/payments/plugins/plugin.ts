import { ApplicationFailure } from '@temporalio/common';
import type { ProviderAccount, ProviderBalance } from '../../../areas/payments';
import type { ProviderPayment } from '../../../areas/payments';
import type { ProviderConversion, ProviderOrder } from '../../../areas/payments';

/** A transfer or payout to execute at the provider. `idempotencyKey` is the same for every retry of one attempt. */
export interface InitiationRequest {
  idempotencyKey: string;
  type: 'TRANSFER' | 'PAYOUT';
  reference: string;
  amount: bigint;
  asset: string;
  sourceAccountReference?: string;
  destinationAccountReference: string;
  description: string;
  metadata: Record<string, string>;
}

/**
 * A reversal of a transfer or payout the provider executed (`paymentReference` is its payment). `idempotencyKey` is the
 * reversal's id, the same for every retry.
 */
export interface ReversalRequest {
  idempotencyKey: string;
  type: 'TRANSFER' | 'PAYOUT';
  reference: string;
  paymentReference: string;
  amount: bigint;
  asset: string;
  sourceAccountReference?: string;
  destinationAccountReference: string;
  description: string;
  metadata: Record<string, string>;
}

export interface BankAccountRequest {
  reference: string;
  name: string;
  iban?: string;
  accountNumber?: string;
  swiftBicCode?: string;
  country?: string;
  metadata: Record<string, string>;
}

/** What an incremental fetch returns: the items since the state it was given, and the state to resume from. */
export interface FetchPage<T> {
  items: T[];
  state: unknown;
}

/** An endpoint a plugin registered with its provider (CREATE_WEBHOOKS), with the secret that signs its deliveries. */
export interface WebhookEndpoint {
  id: string;
  connect: boolean;
  secret?: string;
}

/**
 * What TRANSLATE_WEBHOOKS makes of one provider callback that carries no signature (the plugin verifies it by reading
 * the resource back from the provider): `eventID` identifies the event (a second delivery with the same id changes
 * nothing), the rows are written as a fetch writes them.
 */
export interface WebhookRows {
  eventID: string;
  eventType: string;
  accounts: ProviderAccount[];
  balances: ProviderBalance[];
  payments: ProviderPayment[];
}

/**
 * What every connector plugin implements. Fetches return the provider's full current view (the platform upserts it
 * idempotently); writes must be idempotent by their key/reference, because Temporal retries them.
 * Errors: `providerRejected()` for a definitive refusal (not retried), `invalidData()` for provider data the platform
 * cannot read (not retried); anything else (network, 5xx, timeout) is retried by Temporal.
 */
export interface ConnectorPlugin {
  fetchAccounts(): Promise<ProviderAccount[]>;
  fetchBalances(): Promise<ProviderBalance[]>;
  fetchPayments(): Promise<ProviderPayment[]>;
  /**
   * Incremental plugins: the payments since `state` (undefined on the first run and after a reset) and the state to
   * resume from. The platform stores that state with the payments in one transaction, so the next run, on any
   * worker, starts exactly after them; the plugin must only make the state advance past items it returned.
   */
  fetchPaymentsSince?(state: unknown): Promise<FetchPage<ProviderPayment>>;
  /**
   * CREATE_WEBHOOKS: registers the platform's `url` with the provider, idempotently by `idempotencyKey` (the install
   * task retries it). The returned endpoints and secrets are stored for the webhook route.
   */
  createWebhooks?(request: { url: string; idempotencyKey: string }): Promise<WebhookEndpoint[]>;
  /**
   * TRANSLATE_WEBHOOKS for providers whose callbacks are unsigned (the route hands over the callback's query string
   * only): runs in a Temporal activity, so it may call the provider; it must trust nothing but the ids it reads back.
   */
  translateWebhook?(request: { query: Record<string, string> }): Promise<WebhookRows>;
  /**
   * At uninstall: removes the endpoints `createWebhooks` registered (as stored). Idempotent: an endpoint already gone
   * at the provider counts as removed (the uninstall task retries it, and may run again).
   */
  deleteWebhooks?(endpoints: WebhookEndpoint[]): Promise<void>;
  initiatePayment(request: InitiationRequest): Promise<ProviderPayment>;
  createBankAccount(request: BankAccountRequest): Promise<ProviderAccount>;
  /** Only plugins whose connector has REVERSE_TRANSFER / REVERSE_PAYOUT (connector-catalog.ts): the reversal's payment. */
  reversePayment?(request: ReversalRequest): Promise<ProviderPayment>;
  /** Only plugins with FETCH_CONVERSIONS / FETCH_ORDERS. */
  fetchConversions?(): Promise<ProviderConversion[]>;
  fetchOrders?(): Promise<ProviderOrder[]>;
  /** Only for plugins with Formance's open-banking capabilities (areas/payments/connectors/connector-catalog.ts). */
  openBanking?: OpenBankingPlugin;
}

/** A payment service user as the provider learns it when the user is forwarded. */
export interface OpenBankingUser {
  id: string;
  name: string;
  email?: string;
}

/** What an end user's consent gives access to: the accounts of one bank connection, their balances and payments. */
export interface OpenBankingConnectionData {
  accounts: ProviderAccount[];
  balances: ProviderBalance[];
  payments: ProviderPayment[];
}

/**
 * Open banking (end users' bank connections). Every method is idempotent by its ids: Temporal retries them.
 * `completeUserLink` reads the connection's data once the user consented; account references are the provider's own
 * and must be unique per connection.
 */
export interface OpenBankingPlugin {
  createUser(user: OpenBankingUser): Promise<void>;
  completeUserLink(request: { psuID: string; connectionID: string; attemptID: string }): Promise<OpenBankingConnectionData>;
  deleteUserConnection(request: { psuID: string; connectionID: string }): Promise<void>;
  deleteUser(psuID: string): Promise<void>;
}

export const providerRejected = (message: string) => ApplicationFailure.create({ type: 'PROVIDER_REJECTED', message, nonRetryable: true });
export const invalidData = (message: string) => ApplicationFailure.create({ type: 'INVALID_ARGUMENT', message, nonRetryable: true });
