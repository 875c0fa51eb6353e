import { stringifyJson } from '../../lib/json';

/**
 * One example request body per operation that takes one, by operationId, and examples of a few answers; the OpenAPI
 * document serves each as its media type's `example`. They are kept apart from the route definitions so they read as one catalogue, and
 * test/unit/openapi-examples.test.ts holds every one to its operation's schema with the validator the API uses,
 * so an example cannot fall behind a schema change. Values are the ones a client would send: ledger `main`,
 * `users:001`-style addresses, `USD/2` amounts in cents, Numscript that runs, ids in the platform's own formats.
 */

// Payments ids are base64url of a JSON object, as areas/payments/ids.ts makes them.
const paymentsId = (value: Record<string, string>): string => Buffer.from(stringifyJson(value)).toString('base64url');

const CONNECTOR_ID = paymentsId({ Provider: 'simulated', Reference: '6f1b1c4e-5a5e-4a8e-9a57-1d2f0e3c7b21' });
const ACCOUNT_ID = paymentsId({ ConnectorID: CONNECTOR_ID, Reference: 'acc-treasury-eur' });
const EXTERNAL_ACCOUNT_ID = paymentsId({ ConnectorID: CONNECTOR_ID, Reference: 'acc-supplier-acme' });

const PAY_USER_SCRIPT = `vars {
  monetary $amount
  account $user
}
send $amount (
  source = @world
  destination = $user
)`;

const client = {
  name: 'billing-service',
  description: 'Posts invoices to the ledger and reads balances',
  scopes: ['ledger:read', 'ledger:write', 'wallets:read'],
  metadata: { team: 'billing' },
};

const httpExporter = { driver: 'http', config: { url: 'https://exports.example.com/ledger', batching: { maxItems: 100, flushInterval: '1s' } } };

const postings = [{ source: 'world', destination: 'users:001', amount: 10000, asset: 'USD/2' }];

const connectorConfig = { name: 'demo', directory: 'simulated/demo', pollingPeriod: '1m' };

const bankAccount = {
  name: 'ACME Supplies GmbH',
  iban: 'DE89370400440532013000',
  swiftBicCode: 'COBADEFFXXX',
  country: 'DE',
  metadata: { supplier: 'acme' },
};

const webhookConfig = {
  endpoint: 'https://hooks.example.com/formance',
  eventTypes: ['ledger.committed_transactions', 'payments.saved_payment'],
  name: 'accounting-sync',
};

const workflow = {
  name: 'welcome-bonus',
  stages: [
    {
      send: {
        source: { account: { id: 'world', ledger: 'main' } },
        destination: { account: { id: 'users:${userID}', ledger: 'main' } },
        amount: { asset: 'USD/2', amount: 500 },
      },
    },
  ],
};

const trigger = {
  name: 'bonus-on-large-payin',
  event: 'SAVED_PAYMENT',
  workflowID: '8d1e5f0a-2c4b-4e6f-9a1d-7b3c5e9f0a2d',
  filter: 'event.type == "PAY-IN" && event.status == "SUCCEEDED" && event.amount > 100000',
  vars: { userID: 'event.metadata["userID"]' },
};

const reversal = { reference: 'refund-inv-1042', amount: 2500, asset: 'EUR/2', description: 'Partial refund of invoice 1042' };

export const REQUEST_EXAMPLES: Record<string, unknown> = {
  // Auth
  createClient: client,
  updateClient: { ...client, scopes: [...client.scopes, 'payments:read'] },
  createClientSecret: { name: 'production', metadata: { rotatedBy: 'ops' } },

  // Ledger v2
  createExporter: httpExporter,
  updateExporter: { ...httpExporter, config: { ...httpExporter.config, batching: { maxItems: 500, flushInterval: '5s' } } },
  createLedger: { bucket: 'accounting', metadata: { region: 'eu-west', owner: 'finance' }, features: { HASH_LOGS: 'ASYNC' } },
  updateLedgerMetadata: { region: 'eu-west', owner: 'finance' },
  createTransaction: {
    script: { plain: PAY_USER_SCRIPT, vars: { amount: 'USD/2 10000', user: 'users:001' } },
    reference: 'deposit-2024-0001',
    metadata: { channel: 'card' },
  },
  revertTransaction: { metadata: { reason: 'duplicate deposit' } },
  addTransactionMetadata: { invoice: 'INV-1042', reconciled: 'true' },
  addAccountMetadata: { kyc: 'verified', country: 'FR' },
  createPipeline: { exporterID: '0b7c3a52-9e1f-4d6a-8c2b-5f4e3d2a1b09' },
  runQuery: { vars: { user: 'users:001' } },
  insertSchema: {
    chart: {
      world: {},
      users: { $userID: { '.pattern': '^[0-9]{3,}$', '.metadata': { kyc: { default: 'pending' } } } },
      bank: {},
    },
    transactions: {
      DEPOSIT: { description: 'Funds a user from outside the ledger', script: PAY_USER_SCRIPT },
    },
  },
  createBulk: [
    { action: 'CREATE_TRANSACTION', ik: 'deposit-2024-0002', data: { postings, reference: 'deposit-2024-0002' } },
    { action: 'ADD_METADATA', data: { targetType: 'ACCOUNT', targetId: 'users:001', metadata: { tier: 'gold' } } },
    { action: 'REVERT_TRANSACTION', data: { id: 1, metadata: { reason: 'chargeback' } } },
    { action: 'DELETE_METADATA', data: { targetType: 'ACCOUNT', targetId: 'users:001', key: 'tier' } },
  ],

  // Ledger v1
  createTransactionV1: { postings, reference: 'deposit-2024-0003', metadata: { channel: 'wire' } },
  createTransactionsV1: {
    transactions: [
      { postings, reference: 'deposit-2024-0004' },
      { postings: [{ source: 'users:001', destination: 'merchants:042', amount: 2500, asset: 'USD/2' }], reference: 'purchase-2024-0001' },
    ],
  },
  addTransactionMetadataV1: { invoice: 'INV-1043' },
  addAccountMetadataV1: { kyc: 'verified' },
  updateMappingV1: { contracts: [{ id: 'users-not-negative', account: 'users:*', expr: { $gte: ['$balance', 0] } }] },
  runScriptV1: { plain: PAY_USER_SCRIPT, vars: { amount: { asset: 'USD/2', amount: 10000 }, user: 'users:001' }, reference: 'deposit-2024-0005' },

  // Wallets
  createWallet: { name: 'alice', metadata: { userID: 'users:001' } },
  updateWallet: { metadata: { tier: 'gold' } },
  createBalance: { name: 'promotions', expiresAt: '2030-01-01T00:00:00Z', priority: 10 },
  creditWallet: {
    amount: { asset: 'USD/2', amount: 10000 },
    sources: [{ type: 'ACCOUNT', identifier: 'world' }],
    reference: 'topup-2024-0001',
    metadata: { channel: 'card' },
  },
  debitWallet: {
    amount: { asset: 'USD/2', amount: 2500 },
    pending: true,
    destination: { type: 'ACCOUNT', identifier: 'merchants:042' },
    balances: ['*'],
    description: 'Order 1042',
    metadata: { order: '1042' },
  },
  confirmHold: { amount: 2000, final: true },

  // Payments v3
  updateConnectorConfig: { ...connectorConfig, pollingPeriod: '2m' },
  updatePaymentMetadata: { invoice: 'INV-1042' },
  createPayment: {
    connectorID: CONNECTOR_ID,
    reference: 'pay-in-2024-0001',
    type: 'PAY-IN',
    scheme: 'sepa credit',
    asset: 'EUR/2',
    amount: 15000,
    initialAmount: 15000,
    createdAt: '2024-05-02T09:30:00Z',
    destinationAccountID: ACCOUNT_ID,
    metadata: { invoice: 'INV-1042' },
    adjustments: [{ reference: 'pay-in-2024-0001-settled', createdAt: '2024-05-02T09:31:00Z', status: 'SUCCEEDED', amount: 15000, asset: 'EUR/2' }],
  },
  updatePaymentMetadataV3: { metadata: { invoice: 'INV-1042' } },
  createAccount: {
    connectorID: CONNECTOR_ID,
    reference: 'acc-treasury-eur',
    accountName: 'Treasury EUR',
    type: 'INTERNAL',
    createdAt: '2024-05-01T08:00:00Z',
    defaultAsset: 'EUR/2',
    metadata: { purpose: 'treasury' },
  },
  createBankAccount: bankAccount,
  updateBankAccountMetadata: { metadata: { supplier: 'acme', verified: 'true' } },
  forwardBankAccount: { connectorID: CONNECTOR_ID },
  forwardPaymentServiceUserBankAccount: { connectorID: CONNECTOR_ID },
  createPaymentServiceUser: {
    name: 'Alice Martin',
    contactDetails: { email: 'alice@example.com', phoneNumber: '+33 1 23 45 67 89', locale: 'fr-FR' },
    address: { streetNumber: '12', streetName: 'Rue de Rivoli', city: 'Paris', postalCode: '75001', country: 'FR' },
    metadata: { userID: 'users:001' },
  },
  createPool: { name: 'treasury', accountIDs: [ACCOUNT_ID] },
  updatePoolQuery: { query: { $match: { defaultAsset: 'EUR/2' } } },
  reversePaymentInitiation: reversal,
  createPaymentInitiation: {
    reference: 'payout-2024-0001',
    connectorID: CONNECTOR_ID,
    type: 'PAYOUT',
    amount: 10000,
    asset: 'EUR/2',
    sourceAccountID: ACCOUNT_ID,
    destinationAccountID: EXTERNAL_ACCOUNT_ID,
    description: 'Supplier invoice 1042',
    metadata: { invoice: 'INV-1042' },
  },
  createLinkForPaymentServiceUser: { applicationName: 'Acme Wallet', clientRedirectURL: 'https://app.example.com/banks/connected' },
  updateLinkForPaymentServiceUserOnConnector: { applicationName: 'Acme Wallet', clientRedirectURL: 'https://app.example.com/banks/renewed' },

  // Payments v1
  installConnectorV1: { name: 'demo', directory: 'simulated/demo', filePollingPeriod: '1m' },
  updateConnectorConfigV1: { name: 'demo', directory: 'simulated/demo', filePollingPeriod: '2m' },
  createPaymentV1: {
    connectorID: CONNECTOR_ID,
    reference: 'pay-in-2024-0002',
    createdAt: '2024-05-02T10:00:00Z',
    type: 'PAY-IN',
    status: 'SUCCEEDED',
    scheme: 'visa',
    asset: 'EUR/2',
    amount: 4200,
    destinationAccountID: ACCOUNT_ID,
  },
  createAccountV1: {
    connectorID: CONNECTOR_ID,
    reference: 'acc-treasury-usd',
    createdAt: '2024-05-01T08:00:00Z',
    type: 'INTERNAL',
    accountName: 'Treasury USD',
    defaultAsset: 'USD/2',
  },
  createBankAccountV1: { ...bankAccount, connectorID: CONNECTOR_ID },
  forwardBankAccountV1: { connectorID: CONNECTOR_ID },
  updateBankAccountMetadataV1: { metadata: { verified: 'true' } },
  createPoolV1: { name: 'treasury', accountIDs: [ACCOUNT_ID] },
  addPoolAccountV1: { accountID: ACCOUNT_ID },
  updatePoolQueryV1: { query: { $match: { defaultAsset: 'EUR/2' } } },
  createTransferInitiationV1: {
    reference: 'transfer-2024-0001',
    connectorID: CONNECTOR_ID,
    type: 'TRANSFER',
    amount: 10000,
    asset: 'EUR/2',
    sourceAccountID: ACCOUNT_ID,
    destinationAccountID: EXTERNAL_ACCOUNT_ID,
    description: 'Supplier invoice 1043',
    scheduledAt: '2024-05-03T00:00:00Z',
    validated: false,
    metadata: { invoice: 'INV-1043' },
  },
  updateTransferInitiationStatusV1: { status: 'VALIDATED' },
  reverseTransferInitiationV1: { ...reversal, metadata: { ticket: 'SUP-88' } },
  connectorTransferV1: { amount: 10000, asset: 'EUR/2', source: 'acc-treasury-eur', destination: 'acc-supplier-acme' },

  // Webhooks
  createWebhookConfig: { ...webhookConfig, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
  updateWebhookConfig: { ...webhookConfig, eventTypes: ['ledger.committed_transactions'] },
  changeWebhookSecret: { secret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD' },
  replayWebhookDeliveries: { createdAtFrom: '2024-05-01T00:00:00Z', createdAtTo: '2024-05-02T00:00:00Z', statuses: ['failed'], pageSize: 100 },
  recoverWebhookConfig: { since: '2024-05-01T00:00:00Z', until: '2024-05-02T00:00:00Z' },

  // Orchestration
  createWorkflow: workflow,
  createWorkflowV1: workflow,
  runWorkflow: { userID: '001' },
  runWorkflowV1: { userID: '001' },
  sendInstanceEvent: { name: 'kyc-approved' },
  sendInstanceEventV1: { name: 'kyc-approved' },
  createTrigger: trigger,
  createTriggerV1: trigger,
  testTrigger: { type: 'PAY-IN', status: 'SUCCEEDED', amount: 250000, asset: 'EUR/2', metadata: { userID: '001' } },
  testTriggerV1: { type: 'PAY-IN', status: 'SUCCEEDED', amount: 250000, asset: 'EUR/2', metadata: { userID: '001' } },

  // Reconciliation: policies and reconciliations
  createPolicy: {
    name: 'stripe-eur',
    ledgerName: 'main',
    ledgerQuery: { $match: { address: 'bank:stripe' } },
    paymentsPoolID: '0b9f8d36-3c6d-4a0e-9b1f-7a2f4c1d5e60',
  },
  reconcile: { reconciledAtLedger: '2024-03-31T23:59:59Z', reconciledAtPayments: '2024-03-31T23:59:59Z' },
  // Reconciliation rules and alerts
  reconciliationV1CreateRule: {
    name: 'stripe-eur-backs-ledger',
    templateKind: 'ledger_vs_pool_drift',
    templateSpec: { ledger: 'main', address: 'banks:stripe:eur', poolID: '7c1d2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d', tolerance: 0 },
    cadence: 'daily',
    schedule: { kind: 'cron', expr: '0 * * * *', tz: 'Europe/Paris', safetyMargin: '30s' },
    severity: 'high',
    labels: { team: 'treasury' },
  },
  reconciliationV1PatchRule: { enabled: false },
  reconciliationV1EvaluateRule: { at: '2025-01-31T23:00:00Z', safetyMargin: '0s' },
  reconciliationV1AckAlert: { by: 'alice@example.com', note: 'looking into it' },
  reconciliationV1AcceptAlert: { by: 'alice@example.com', note: 'bank fee, booked next month' },
  reconciliationV1ResolveAlert: { by: 'alice@example.com', note: 'missing deposit booked', transactionRefs: ['1042'] },
  reconciliationV1SnoozeAlert: { by: 'alice@example.com', until: '2030-01-01T00:00:00Z', note: 'waiting for the bank statement' },
  reconciliationV1UnsnoozeAlert: { by: 'alice@example.com' },
};

const TX_TIME = '2024-05-02T09:30:00Z';

/**
 * Examples of the answers a newcomer reads first, by operationId then status: the transaction of createTransaction's
 * example, the account it funded, and a wallet. The same unit test holds them to their response schemas.
 */
export const RESPONSE_EXAMPLES: Record<string, Record<number, unknown>> = {
  createTransaction: {
    200: {
      data: {
        id: 42,
        timestamp: TX_TIME,
        postings: [{ source: 'world', destination: 'users:001', amount: 10000, asset: 'USD/2' }],
        reference: 'deposit-2024-0001',
        metadata: { channel: 'card' },
        insertedAt: TX_TIME,
        reverted: false,
        preCommitVolumes: {
          world: { 'USD/2': { input: 0, output: 250000, balance: -250000 } },
          'users:001': { 'USD/2': { input: 0, output: 0, balance: 0 } },
        },
        postCommitVolumes: {
          world: { 'USD/2': { input: 0, output: 260000, balance: -260000 } },
          'users:001': { 'USD/2': { input: 10000, output: 0, balance: 10000 } },
        },
      },
    },
  },
  getAccount: {
    200: {
      data: {
        address: 'users:001',
        metadata: { kyc: 'verified', country: 'FR' },
        volumes: { 'USD/2': { input: 10000, output: 2500, balance: 7500 } },
        effectiveVolumes: { 'USD/2': { input: 10000, output: 2500, balance: 7500 } },
      },
    },
  },
  createWallet: {
    201: {
      data: {
        id: '3f2c6a4e-8b1d-4c7a-9e55-2d0b7f1a6c93',
        name: 'alice',
        metadata: { userID: 'users:001' },
        createdAt: TX_TIME,
        ledger: 'wallets',
        balances: { main: { assets: {} } },
      },
    },
  },
  getWallet: {
    200: {
      data: {
        id: '3f2c6a4e-8b1d-4c7a-9e55-2d0b7f1a6c93',
        name: 'alice',
        metadata: { userID: 'users:001' },
        createdAt: TX_TIME,
        ledger: 'wallets',
        balances: { main: { assets: { 'USD/2': 7500 } } },
      },
    },
  },
};
