import { parseJson, stringifyJson } from '../../lib/json';

export interface Answer {
  status: number;
  body: any;
  text: string;
}

/** A small API client for the drills: a token with every scope, refreshed when it nears expiry; never throws on HTTP. */
export class DrillClient {
  private token?: { value: string; expiresAt: number };

  constructor(
    readonly apiUrl: string,
    private readonly clientId: string,
    private readonly clientSecret: string,
  ) {}

  private async bearer(): Promise<string> {
    if (this.token && this.token.expiresAt > Date.now() + 60_000) return this.token.value;
    const response = await fetch(`${this.apiUrl}/api/auth/oauth/token`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${this.clientId}:${this.clientSecret}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json()) as { access_token: string; expires_in: number };
    if (!response.ok) throw new Error(`token request failed: ${response.status}`);
    this.token = { value: body.access_token, expiresAt: Date.now() + body.expires_in * 1000 };
    return this.token.value;
  }

  /** One request; a transport failure (connection refused/reset, timeout) answers status 0. */
  async call(method: string, path: string, body?: unknown, timeoutMs = 30_000, headers: Record<string, string> = {}): Promise<Answer> {
    try {
      const response = await fetch(`${this.apiUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${await this.bearer()}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : stringifyJson(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      let parsed: unknown = text;
      if ((response.headers.get('content-type') ?? '').includes('json') && text) parsed = parseJson(text);
      return { status: response.status, body: parsed, text };
    } catch (error) {
      return { status: 0, body: undefined, text: String(error) };
    }
  }

  /** Like call(), but a non-2xx answer is an error (setup steps of a drill). */
  async must(method: string, path: string, body?: unknown): Promise<any> {
    const answer = await this.call(method, path, body);
    if (answer.status < 200 || answer.status > 299) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
    return answer.body;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `probe` returns true, at most `timeoutMs` (bounded: every drill loop ends by itself). */
export async function waitUntil(what: string, probe: () => Promise<boolean>, timeoutMs: number, everyMs = 500): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs / 1000} s`);
    await sleep(everyMs);
  }
}
