import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { ProviderAccount, ProviderBalance, ProviderPayment } from '../../../areas/payments';
import type { MangopayConfig } from './mangopay-connector';
import { parseJson, stringifyJson } from '../../../lib/json';
import type { Logger } from '../../../lib/logger';
import { guardedRequest, isBlockedAddress } from './guarded-request';
import {
  callbackOf,
  MANGOPAY_WEBHOOK_EVENTS,
  mangopayAsset,
  mangopayBankAccount,
  mangopayFunds,
  mangopayIdempotencyKey,
  mangopayPayment,
  mangopayWallet,
  type MangopayPaymentsCursor,
  type Obj,
  PENDING_READS,
  resourceOf,
} from './mangopay-mapping';
import { invalidData, providerRejected, type ConnectorPlugin, type FetchPage, type WebhookEndpoint, type WebhookRows } from './plugin';

/**
 * The Mangopay connector (Formance's `mangopay` plugin): users' wallets are its accounts, users' bank accounts its
 * external accounts, wallets' transactions (pay-ins, transfers, payouts, refunds) its payments. It speaks Mangopay's
 * REST API (https://mangopay.com/api-references) directly: OAuth 2.0 client credentials for a Bearer token, then
 * `/v2.01/<clientID>/…`, through the same SSRF-guarded, traced, bounded request as the generic connector.
 *
 * Mangopay's official Node SDK (mangopay2-nodejs-sdk) is not used at run time: it keeps its endpoint in axios's global
 * defaults and its token and client id on an object its instances share, so two Mangopay connectors in one worker would
 * send one's Bearer token to the other's client path, and it takes no HTTP agent (no SSRF guard). Its TypeScript
 * typings are the documented shapes the test fake answers with (test/support/mangopay-fake.ts).
 */

const PAGE = 100; // Mangopay's largest per_page.
const TIMEOUT_MS = 30_000;
const MAX_LOGGED_BODY = 2000;

/**
 * Tokens by endpoint, client and key: a worker reuses one until a minute before it expires instead of asking Mangopay
 * for one per activity. The key is part of the cache key (hashed), so a connector whose key changed never reuses the
 * old key's token.
 */
const tokens = new Map<string, { token: string; expiresAt: number }>();

export function mangopayPlugin(config: MangopayConfig, logger?: Pick<Logger, 'warn'>): ConnectorPlugin {
  const base = `${config.endpoint}/v2.01/${encodeURIComponent(config.clientID)}`;
  const tokenKey = `${config.endpoint} ${config.clientID} ${createHash('sha256').update(config.apiKey).digest('hex')}`;

  /**
   * One exchange. 429, 5xx, timeouts and network failures are retryable (Temporal retries with the same idempotency
   * key); any other 4xx is a definitive refusal. Mangopay's error body goes to the worker's log only: failure messages
   * are readable by every payments:read client.
   */
  async function exchange(method: string, url: string, operation: string, headers: Record<string, string>, body?: string): Promise<any> {
    const { status, text } = await guardedRequest(url, {
      method,
      headers: { Accept: 'application/json', ...headers },
      body,
      timeoutMs: TIMEOUT_MS,
    }).catch((error: Error) => {
      throw isBlockedAddress(error) ? providerRejected(error.message) : error;
    });
    if (status < 200 || status >= 300) {
      logger?.warn({ connector: config.name, operation, status, providerBody: text.slice(0, MAX_LOGGED_BODY) }, 'Mangopay answered an error');
      const message = `Mangopay answered ${status} to ${operation}`;
      if (status === 429) throw ApplicationFailure.retryable(message, 'PROVIDER_RATE_LIMITED');
      if (status >= 400 && status < 500 && status !== 408) throw providerRejected(message);
      throw ApplicationFailure.retryable(message, 'PROVIDER_UNAVAILABLE');
    }
    if (text === '') return undefined;
    try {
      return parseJson(text);
    } catch {
      throw invalidData(`Mangopay answered ${operation} with invalid JSON`);
    }
  }

  async function token(): Promise<string> {
    const cached = tokens.get(tokenKey);
    if (cached && cached.expiresAt > Date.now() + 60_000) return cached.token;
    const basic = Buffer.from(`${config.clientID}:${config.apiKey}`).toString('base64');
    const answer = await exchange(
      'POST',
      `${config.endpoint}/v2.01/oauth/token`,
      'POST /v2.01/oauth/token',
      { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      'grant_type=client_credentials',
    );
    if (typeof answer?.access_token !== 'string') throw invalidData('Mangopay answered POST /v2.01/oauth/token without an access_token');
    const expiresIn = typeof answer.expires_in === 'number' ? answer.expires_in : 0;
    tokens.set(tokenKey, { token: answer.access_token, expiresAt: Date.now() + expiresIn * 1000 });
    return answer.access_token;
  }

  async function call(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    options: { query?: Record<string, string>; body?: unknown; idempotencyKey?: string } = {},
  ) {
    const headers: Record<string, string> = { Authorization: `Bearer ${await token()}` };
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    if (options.idempotencyKey) headers['Idempotency-Key'] = mangopayIdempotencyKey(options.idempotencyKey);
    const query = options.query ? `?${new URLSearchParams(options.query)}` : '';
    // The operation names the path's shape, not its ids: it reaches failure messages and metrics.
    const operation = `${method} /v2.01/{clientID}${path.replace(/\/[0-9A-Za-z_-]*[0-9][0-9A-Za-z_-]*(?=\/|$)/g, '/{id}')}`;
    return exchange(method, `${base}${path}${query}`, operation, headers, options.body === undefined ? undefined : stringifyJson(options.body));
  }

  /** Every item of a list, `page` after `page` (`per_page` 100) until a page is not full. */
  async function list(path: string, query: Record<string, string> = {}): Promise<Obj[]> {
    const all: Obj[] = [];
    for (let page = 1; page <= 100_000; page++) {
      const items = await call('GET', path, { query: { ...query, page: String(page), per_page: String(PAGE) } });
      if (!Array.isArray(items)) throw invalidData(`Mangopay answered GET ${path.split('?')[0]} with something other than a list`);
      all.push(...items);
      if (items.length < PAGE) return all;
    }
    throw invalidData(`GET ${path}: too many pages`);
  }

  // FETCH_OTHERS: the users, the owners of every wallet and bank account.
  const users = () => list('/users', { Sort: 'CreationDate:ASC' });
  async function wallets(): Promise<Array<{ wallet: Obj; userID: string }>> {
    const found: Array<{ wallet: Obj; userID: string }> = [];
    for (const user of await users()) {
      for (const wallet of await list(`/users/${encodeURIComponent(user.Id)}/wallets`, { Sort: 'CreationDate:ASC' }))
        found.push({ wallet, userID: user.Id });
    }
    return found;
  }
  /** The wallet's owner, Mangopay's AuthorId of a transfer or payout from it. */
  async function ownerOf(walletID: string): Promise<string> {
    const wallet = await call('GET', `/wallets/${encodeURIComponent(walletID)}`);
    const owner = Array.isArray(wallet?.Owners) ? wallet.Owners[0] : undefined;
    if (typeof owner !== 'string') throw invalidData(`Mangopay wallet ${walletID} has no owner`);
    return owner;
  }
  const paymentOf = (object: unknown, what: string, overrides?: Parameters<typeof mangopayPayment>[1]): ProviderPayment => {
    const payment = mangopayPayment(object as Obj, overrides);
    if (!payment) throw invalidData(`Mangopay answered ${what} with a transaction the platform cannot read`);
    return payment;
  };

  return {
    async fetchAccounts(): Promise<ProviderAccount[]> {
      const accounts: ProviderAccount[] = [];
      for (const user of await users()) {
        const userPath = `/users/${encodeURIComponent(user.Id)}`;
        for (const wallet of await list(`${userPath}/wallets`, { Sort: 'CreationDate:ASC' })) accounts.push(mangopayWallet(wallet, user.Id));
        // FETCH_EXTERNAL_ACCOUNTS: the bank accounts a user's wallets pay out to.
        for (const bank of await list(`${userPath}/bankaccounts`, { Sort: 'CreationDate:ASC' })) accounts.push(mangopayBankAccount(bank, user.Id));
      }
      return accounts;
    },

    async fetchBalances(): Promise<ProviderBalance[]> {
      return (await wallets()).flatMap(({ wallet }) => {
        const asset = mangopayAsset(wallet.Balance?.Currency);
        return asset && Number.isSafeInteger(wallet.Balance?.Amount)
          ? [{ accountReference: wallet.Id, asset, amount: BigInt(wallet.Balance.Amount) }]
          : [];
      });
    },

    async fetchPayments(): Promise<ProviderPayment[]> {
      return (await this.fetchPaymentsSince!(undefined)).items;
    },

    /**
     * Each wallet's transactions created since its cursor, oldest first (`Sort=CreationDate:ASC`, `AfterDate` a second
     * before the cursor, since Mangopay's dates are whole seconds): those at the cursor's second already read are
     * skipped by id, so a run neither misses a transaction created in the same second nor returns one twice.
     */
    async fetchPaymentsSince(state): Promise<FetchPage<ProviderPayment>> {
      const cursor = (state as MangopayPaymentsCursor | undefined) ?? { wallets: {} };
      const next: MangopayPaymentsCursor = { wallets: { ...cursor.wallets } };
      const items: ProviderPayment[] = [];
      // A transfer between two wallets is in both wallets' lists: it is one payment.
      const seen = new Set<string>();
      // Polling as the safety net of callbacks: a transaction read while CREATED is read again until it settles, so a
      // lost callback delays its new state by one polling period instead of leaving it PENDING.
      const pending = new Map(Object.entries(cursor.pending ?? {}));
      for (const [id, resource] of [...pending].slice(0, PENDING_READS)) {
        let current: Obj;
        try {
          current = await call('GET', `/${resource}/${encodeURIComponent(id)}`);
        } catch (error) {
          // Gone at Mangopay (404) or refused: nothing more to learn from it.
          if ((error as { type?: string }).type === 'PROVIDER_REJECTED') {
            pending.delete(id);
            continue;
          }
          throw error;
        }
        pending.delete(id);
        const payment = mangopayPayment(current);
        if (!payment) continue;
        if (payment.status === 'PENDING')
          pending.set(id, resource); // to the end: the others are read first next run
        else if (!seen.has(id)) {
          seen.add(id);
          items.push(payment);
        }
      }
      for (const { wallet } of await wallets()) {
        const from = cursor.wallets[wallet.Id];
        const query: Record<string, string> = { Sort: 'CreationDate:ASC', ...(from ? { AfterDate: String(from.after - 1) } : {}) };
        let after = from?.after ?? 0;
        let ids = new Set(from?.ids ?? []);
        for (const t of await list(`/wallets/${encodeURIComponent(wallet.Id)}/transactions`, query)) {
          const created = typeof t.CreationDate === 'number' ? t.CreationDate : 0;
          if (created < after || (created === after && ids.has(t.Id))) continue;
          if (created > after) {
            after = created;
            ids = new Set();
          }
          ids.add(t.Id);
          const payment = mangopayPayment(t);
          if (payment && !seen.has(payment.reference)) {
            seen.add(payment.reference);
            items.push(payment);
            const resource = resourceOf(t);
            if (payment.status === 'PENDING' && resource) pending.set(payment.reference, resource);
          }
        }
        if (after > 0) next.wallets[wallet.Id] = { after, ids: [...ids] };
      }
      if (pending.size > 0) next.pending = Object.fromEntries(pending);
      return { items, state: next };
    },

    async initiatePayment(request): Promise<ProviderPayment> {
      const funds = mangopayFunds(request.asset, request.amount);
      if (!funds)
        throw providerRejected(
          `Mangopay cannot send ${request.amount} ${request.asset}: the asset must be a Mangopay currency in its minor unit (e.g. EUR/2, JPY/0)`,
        );
      if (!request.sourceAccountReference) throw providerRejected('a Mangopay transfer or payout needs a source wallet');
      const author = await ownerOf(request.sourceAccountReference);
      const common = {
        AuthorId: author,
        DebitedFunds: funds,
        Fees: { Currency: funds.Currency, Amount: 0 },
        DebitedWalletId: request.sourceAccountReference,
        Tag: request.reference,
      };
      if (request.type === 'TRANSFER') {
        const transfer = await call('POST', '/transfers', {
          body: { ...common, CreditedWalletId: request.destinationAccountReference },
          idempotencyKey: request.idempotencyKey,
        });
        return paymentOf(transfer, 'POST /transfers', { type: 'TRANSFER' });
      }
      // Mangopay's bank wire reference is at most 12 letters, digits or spaces (Formance refuses longer descriptions).
      if (request.description && !/^[A-Za-z0-9 ]{1,12}$/.test(request.description))
        throw providerRejected('a Mangopay payout description is its bank wire reference: at most 12 letters, digits or spaces');
      const payout = await call('POST', '/payouts/bankwire', {
        body: {
          ...common,
          PaymentType: 'BANK_WIRE',
          BankAccountId: request.destinationAccountReference,
          ...(request.description ? { BankWireRef: request.description } : {}),
        },
        idempotencyKey: request.idempotencyKey,
      });
      return paymentOf(payout, 'POST /payouts/bankwire', { type: 'PAYOUT', destination: request.destinationAccountReference });
    },

    async createBankAccount() {
      throw providerRejected('the Mangopay connector does not create bank accounts (no CREATE_BANK_ACCOUNT)');
    },

    /**
     * CREATE_WEBHOOKS: one hook per event type at `url` (Mangopay allows one valid hook per type). A type that already
     * has a valid hook is pointed at `url` (PUT) if it points elsewhere, so a retry or a second install creates none twice.
     */
    async createWebhooks({ url, idempotencyKey }): Promise<WebhookEndpoint[]> {
      const existing = new Map<string, Obj>();
      for (const hook of await list('/hooks')) if (hook.Validity === 'VALID') existing.set(hook.EventType, hook);
      const endpoints: WebhookEndpoint[] = [];
      for (const eventType of MANGOPAY_WEBHOOK_EVENTS) {
        const hook = existing.get(eventType);
        if (hook && hook.Url === url && hook.Status === 'ENABLED') {
          endpoints.push({ id: hook.Id, connect: false });
          continue;
        }
        const saved = hook
          ? await call('PUT', `/hooks/${encodeURIComponent(hook.Id)}`, {
              body: { Url: url, Status: 'ENABLED' },
              idempotencyKey: `${idempotencyKey}-${eventType}`,
            })
          : await call('POST', '/hooks', { body: { EventType: eventType, Url: url }, idempotencyKey: `${idempotencyKey}-${eventType}` });
        endpoints.push({ id: String(saved?.Id ?? hook?.Id), connect: false });
      }
      return endpoints;
    },

    /**
     * TRANSLATE_WEBHOOKS: Mangopay's callbacks are unsigned, so nothing in them is trusted but the resource's id: the
     * resource is read back from Mangopay (as Formance does) and stored as Mangopay answers it. A forged callback can
     * only make the platform read the truth again; an unknown id is Mangopay's 404, a refusal, with nothing stored.
     * The event's id is Formance's idempotency key, `<RessourceId>-<EventType>-<Date>`.
     */
    async translateWebhook({ query }): Promise<WebhookRows> {
      const event = callbackOf(query);
      const id = encodeURIComponent(event.resourceID);
      const eventID = `${event.resourceID}-${event.eventType}-${event.date}`;
      let payment: ProviderPayment;
      if (event.eventType.includes('REFUND')) {
        const refund = await call('GET', `/refunds/${id}`);
        payment = paymentOf(refund, 'GET /refunds/{id}', { status: event.eventType.endsWith('_FAILED') ? 'REFUNDED_FAILURE' : 'REFUNDED' });
      } else if (event.eventType.startsWith('TRANSFER_'))
        payment = paymentOf(await call('GET', `/transfers/${id}`), 'GET /transfers/{id}', { type: 'TRANSFER' });
      else if (event.eventType.includes('PAYOUT')) payment = paymentOf(await call('GET', `/payouts/${id}`), 'GET /payouts/{id}', { type: 'PAYOUT' });
      else payment = paymentOf(await call('GET', `/payins/${id}`), 'GET /payins/{id}', { type: 'PAY-IN' });
      return { eventID, eventType: event.eventType, accounts: [], balances: [], payments: [payment] };
    },
  };
}
