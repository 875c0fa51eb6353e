import crypto from 'node:crypto';
import http from 'node:http';
import { hmacValidator, type Types } from '@adyen/api-library';

type Merchant = Types.management.Merchant;
type Webhook = Types.management.Webhook;
type ListMerchantResponse = Types.management.ListMerchantResponse;
type ListWebhooksResponse = Types.management.ListWebhooksResponse;
type GenerateHmacKeyResponse = Types.management.GenerateHmacKeyResponse;
type RestServiceError = Types.management.RestServiceError;
type NotificationRequestItem = Types.notification.NotificationRequestItem;

export interface AdyenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  apiKey?: string;
  body: unknown;
  status: number;
}

/**
 * A fake of Adyen's Management API (v3) on 127.0.0.1, holding a company's merchant accounts and webhooks. It answers
 * in the shapes of the official library's TypeScript models (Merchant, ListMerchantResponse, Webhook,
 * ListWebhooksResponse, GenerateHmacKeyResponse; errors as RestServiceError) and refuses what Adyen documents as
 * invalid: a missing or wrong X-API-Key (401), an unknown company (403), page numbers below 1 or page sizes outside
 * 1..100 (422), a webhook without its required members or with values outside their enums (422), an unknown
 * webhook (404), an unknown path (404). It records every request.
 */
export async function startAdyenFake(options: { apiKey: string; companyID: string; merchants: Merchant[] }) {
  const requests: AdyenRequest[] = [];
  const webhooks = new Map<string, Webhook>();
  const hmacKeys = new Map<string, string>();
  let nextWebhook = 1;
  const pendingFailures: Array<{ match: (r: AdyenRequest) => boolean; status: number }> = [];

  const error = (status: number, title: string, detail: string, errorCode = String(status)): RestServiceError => ({
    type: `https://docs.adyen.com/errors/${title.toLowerCase().replace(/\s+/g, '-')}`,
    title,
    status,
    detail,
    errorCode,
    requestId: crypto.randomUUID(),
  });
  const links = (path: string, page: number, pages: number) => ({
    first: { href: `${path}?pageNumber=1` },
    last: { href: `${path}?pageNumber=${Math.max(pages, 1)}` },
    self: { href: `${path}?pageNumber=${page}` },
    ...(page < pages ? { next: { href: `${path}?pageNumber=${page + 1}` } } : {}),
    ...(page > 1 ? { prev: { href: `${path}?pageNumber=${page - 1}` } } : {}),
  });
  /** pageNumber >= 1 and pageSize 1..100 (the Management API's limits), defaults 1 and 10. */
  const paging = (query: URLSearchParams): { page: number; size: number } | string => {
    const page = Number(query.get('pageNumber') ?? '1');
    const size = Number(query.get('pageSize') ?? '10');
    if (!Number.isInteger(page) || page < 1) return 'pageNumber must be an integer >= 1';
    if (!Number.isInteger(size) || size < 1 || size > 100) return 'pageSize must be an integer between 1 and 100';
    return { page, size };
  };
  const enumOf = (value: unknown, values: string[]) => typeof value === 'string' && values.includes(value);

  function validateWebhook(body: any): string | undefined {
    if (typeof body !== 'object' || body === null) return 'body must be a CreateCompanyWebhookRequest';
    if (typeof body.active !== 'boolean') return 'active is required (boolean)';
    if (!enumOf(body.communicationFormat, ['http', 'json', 'soap'])) return 'communicationFormat must be http, json or soap';
    if (!enumOf(body.filterMerchantAccountType, ['allAccounts', 'excludeAccounts', 'includeAccounts']))
      return 'filterMerchantAccountType must be allAccounts, excludeAccounts or includeAccounts';
    if (body.filterMerchantAccountType !== 'allAccounts' && !Array.isArray(body.filterMerchantAccounts))
      return 'filterMerchantAccounts is required with includeAccounts or excludeAccounts';
    if (typeof body.type !== 'string' || body.type === '') return 'type is required';
    if (typeof body.url !== 'string' || !/^https?:\/\/[^\s]+$/.test(body.url)) return 'url must be an http(s) URL';
    if (body.encryptionProtocol !== undefined && !enumOf(body.encryptionProtocol, ['HTTP', 'TLSv1.2', 'TLSv1.3']))
      return 'encryptionProtocol must be HTTP, TLSv1.2 or TLSv1.3';
    if (body.encryptionProtocol === 'HTTP' && body.url.startsWith('https:')) return 'encryptionProtocol HTTP needs an http URL';
    if ((body.username === undefined) !== (body.password === undefined)) return 'username and password go together';
    return undefined;
  }

  function answer(req: AdyenRequest): { status: number; body?: unknown } {
    if (req.apiKey === undefined) return { status: 401, body: error(401, 'Unauthorized', 'X-API-Key header is missing', '000') };
    if (req.apiKey !== options.apiKey) return { status: 401, body: error(401, 'Unauthorized', 'Invalid X-API-Key', '000') };
    const failure = pendingFailures.findIndex((f) => f.match(req));
    if (failure >= 0) {
      const [{ status }] = pendingFailures.splice(failure, 1);
      return { status, body: error(status, status === 429 ? 'Too Many Requests' : 'Internal Server Error', 'injected by the test') };
    }
    const match = /^\/v3\/companies\/([^/]+)(\/merchants|\/webhooks(?:\/([^/]+)(\/generateHmac)?)?)$/.exec(req.path);
    if (!match) return { status: 404, body: error(404, 'Not Found', `no such resource ${req.method} ${req.path}`) };
    const [, company, resource, webhookID, generate] = match;
    if (decodeURIComponent(company) !== options.companyID)
      return { status: 403, body: error(403, 'Forbidden', `not allowed to access company ${company}`, '010') };
    const base = `/v3/companies/${company}`;
    if (resource === '/merchants' && req.method === 'GET') {
      const p = paging(req.query);
      if (typeof p === 'string') return { status: 422, body: error(422, 'Invalid parameters', p, '702') };
      const pages = Math.ceil(options.merchants.length / p.size);
      const body: ListMerchantResponse = {
        _links: links(`${base}/merchants`, p.page, pages),
        data: options.merchants.slice((p.page - 1) * p.size, p.page * p.size),
        itemsTotal: options.merchants.length,
        pagesTotal: pages,
      };
      return { status: 200, body };
    }
    if (resource === '/webhooks' && req.method === 'GET') {
      const p = paging(req.query);
      if (typeof p === 'string') return { status: 422, body: error(422, 'Invalid parameters', p, '702') };
      const all = [...webhooks.values()];
      const pages = Math.ceil(all.length / p.size);
      const body: ListWebhooksResponse = {
        _links: links(`${base}/webhooks`, p.page, pages),
        accountReference: options.companyID,
        data: all.slice((p.page - 1) * p.size, p.page * p.size),
        itemsTotal: all.length,
        pagesTotal: pages,
      };
      return { status: 200, body };
    }
    if (resource === '/webhooks' && req.method === 'POST') {
      const invalid = validateWebhook(req.body);
      if (invalid) return { status: 422, body: error(422, 'Invalid parameters', invalid, '702') };
      const input = req.body as Types.management.CreateCompanyWebhookRequest;
      const id = `S2-${String(nextWebhook++).padStart(8, '0')}`;
      const webhook: Webhook = {
        _links: {
          self: { href: `${base}/webhooks/${id}` },
          company: { href: base },
          generateHmac: { href: `${base}/webhooks/${id}/generateHmac` },
          testWebhook: { href: `${base}/webhooks/${id}/test` },
        },
        id,
        type: input.type,
        url: input.url,
        active: input.active,
        communicationFormat: input.communicationFormat as unknown as Webhook['communicationFormat'],
        filterMerchantAccountType: input.filterMerchantAccountType as unknown as Webhook['filterMerchantAccountType'],
        ...(input.description ? { description: input.description } : {}),
        ...(input.encryptionProtocol ? { encryptionProtocol: input.encryptionProtocol as unknown as Webhook['encryptionProtocol'] } : {}),
        ...(input.username ? { username: input.username } : {}),
        hasPassword: Boolean(input.password),
        hasError: false,
        accountReference: options.companyID,
      };
      webhooks.set(id, webhook);
      return { status: 200, body: webhook };
    }
    if (webhookID && !webhooks.has(decodeURIComponent(webhookID)))
      return { status: 404, body: error(404, 'Not Found', `webhook ${webhookID} not found`, '000') };
    const id = decodeURIComponent(webhookID ?? '');
    if (generate && req.method === 'POST') {
      const body: GenerateHmacKeyResponse = { hmacKey: crypto.randomBytes(32).toString('hex').toUpperCase() };
      hmacKeys.set(id, body.hmacKey);
      return { status: 200, body };
    }
    if (webhookID && !generate && req.method === 'GET') return { status: 200, body: webhooks.get(id) };
    if (webhookID && !generate && req.method === 'DELETE') {
      webhooks.delete(id);
      hmacKeys.delete(id);
      return { status: 204 };
    }
    return { status: 405, body: error(405, 'Method Not Allowed', `${req.method} ${req.path}`) };
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://adyen');
      const text = Buffer.concat(chunks).toString();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
      const entry: AdyenRequest = {
        method: req.method!,
        path: url.pathname,
        query: url.searchParams,
        apiKey: req.headers['x-api-key'] as string | undefined,
        body,
        status: 0,
      };
      requests.push(entry);
      const out = answer(entry);
      entry.status = out.status;
      if (out.body === undefined) return res.writeHead(out.status).end();
      res.writeHead(out.status, { 'content-type': 'application/json' }).end(JSON.stringify(out.body));
    });
  });
  const url = await new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)),
  );
  return {
    url,
    requests,
    webhooks,
    hmacKeys,
    /** The next request `match` accepts gets `status` instead (a 429 or a 5xx), once. */
    failNext: (match: (r: AdyenRequest) => boolean, status: number) => pendingFailures.push({ match, status }),
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/**
 * A standard notification (`{live, notificationItems: [{NotificationRequestItem}]}`) whose items are signed with
 * `hmacKey` by Adyen's library (additionalData.hmacSignature), as Adyen signs them. A bigint amount is written as its
 * digits (an amount past 2^53, which a JS number would round).
 */
export function adyenNotification(
  items: Array<Omit<NotificationRequestItem, 'additionalData' | 'amount'> & { amount: { currency: string; value: number | bigint } }>,
  hmacKey: string,
): string {
  const validator = new hmacValidator();
  const signed = items.map((item) => {
    // The library joins the signed fields as text: a bigint value signs as its digits.
    const hmacSignature = validator.calculateHmac(item as unknown as NotificationRequestItem, hmacKey);
    return { NotificationRequestItem: { ...item, additionalData: { hmacSignature } } };
  });
  const marker = '~bigint~';
  return JSON.stringify({ live: 'false', notificationItems: signed }, (_key, value) =>
    typeof value === 'bigint' ? `${marker}${value}` : value,
  ).replace(new RegExp(`"${marker}(\\d+)"`, 'g'), '$1');
}
