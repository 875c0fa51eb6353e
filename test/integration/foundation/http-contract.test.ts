import { api, apiUrl } from '../../support/http';

describe('HTTP foundation', () => {
  it('answers the health check without auth when PostgreSQL and Temporal answer', async () => {
    const res = await api('GET', '/_healthcheck', { token: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', postgres: 'ok', temporal: 'ok' });
  });

  it('echoes a safe X-Request-Id and makes one up otherwise', async () => {
    const given = await api('GET', '/_healthcheck', { token: null, headers: { 'X-Request-Id': 'req-123' } });
    expect(given.headers.get('x-request-id')).toBe('req-123');
    const unsafe = await api('GET', '/_healthcheck', { token: null, headers: { 'X-Request-Id': 'bad id with spaces' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ['unknown route', 'GET', '/api/nothing-here', {}, 404, 'NOT_FOUND'],
    ['malformed JSON', 'POST', '/api/auth/clients', { rawBody: '{"name": ', headers: { 'Content-Type': 'application/json' } }, 400, 'VALIDATION'],
    ['non-JSON body', 'POST', '/api/auth/clients', { rawBody: 'name=x', headers: { 'Content-Type': 'text/plain' } }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [
      'JSON nested deeper than 64 levels',
      'POST',
      '/api/auth/clients',
      { rawBody: '{"name":"x","metadata":' + '['.repeat(70) + ']'.repeat(70) + '}', headers: { 'Content-Type': 'application/json' } },
      400,
      'VALIDATION',
    ],
    ['unknown body field', 'POST', '/api/auth/clients', { body: { name: 'x', nmae: 'typo' } }, 400, 'VALIDATION'],
    ['schema failure', 'POST', '/api/auth/clients', { body: { name: 42 } }, 400, 'VALIDATION'],
  ])('%s gets %s', async (_name, method, path, options, status, code) => {
    const res = await api(method as string, path as string, options as object);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ errorCode: code, errorMessage: expect.any(String) });
  });

  it('names the JSON path of a schema failure', async () => {
    const res = await api('POST', '/api/auth/clients', { body: { name: 'x', scopes: ['ledger:read', 7] } });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/^body\.scopes\[1\]/);
  });

  it('answers 405 with Allow for a known path and a wrong method', async () => {
    const res = await api('PATCH', '/api/auth/clients');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('HEAD, GET, POST');
    expect(res.body.errorCode).toBe('METHOD_NOT_ALLOWED');
  });

  it("routes within each area: a wrong method gets 405 with that path's methods, paths match without regard to case", async () => {
    const ledger = `routing-${Date.now()}`;
    expect((await api('POST', `/api/ledger/v2/${ledger}`)).status).toBe(204);
    const wrong = await api('PUT', `/api/ledger/v2/${ledger}/transactions`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
    const mixedCase = await api('GET', `/API/Ledger/V2/${ledger}`);
    expect(mixedCase.status).toBe(200);
    expect(mixedCase.body.data.name).toBe(ledger);
    expect((await api('GET', '/api/ledger2/v2')).status).toBe(404);
    expect((await api('GET', '/api')).body.errorCode).toBe('NOT_FOUND');
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const res = await api('POST', '/api/auth/clients', { body: { name: 'x', description: 'a'.repeat(1024 * 1024 + 10) } });
    expect(res.status).toBe(413);
    expect(res.body.errorCode).toBe('PAYLOAD_TOO_LARGE');
  });

  it('serves the OpenAPI 3.1 document and the docs page from local assets', async () => {
    const doc = await api('GET', '/api/openapi.json', { token: null });
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(doc.body.paths['/api/auth/clients/{clientId}'].get.security).toEqual([{ oauth2: ['auth:read'] }]);
    const page = await fetch(`${apiUrl()}/api/docs`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('/api/docs/swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\/(cdn|unpkg)/);
    const bundle = await fetch(`${apiUrl()}/api/docs/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });
});
