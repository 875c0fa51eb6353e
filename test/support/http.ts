import { parseJson, stringifyJson } from '../../lib/json';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export const apiUrl = (): string => {
  const url = process.env.TEST_API_URL;
  if (!url) throw new Error('TEST_API_URL is not set: run the tests through jest (global setup starts the platform)');
  return url;
};

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/**
 * undici's failure when the connection it sent the request on was closed before any answer came back. By name, not
 * instanceof: fetch's TypeError comes from Node's realm, not from jest's.
 */
const isClosedConnection = (error: unknown): boolean => {
  const { name, cause } = (error ?? {}) as { name?: string; cause?: { code?: string } };
  return name === 'TypeError' && (cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET');
};

/**
 * fetch, sent a second time when a request that may be repeated (`retrySafe`) fails because its connection closed
 * under it: a kept-alive connection the server closed as idle just as the request went out on it (`other side
 * closed`). The request never reached the application then, so repeating it changes nothing.
 */
export async function fetchRetryingClosedConnection(
  url: string,
  init: RequestInit = {},
  retrySafe = IDEMPOTENT.has((init.method ?? 'GET').toUpperCase()),
): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    if (!retrySafe || !isClosedConnection(error) || init.signal?.aborted) throw error;
    return fetch(url, init);
  }
}

const tokens = new Map<string, { token: string; expiresAt: number }>();

/** A real access token from the platform's issuer (client_credentials), cached per scope set for the run. */
export async function getToken(scope?: string): Promise<string> {
  const key = scope ?? '*';
  const cached = tokens.get(key);
  if (cached && cached.expiresAt > Date.now() + 60_000) return cached.token;
  const basic = Buffer.from(`${process.env.TEST_CLIENT_ID}:${process.env.TEST_CLIENT_SECRET}`).toString('base64');
  // A token request may be repeated: a second token for the same client is harmless.
  const response = await fetchRetryingClosedConnection(
    `${apiUrl()}/api/auth/oauth/token`,
    {
      method: 'POST',
      headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) }).toString(),
    },
    true,
  );
  const body = (await response.json()) as { access_token: string; expires_in: number };
  if (!response.ok) throw new Error(`token request failed: ${response.status} ${JSON.stringify(body)}`);
  tokens.set(key, { token: body.access_token, expiresAt: Date.now() + body.expires_in * 1000 });
  return body.access_token;
}

/**
 * Calls the API over real HTTP. `token: null` sends no Authorization header; a string is used as is; by default a
 * token with every scope is fetched. Bodies are written and read with the platform's exact-integer JSON.
 */
export async function api<T = any>(
  method: string,
  path: string,
  options: { body?: unknown; rawBody?: string; token?: string | null; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const token = options.token === undefined ? await getToken() : options.token;
  const headers: Record<string, string> = { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...options.headers };
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = stringifyJson(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const response = await fetchRetryingClosedConnection(`${apiUrl()}${path}`, { method, headers, body, signal: AbortSignal.timeout(60_000) });
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json') && text) parsed = parseJson(text);
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}
