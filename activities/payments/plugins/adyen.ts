import type { Client, ManagementAPI, Types } from '@adyen/api-library';
import { ApplicationFailure } from '@temporalio/common';
import type { ProviderAccount } from '../../../areas/payments';
import type { AdyenConfig } from './adyen-connector';
import { parseJson } from '../../../lib/json';
import { adyenMerchantAccount } from './adyen-mapping';
import { guardedRequest, isBlockedAddress } from './guarded-request';
import { invalidData, providerRejected, type ConnectorPlugin, type WebhookEndpoint } from './plugin';

type ClientInterface = NonNullable<ConstructorParameters<typeof Client>[1]>;
type Webhook = Types.management.Webhook;
type AdyenLibrary = typeof import('@adyen/api-library');

/**
 * Adyen's library is large (every API's models): it is loaded on a connector's first call, not when the worker
 * starts, so a platform without Adyen connectors never pays for it.
 */
let library: Promise<AdyenLibrary> | undefined;
const loadLibrary = (): Promise<AdyenLibrary> => (library ??= import('@adyen/api-library'));

const TIMEOUT_MS = 30_000;
const MERCHANTS_PAGE = 100; // the Management API's largest page
const WEBHOOKS_PAGE = 50;

/**
 * The transport the library's Management API services use (the library's public `ClientInterface`): each request goes
 * to the config's `endpoint` (the library builds Adyen's own URLs; only their origin is replaced, the path kept) through
 * the platform's outbound guard (WEBHOOKS_ALLOWED_CIDRS), with a bounded answer and time. A non-2xx answer is the
 * library's own HttpClientException, with Adyen's error body.
 */
function guardedTransport(endpoint: string, { HttpClientException }: AdyenLibrary): ClientInterface {
  return {
    async request(url, json, config, _isApiKeyRequired, options = {}) {
      const target = new URL(url);
      const query = options.params ? `?${new URLSearchParams(options.params as Record<string, string>).toString()}` : '';
      const method = options.method ?? 'POST';
      const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json', 'X-API-Key': config.apiKey ?? '' };
      if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;
      const body = method === 'GET' || method === 'DELETE' ? undefined : json.toString();
      const answer = await guardedRequest(`${endpoint}${target.pathname}${query}`, { method, headers, body, timeoutMs: TIMEOUT_MS });
      if (answer.status >= 200 && answer.status < 300) return answer.text;
      let apiError: any;
      try {
        apiError = parseJson(answer.text);
      } catch {
        apiError = undefined;
      }
      const detail = apiError ? [apiError.errorCode, apiError.title, apiError.detail].filter(Boolean).join(', ') : answer.text.slice(0, 200);
      throw new HttpClientException({
        message: `HTTP Exception: ${answer.status}. ${detail}`,
        statusCode: answer.status,
        errorCode: apiError?.errorCode,
        responseBody: answer.text,
        apiError,
      });
    },
  };
}

/**
 * Adyen's answers as Temporal sees them: 429, 5xx and network failures are retried by Temporal's policy; any other 4xx
 * (an unknown company, a key without the Management API role, an invalid request) is a definitive refusal, kept with
 * Adyen's error code and title for the task's error. A refused address (outbound guard) cannot succeed on retry.
 */
export function adyenFailure(error: unknown, operation: string, { HttpClientException }: AdyenLibrary): Error {
  if (isBlockedAddress(error)) return providerRejected((error as Error).message);
  if (!(error instanceof HttpClientException)) return error as Error;
  const message = `Adyen answered ${error.statusCode} to ${operation}: ${error.message.replace(/^HTTP Exception: \d+\. /, '')}`;
  if (error.statusCode === 429) return ApplicationFailure.retryable(message, 'PROVIDER_RATE_LIMITED');
  if (error.statusCode >= 500) return ApplicationFailure.retryable(message, 'PROVIDER_UNAVAILABLE');
  return providerRejected(message);
}

/**
 * The Adyen connector's plugin, as Formance's: merchant accounts of the company (FETCH_ACCOUNTS) and the company webhook
 * that delivers standard notifications (CREATE_WEBHOOKS); the notifications themselves are received by the area
 * (areas/payments/connectors/adyen-webhooks.ts). Adyen's official library builds every request and reads every answer; the
 * transport sends it to `endpoint`. Balances and payments are not fetched: Adyen has no API listing them to a
 * company, so payments arrive by notification only (Formance's plugin answers "not implemented" to them too).
 */
export function adyenPlugin(config: AdyenConfig): ConnectorPlugin {
  let management: ManagementAPI;
  let lib: AdyenLibrary;
  const call = async <T>(operation: string, work: () => Promise<T>): Promise<T> => {
    if (!management) {
      lib = await loadLibrary();
      const client: Client = new lib.Client(
        new lib.Config({
          apiKey: config.apiKey,
          environment: config.liveEndpointPrefix ? lib.EnvironmentEnum.LIVE : lib.EnvironmentEnum.TEST,
          ...(config.liveEndpointPrefix ? { liveEndpointUrlPrefix: config.liveEndpointPrefix } : {}),
          connectionTimeoutMillis: TIMEOUT_MS,
        }),
        guardedTransport(config.endpoint, lib),
      );
      management = new lib.ManagementAPI(client);
    }
    try {
      return await work();
    } catch (error) {
      throw adyenFailure(error, operation, lib);
    }
  };
  const companyID = config.companyID;

  /** The company's webhook this connector registered: Formance marks it with the connector id as its description. */
  async function findWebhook(connectorID: string): Promise<Webhook | undefined> {
    for (let page = 1; ; page++) {
      const listed = await call('GET /v3/companies/{companyId}/webhooks', () =>
        management.WebhooksCompanyLevelApi.listAllWebhooks(companyID, page, WEBHOOKS_PAGE),
      );
      const data = listed.data ?? [];
      const found = data.find((w) => w.description === connectorID && w.type === 'standard');
      if (found) return found;
      if (data.length < WEBHOOKS_PAGE || page >= (listed.pagesTotal ?? page)) return undefined;
    }
  }

  return {
    /** Every merchant account of the company, page after page (Adyen sorts them by id). */
    async fetchAccounts(): Promise<ProviderAccount[]> {
      const accounts: ProviderAccount[] = [];
      for (let page = 1; ; page++) {
        const listed = await call('GET /v3/companies/{companyId}/merchants', () =>
          management.AccountCompanyLevelApi.listMerchantAccounts(companyID, page, MERCHANTS_PAGE),
        );
        const data = listed.data ?? [];
        for (const merchant of data) {
          if (typeof merchant.id !== 'string' || merchant.id === '') throw invalidData('Adyen listed a merchant account without id');
          accounts.push(adyenMerchantAccount(merchant));
        }
        if (data.length < MERCHANTS_PAGE || page >= (listed.pagesTotal ?? page)) return accounts;
      }
    },
    async fetchBalances() {
      return [];
    },
    async fetchPayments() {
      return [];
    },

    /**
     * CREATE_WEBHOOKS, as Formance: a `standard` company webhook to `url` for all merchant accounts, in JSON, described
     * by the connector's id (how a retry finds it instead of creating a second one: the Management API takes no
     * idempotency key), with the basic-auth credentials of the config; then an HMAC key for it, which signs every
     * notification item. Generating a key again replaces the previous one, so a retry after a lost answer still ends
     * with the key Adyen uses.
     */
    async createWebhooks({ url, idempotencyKey }): Promise<WebhookEndpoint[]> {
      let webhook = await findWebhook(idempotencyKey);
      if (!webhook) {
        const request: Types.management.CreateCompanyWebhookRequest = {
          active: true,
          communicationFormat: lib.Types.management.CreateCompanyWebhookRequest.CommunicationFormatEnum.Json,
          filterMerchantAccountType: lib.Types.management.CreateCompanyWebhookRequest.FilterMerchantAccountTypeEnum.AllAccounts,
          // Adyen requires the list only with includeAccounts / excludeAccounts.
          filterMerchantAccounts: undefined as unknown as string[],
          description: idempotencyKey,
          encryptionProtocol: url.startsWith('https:')
            ? lib.Types.management.CreateCompanyWebhookRequest.EncryptionProtocolEnum.Tlsv13
            : lib.Types.management.CreateCompanyWebhookRequest.EncryptionProtocolEnum.Http,
          type: 'standard',
          url,
          ...(config.webhookUsername ? { username: config.webhookUsername, password: config.webhookPassword } : {}),
        };
        webhook = await call('POST /v3/companies/{companyId}/webhooks', () => management.WebhooksCompanyLevelApi.setUpWebhook(companyID, request));
      }
      if (!webhook.id) throw invalidData('Adyen answered a webhook without id');
      const webhookID = webhook.id;
      const { hmacKey } = await call('POST /v3/companies/{companyId}/webhooks/{webhookId}/generateHmac', () =>
        management.WebhooksCompanyLevelApi.generateHmacKey(companyID, webhookID),
      );
      if (!hmacKey) throw invalidData('Adyen answered no hmacKey');
      return [{ id: webhookID, connect: false, secret: hmacKey }];
    },

    /** At uninstall: removes the company webhook (already gone is done). */
    async deleteWebhooks(endpoints: WebhookEndpoint[]): Promise<void> {
      for (const endpoint of endpoints) {
        await call('DELETE /v3/companies/{companyId}/webhooks/{webhookId}', async () => {
          try {
            await management.WebhooksCompanyLevelApi.removeWebhook(companyID, endpoint.id);
          } catch (error) {
            if (!(error instanceof lib.HttpClientException && error.statusCode === 404)) throw error;
          }
        });
      }
    },

    async initiatePayment() {
      throw providerRejected('the Adyen connector does not send transfers or payouts (no CREATE_TRANSFER / CREATE_PAYOUT)');
    },
    async createBankAccount() {
      throw providerRejected('the Adyen connector does not create bank accounts (no CREATE_BANK_ACCOUNT)');
    },
  };
}
