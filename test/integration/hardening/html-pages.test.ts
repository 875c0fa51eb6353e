import { api, apiUrl } from '../../support/http';
import { installSimulated, simulatedDirectory, suffix } from '../../support/payments';

/**
 * Every HTML page the platform serves carries the browser security headers (api/html.ts): a Content-Security-Policy
 * with frame-ancestors 'none', X-Frame-Options DENY, nosniff and no Referer; every other answer carries nosniff.
 * No browser runs here, so the Swagger UI page is checked by its headers, its markup (nothing inline for the policy
 * to block) and by fetching each asset it loads from where the policy allows it.
 */
const HTML = { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

function policyOf(response: Response): Map<string, string[]> {
  const header = response.headers.get('content-security-policy') ?? '';
  return new Map(
    header
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => {
        const [name, ...values] = d.split(/\s+/);
        return [name, values] as [string, string[]];
      }),
  );
}

function expectPageHeaders(response: Response): Map<string, string[]> {
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  const policy = policyOf(response);
  expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
  expect(policy.get('default-src')).toEqual(["'none'"]);
  expect(policy.get('base-uri')).toEqual(["'none'"]);
  for (const values of policy.values()) expect(values).not.toEqual(expect.arrayContaining([expect.stringMatching(/^'unsafe-(inline|eval)'$/)]));
  expect(response.headers.get('x-frame-options')).toBe('DENY');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  return policy;
}

describe('HTML pages', () => {
  it('the Swagger UI page: its policy allows exactly what it loads, from this origin, and nothing inline', async () => {
    const page = await fetch(`${apiUrl()}/api/docs`, { headers: HTML });
    expect(page.status).toBe(200);
    const policy = expectPageHeaders(page);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('style-src')).toEqual(["'self'"]);
    expect(policy.get('connect-src')).toContain("'self'");
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/); // every script is a file
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    const scripts = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]);
    const styles = [...html.matchAll(/<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual(['/api/docs/swagger-ui-bundle.js', '/api/docs/init.js']);
    expect(styles).toEqual(['/api/docs/swagger-ui.css']);
    // 'self': same origin as the page. nosniff makes the browser insist on the right types, so check them.
    for (const [asset, type] of [...scripts.map((s) => [s, /^(application|text)\/javascript/]), ...styles.map((s) => [s, /^text\/css/])] as Array<
      [string, RegExp]
    >) {
      const response = await fetch(new URL(asset, page.url));
      expect(new URL(response.url).origin).toBe(new URL(page.url).origin);
      expect([asset, response.status]).toEqual([asset, 200]);
      expect(response.headers.get('content-type')).toMatch(type);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect((await response.text()).length).toBeGreaterThan(0);
    }
    // The document init.js loads is same-origin too (connect-src 'self').
    const init = await (await fetch(`${apiUrl()}/api/docs/init.js`)).text();
    const documentUrl = /url: '([^']+)'/.exec(init)?.[1] as string;
    expect(documentUrl.startsWith('/')).toBe(true);
    const document = await fetch(new URL(documentUrl, page.url));
    expect(document.status).toBe(200);
    expect(document.headers.get('content-type')).toMatch(/^application\/json/);
    expect(document.headers.get('x-content-type-options')).toBe('nosniff');
    expect(((await document.json()) as { openapi: string }).openapi).toMatch(/^3\./);
    // The stylesheet's icons are data: URIs, which img-src allows.
    const css = await (await fetch(`${apiUrl()}/api/docs/swagger-ui.css`)).text();
    expect(css).toContain('url("data:image/svg+xml');
    expect(policy.get('img-src')).toEqual(expect.arrayContaining(["'self'", 'data:']));
  });

  describe('the open-banking consent page', () => {
    let link: string;
    beforeAll(async () => {
      const connectorID = await installSimulated(
        simulatedDirectory({ 'psu-accounts.json': [], 'psu-balances.json': [], 'psu-payments.json': [] }),
        '1h',
      );
      const psuID = (
        await api('POST', '/api/payments/v3/payment-service-users', {
          body: { name: `psu-${suffix()}`, contactDetails: { email: 'end.user@example.com' } },
        })
      ).body.data;
      const base = `/api/payments/v3/payment-service-users/${psuID}/connectors/${connectorID}`;
      expect((await api('POST', `${base}/forward`)).status).toBe(204);
      ({ link } = (
        await api('POST', `${base}/create-link`, { body: { clientRedirectURL: 'https://app.example/back', applicationName: 'Budget app' } })
      ).body);
    });

    it('the consent page: the strict policy (no script, style or form) and no framing', async () => {
      const page = await fetch(link, { headers: HTML });
      expect(page.status).toBe(200);
      const policy = expectPageHeaders(page);
      expect([...policy.keys()].sort()).toEqual(['base-uri', 'default-src', 'form-action', 'frame-ancestors']);
      expect(await page.text()).toContain('Budget app asks to read your accounts');
    });

    it("the decision's redirect, whose body Koa writes as HTML for a browser", async () => {
      const decided = await fetch(`${link}&decision=reject`, { headers: HTML, redirect: 'manual' });
      expect(decided.status).toBe(307);
      expect(decided.headers.get('location')).toBe('https://app.example/back');
      expectPageHeaders(decided);
    });
  });

  it("the issuer's authorization endpoint error page", async () => {
    const discovery = (await (await fetch(`${apiUrl()}/api/auth/.well-known/openid-configuration`)).json()) as { authorization_endpoint: string };
    for (const init of [
      { method: 'GET' },
      { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'client_id=nobody&response_type=none' },
    ]) {
      const page = await fetch(discovery.authorization_endpoint, { ...init, headers: { ...HTML, ...(init.headers ?? {}) }, redirect: 'manual' });
      expect(page.status).toBe(400);
      expectPageHeaders(page);
      expect(await page.text()).toMatch(/<h1>invalid_(request|client)<\/h1>/);
    }
    // The provider's resume route under it (an interaction's return), without the interaction's cookie.
    const resume = await fetch(`${discovery.authorization_endpoint}/no-such-interaction`, { headers: HTML, redirect: 'manual' });
    expect(resume.status).toBeGreaterThanOrEqual(400);
    expectPageHeaders(resume);
  });

  it('every open GET route: an HTML answer has the page headers, every answer has nosniff', async () => {
    const document = (await api('GET', '/api/openapi.json')).body as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    const htmlPaths: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      if (!operations.get || (operations.get.security ?? []).length > 0) continue;
      const response = await fetch(`${apiUrl()}${path.replace(/\{[^}]+\}/g, 'x')}`, { headers: HTML, redirect: 'manual' });
      await response.arrayBuffer();
      expect([path, response.headers.get('x-content-type-options')]).toEqual([path, 'nosniff']);
      if (/^text\/html/.test(response.headers.get('content-type') ?? '')) {
        expectPageHeaders(response);
        htmlPaths.push(path);
      }
    }
    expect(htmlPaths).toEqual(['/api/docs']);
    // An error answer (JSON, also to a browser) and a protected route's 401.
    for (const path of ['/api/nowhere', '/api/ledger/v2']) {
      const response = await fetch(`${apiUrl()}${path}`, { headers: HTML });
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });
});
