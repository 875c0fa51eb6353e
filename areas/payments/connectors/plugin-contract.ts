import type { ProviderAccount, ProviderBalance } from '../accounts/accounts';
import type { ProviderPayment } from '../payments/payments';
import type { ProviderConversion } from '../trading/conversions';
import type { ProviderOrder } from '../trading/orders';

/** Formance's capability names (payments v3 `V3Capability`). */
export const CAPABILITIES = [
  'FETCH_ACCOUNTS',
  'FETCH_BALANCES',
  'FETCH_EXTERNAL_ACCOUNTS',
  'FETCH_PAYMENTS',
  'FETCH_OTHERS',
  'FETCH_ORDERS',
  'FETCH_CONVERSIONS',
  'CREATE_WEBHOOKS',
  'TRANSLATE_WEBHOOKS',
  'CREATE_BANK_ACCOUNT',
  'CREATE_TRANSFER',
  'CREATE_PAYOUT',
  'ALLOW_FORMANCE_ACCOUNT_CREATION',
  'ALLOW_FORMANCE_PAYMENT_CREATION',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

/**
 * Operations a plugin may lack that Formance's V3Capability has no name for (its plugins answer "not implemented" to
 * ReverseTransfer / ReversePayout): checked like capabilities, named in the refusal, never listed on the wire (the
 * SDK's capability enum is closed).
 */
export type OperationCapability = 'REVERSE_TRANSFER' | 'REVERSE_PAYOUT';

/**
 * Formance's open-banking plugin capabilities (payments' later `models.Capability` values). They are not in the lists
 * `getConnectorCapabilities` answers: the SDK's `V3Capability` is a closed enum that would refuse them.
 */
export const OPEN_BANKING_CAPABILITIES = [
  'CREATE_USER',
  'CREATE_USER_LINK',
  'COMPLETE_USER_LINK',
  'UPDATE_USER_LINK',
  'COMPLETE_UPDATE_USER_LINK',
  'DELETE_USER',
  'DELETE_USER_CONNECTION',
] as const;
export type OpenBankingCapability = (typeof OPEN_BANKING_CAPABILITIES)[number];

/** A duration member of a config (`pollingPeriod`, the generic plugin's `timeout`): `500ms`, `30s`, `2m`, `1h`. */
export const DURATION_PATTERN = '^[0-9]+(ms|s|m|h)$';

/**
 * The connector plugin contract: everything provider-specific about a connector, in one module the platform loads
 * (the built-in ones from activities/payments/plugins/index.ts, a team's own from PAYMENTS_CONNECTOR_PLUGINS). The
 * payments area reads a connector's name, capabilities, config schema, secrets and webhook verification from here; the
 * worker builds the provider calls with `create`. docs/connectors-guide.md walks through writing one.
 */
export interface ConnectorPluginModule {
  /** Formance's provider name: the install path (`/connectors/install/<name>`) and the stored provider. */
  name: string;
  /** Formance's capability names (V3Capability) this plugin implements; they decide its schedules and allowed operations. */
  capabilities: Capability[];
  /** Reversals the plugin implements (`reversePayment`); Formance's capability list has no name for them. */
  operations?: OperationCapability[];
  /** Open-banking operations (`openBanking` on the plugin). */
  openBankingCapabilities?: readonly OpenBankingCapability[];
  config: PluginConfigSpec;
  /** Payments v1 names (upper case) the connector answers to; the first is the one v1 lists. Default: the name upper-cased. */
  v1Names?: string[];
  /**
   * Payments v1: members of Formance's v1 config type named otherwise (v1 name → member; DummyPay's
   * `filePollingPeriod` is the `pollingPeriod`), read on install and update and written on config reads; and members a
   * v1 update keeps as stored (its config type lacks them).
   */
  v1?: { aliases?: Record<string, string>; keepOnUpdate?: string[] };
  /** Builds the provider calls of an installed connector (in the worker, per activity), from its stored config. */
  create(config: Record<string, unknown>, context: PluginContext): ConnectorPlugin;
  /**
   * TRANSLATE_WEBHOOKS for signed deliveries (`POST /api/payments/v3/connectors/webhooks/{connectorID}`): verifies a
   * delivery and turns it into rows, in the API process, before anything is stored. Refusals: `UNAUTHORIZED` (401,
   * nothing stored) for a missing or wrong signature, `VALIDATION` (400) for a body it cannot read.
   */
  verifyWebhook?(request: WebhookRequest): WebhookVerdict | Promise<WebhookVerdict>;
  /**
   * Unsigned GET callbacks (Mangopay's): the route hands the query to a Temporal workflow whose plugin reads the
   * resource back from the provider (`translateWebhook` on the plugin).
   */
  receivesCallbacks?: boolean;
}

/**
 * A plugin's config. `schema` is a JSON schema (ajv, draft 2020-12 subset) of an object with the plugin's own members;
 * the platform adds `name` (required), `pollingPeriod` (a duration, default 2m) and Formance's ignored `provider` and
 * `pageSize`, refuses unknown members, and builds the install route's body schema and the OpenAPI document from it.
 */
export interface PluginConfigSpec {
  schema: { properties: Record<string, Record<string, unknown>>; required?: string[] };
  /** Members never read back: a config read shows `********` when set; an update sending `********` keeps the stored value. */
  secrets?: string[];
  /** What a config read shows for absent members (Formance's SDK types require some, e.g. Generic's apiKey reads ""). */
  readDefaults?: Record<string, unknown>;
  /** Members an update without them keeps as stored (Formance's SDK config types lack them, so its updates never send them). */
  keepOnUpdate?: string[];
  /** Formance's SDK config type (`provider` on reads, e.g. "Stripe"). Default: the name capitalised. */
  sdkType?: string;
  /** An install body a client can send as is, shown in the OpenAPI document (the install route's request example). */
  example?: Record<string, unknown>;
  /**
   * Checks what the schema cannot and returns the config to store (defaults of the schema are filled in afterwards).
   * A refusal is thrown as `configError(field, message)` (400 `body.<field>: <message>`).
   */
  normalize?(config: Record<string, unknown>, context: { dataDir: string }): Record<string, unknown>;
}

export interface PluginContext {
  /** The platform's DATA_DIR (the simulated plugin's files are confined there). */
  dataDir: string;
  /** For what must not reach a failure message (a provider's error body). */
  logger?: { warn(object: unknown, message?: string): void };
}

/** An error of a plugin's config, answered 400 `body.<field>: <message>`. */
export class PluginConfigError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}
export const configError = (field: string, message: string): PluginConfigError => new PluginConfigError(field, message);

/** A signed delivery as the webhook route received it. `secrets` are those the provider gave at CREATE_WEBHOOKS. */
export interface WebhookRequest {
  config: Record<string, unknown>;
  secrets: string[];
  rawBody: string | undefined;
  header(name: string): string | undefined;
}

/** One verified event: `id` makes it idempotent (a redelivery changes nothing); the rows are written as a fetch writes them. */
export interface WebhookEvent {
  id: string;
  type: string;
  accounts?: ProviderAccount[];
  balances?: ProviderBalance[];
  payments?: ProviderPayment[];
}
export type WebhookVerdict = { events: WebhookEvent[] } | { refused: 'UNAUTHORIZED' | 'VALIDATION'; message: string };

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
export interface ReversalRequest extends Omit<InitiationRequest, 'idempotencyKey'> {
  idempotencyKey: string;
  paymentReference: string;
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

/** What the install task stores under the connector's `webhooks` state: the URL registered and the endpoints. */
export interface ConnectorWebhooksState {
  url: string;
  endpoints: WebhookEndpoint[];
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
 * The provider calls of one installed connector. Fetches return the provider's full current view (the platform upserts
 * it idempotently); writes must be idempotent by their key/reference, because Temporal retries them.
 * Errors: a definitive refusal (not retried) is a Temporal non-retryable `ApplicationFailure` (the built-in plugins'
 * `providerRejected()` and `invalidData()`, activities/payments/plugins/plugin.ts) or any error with `nonRetryable:
 * true`; anything else (network, 5xx, timeout) is retried by Temporal.
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
  /** Only plugins with REVERSE_TRANSFER / REVERSE_PAYOUT in `operations`: the reversal's payment. */
  reversePayment?(request: ReversalRequest): Promise<ProviderPayment>;
  /** Only plugins with FETCH_CONVERSIONS / FETCH_ORDERS. */
  fetchConversions?(): Promise<ProviderConversion[]>;
  fetchOrders?(): Promise<ProviderOrder[]>;
  /** Only plugins with open-banking capabilities. */
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
