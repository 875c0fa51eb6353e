import Stripe from 'stripe';
import { ApplicationFailure } from '@temporalio/common';
import type { ProviderAccount, ProviderBalance, ProviderPayment } from '../../../areas/payments';
import type { StripeConfig } from './stripe-connector';
import {
  STRIPE_ROOT_ACCOUNT,
  STRIPE_WEBHOOK_EVENTS,
  stripeAmount,
  stripeBalances,
  stripeBalanceTransaction,
  stripeConnectedAccount,
  stripeExternalAccount,
  stripePayout,
  stripePlatformAccount,
  stripeTransfer,
  stripeTransferReversal,
} from './stripe-mapping';
import { guardedAgent, isBlockedAddress } from './guarded-request';
import { providerRejected, type ConnectorPlugin, type FetchPage, type WebhookEndpoint } from './plugin';

/** The cursor of the payments fetch: per account (`root` or `acct_…`), the newest balance transaction written. */
export interface StripePaymentsCursor {
  newest: Record<string, string>;
}

const PAGE = 100; // Stripe's largest page.

/** Every item of a list, page after page (the library's auto-pagination; its toArray stops at 10,000 items). */
async function collect<T>(list: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of list) items.push(item);
  return items;
}
const TIMEOUT_MS = 30_000;

/**
 * Stripe's errors as Temporal sees them. 429 (rate limited), 5xx, network failures and the 409s Stripe documents as
 * transient (a lock timeout, the same idempotency key still in flight) are retryable: Temporal's policy retries them
 * with the same idempotency key, so a write is applied once. Any other 4xx (bad request, declined, auth, permission,
 * an idempotency key reused with other parameters) is a definitive refusal, non-retryable. Stripe's message names
 * the refusal (it never echoes the key), so it is kept for the task or initiation error.
 */
export function stripeFailure(error: unknown, operation: string): Error {
  if (isBlockedAddress(error)) return providerRejected((error as Error).message);
  if (!(error instanceof Stripe.errors.StripeError)) return error as Error;
  const status = error.statusCode;
  const message = `Stripe answered ${status ?? 'no status'} (${error.type}${error.code ? `, ${error.code}` : ''}) to ${operation}: ${error.message}`;
  const transient409 = status === 409 && (error.code === 'lock_timeout' || error.code === 'idempotency_key_in_use');
  if (status === 429 || error.type === 'StripeRateLimitError') return ApplicationFailure.retryable(message, 'PROVIDER_RATE_LIMITED');
  if (status === undefined || status >= 500 || transient409 || error.type === 'StripeConnectionError') {
    return ApplicationFailure.retryable(message, 'PROVIDER_UNAVAILABLE');
  }
  return providerRejected(message);
}

/**
 * The Stripe connector's plugin, with Stripe's official library pointed at the config's `endpoint` (Stripe's API by
 * default; stripe-mock in tests). The library's own retries are off: Temporal's retry policies are the only ones, so
 * every retry is visible in the workflow's history. Every write carries an idempotency key (the platform's attempt,
 * reversal or connector id). Connections go through the same SSRF guard as the generic connector's.
 */
export function stripePlugin(config: StripeConfig): ConnectorPlugin {
  let client: Stripe;
  try {
    const url = new URL(config.endpoint);
    client = new Stripe(config.apiKey, {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || (url.protocol === 'https:' ? 443 : 80),
      protocol: url.protocol === 'https:' ? 'https' : 'http',
      httpAgent: guardedAgent(config.endpoint),
      maxNetworkRetries: 0,
      timeout: TIMEOUT_MS,
      telemetry: false,
    });
  } catch (error) {
    throw stripeFailure(error, 'connect');
  }
  const call = async <T>(operation: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw stripeFailure(error, operation);
    }
  };
  const onBehalfOf = (account?: string) => (account && account !== STRIPE_ROOT_ACCOUNT ? { stripeAccount: account } : {});

  const connectedAccounts = (): Promise<Stripe.Account[]> => call('GET /v1/accounts', () => collect(client.accounts.list({ limit: PAGE })));

  /**
   * One account's new balance transactions, oldest first: with a cursor, those after it (`ending_before`, which the
   * library pages towards the newest); without one, all of them. The newest becomes the account's cursor.
   */
  async function balanceTransactions(account: string, after: string | undefined): Promise<{ items: any[]; newest?: string }> {
    const params: Stripe.BalanceTransactionListParams = { limit: PAGE, expand: ['data.source'], ...(after ? { ending_before: after } : {}) };
    const listed = await call('GET /v1/balance_transactions', () => collect(client.balanceTransactions.list(params, onBehalfOf(account))));
    const oldestFirst = after ? listed : [...listed].reverse();
    return { items: oldestFirst, newest: oldestFirst.length ? oldestFirst[oldestFirst.length - 1].id : after };
  }

  return {
    async fetchAccounts(): Promise<ProviderAccount[]> {
      const platform = await call('GET /v1/account', () => client.accounts.retrieveCurrent());
      const connected = await connectedAccounts();
      const accounts: ProviderAccount[] = [stripePlatformAccount(platform)];
      for (const account of connected) {
        accounts.push(stripeConnectedAccount(account));
        // FETCH_EXTERNAL_ACCOUNTS: the bank accounts and cards a connected account is paid out to.
        const externals = await call('GET /v1/accounts/{account}/external_accounts', () =>
          collect(client.accounts.listExternalAccounts(account.id, { limit: PAGE })),
        );
        accounts.push(...externals.map((external) => stripeExternalAccount(external, account.id)));
      }
      return accounts;
    },

    async fetchBalances(): Promise<ProviderBalance[]> {
      const balances = stripeBalances(await call('GET /v1/balance', () => client.balance.retrieve()), STRIPE_ROOT_ACCOUNT);
      for (const account of await connectedAccounts()) {
        balances.push(...stripeBalances(await call('GET /v1/balance', () => client.balance.retrieve({}, onBehalfOf(account.id))), account.id));
      }
      return balances;
    },

    /** Every account's payments, from scratch (the cursor-less fetch; the activities use fetchPaymentsSince). */
    async fetchPayments(): Promise<ProviderPayment[]> {
      return (await this.fetchPaymentsSince!(undefined)).items;
    },

    async fetchPaymentsSince(state): Promise<FetchPage<ProviderPayment>> {
      const cursor = (state as StripePaymentsCursor | undefined) ?? { newest: {} };
      const accounts = [STRIPE_ROOT_ACCOUNT, ...(await connectedAccounts()).map((a) => a.id)];
      const items: ProviderPayment[] = [];
      const newest: Record<string, string> = { ...cursor.newest };
      for (const account of accounts) {
        const page = await balanceTransactions(account, cursor.newest[account]);
        for (const bt of page.items) {
          const payment = stripeBalanceTransaction(bt, account);
          if (payment) items.push(payment);
        }
        if (page.newest) newest[account] = page.newest;
      }
      return { items, state: { newest } satisfies StripePaymentsCursor };
    },

    async initiatePayment(request): Promise<ProviderPayment> {
      const money = stripeAmount(request.asset, request.amount);
      if (!money)
        throw providerRejected(
          `Stripe cannot send ${request.amount} ${request.asset}: the asset must be a currency in Stripe's minor unit (e.g. USD/2, JPY/0, KWD/3)`,
        );
      const source = request.sourceAccountReference ?? STRIPE_ROOT_ACCOUNT;
      const params = {
        ...money,
        destination: request.destinationAccountReference,
        metadata: request.metadata,
        ...(request.description ? { description: request.description } : {}),
      };
      const options = { idempotencyKey: request.idempotencyKey, ...onBehalfOf(source) };
      if (request.type === 'TRANSFER') {
        // A transfer moves funds from the platform's (or a connected account's) balance to a connected account.
        const transfer = await call('POST /v1/transfers', () => client.transfers.create(params, options));
        return stripeTransfer(transfer, source);
      }
      // A payout sends an account's balance to one of its external accounts (the destination, `ba_…` or `card_…`).
      const payout = await call('POST /v1/payouts', () => client.payouts.create(params, options));
      return stripePayout(payout, source);
    },

    async reversePayment(request): Promise<ProviderPayment> {
      if (request.type !== 'TRANSFER') throw providerRejected('Stripe reverses transfers only');
      const money = stripeAmount(request.asset, request.amount);
      if (!money)
        throw providerRejected(`Stripe cannot reverse ${request.amount} ${request.asset}: the asset must be a currency in Stripe's minor unit`);
      const source = request.sourceAccountReference ?? STRIPE_ROOT_ACCOUNT;
      const reversal = await call('POST /v1/transfers/{transfer}/reversals', () =>
        client.transfers.createReversal(
          request.paymentReference,
          {
            amount: money.amount,
            metadata: request.metadata,
            ...(request.description ? { description: request.description } : {}),
          },
          { idempotencyKey: request.idempotencyKey, ...onBehalfOf(source) },
        ),
      );
      return stripeTransferReversal(reversal, source, request.destinationAccountReference);
    },

    async createBankAccount() {
      throw providerRejected('the Stripe connector does not create bank accounts (no CREATE_BANK_ACCOUNT)');
    },

    /**
     * CREATE_WEBHOOKS: two endpoints at `url`, one for the platform's own events and one (`connect`) for its connected
     * accounts', each with its signing secret (Stripe shows a secret at creation only).
     */
    async createWebhooks({ url, idempotencyKey }): Promise<WebhookEndpoint[]> {
      const endpoints: WebhookEndpoint[] = [];
      for (const connect of [false, true]) {
        const endpoint = await call('POST /v1/webhook_endpoints', () =>
          client.webhookEndpoints.create(
            {
              url,
              enabled_events: [...STRIPE_WEBHOOK_EVENTS],
              description: `financial platform connector ${config.name}`,
              ...(connect ? { connect } : {}),
            },
            { idempotencyKey: `${idempotencyKey}-${connect ? 'connect' : 'account'}` },
          ),
        );
        endpoints.push({ id: endpoint.id, connect, ...(endpoint.secret ? { secret: endpoint.secret } : {}) });
      }
      return endpoints;
    },

    /** At uninstall: deletes the endpoints registered at install; one Stripe no longer has (404) counts as deleted. */
    async deleteWebhooks(endpoints): Promise<void> {
      for (const endpoint of endpoints) {
        await call('DELETE /v1/webhook_endpoints/{id}', async () => {
          try {
            await client.webhookEndpoints.del(endpoint.id);
          } catch (error) {
            if (!(error instanceof Stripe.errors.StripeError && error.statusCode === 404)) throw error;
          }
        });
      }
    },
  };
}
