import { api } from '../../support/http';

describe('clients API (ops 1 and 2)', () => {
  it("creates, reads, lists, updates and deletes a client in the spec's shape", async () => {
    const created = await api('POST', '/api/auth/clients', { body: { name: 'billing', scopes: ['ledger:read'] } });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect(created.body.data).toEqual({
      id,
      name: 'billing',
      description: '',
      public: false,
      trusted: false,
      redirectUris: [],
      postLogoutRedirectUris: [],
      scopes: ['ledger:read'],
      metadata: {},
      secrets: [],
    });

    const read = await api('GET', `/api/auth/clients/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ data: created.body.data });

    const list = await api('GET', '/api/auth/clients');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual(expect.arrayContaining([created.body.data]));

    const updated = await api('PUT', `/api/auth/clients/${id}`, {
      body: {
        name: 'billing-v2',
        description: 'pays',
        trusted: true,
        redirectUris: ['https://app.example/cb'],
        scopes: ['ledger:write'],
        metadata: { team: 'fin' },
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      name: 'billing-v2',
      description: 'pays',
      trusted: true,
      redirectUris: ['https://app.example/cb'],
      scopes: ['ledger:write'],
      metadata: { team: 'fin' },
    });

    const secret = await api('POST', `/api/auth/clients/${id}/secrets`, { body: { name: 'k' } });
    expect((await api('DELETE', `/api/auth/clients/${id}/secrets/${secret.body.data.id}`)).status).toBe(204);
    expect((await api('DELETE', `/api/auth/clients/${id}/secrets/${secret.body.data.id}`)).status).toBe(404);

    expect((await api('DELETE', `/api/auth/clients/${id}`)).status).toBe(204);
    const gone = await api('GET', `/api/auth/clients/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ errorCode: 'NOT_FOUND', errorMessage: `client "${id}" not found` });
  });

  it.each([
    ['missing name', {}],
    ['unknown scope', { name: 'x', scopes: ['ledger:admin'] }],
    ['non-URI redirect', { name: 'x', redirectUris: ['not a uri'] }],
    ['unknown field', { name: 'x', secret: 'nope' }],
  ])('refuses a client with %s', async (_name, body) => {
    const res = await api('POST', '/api/auth/clients', { body });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
  });

  // OAuth 2.1 / RFC 8252: https, http on loopback only, private-use schemes in reverse domain notation; no fragment.
  it.each([
    ['javascript:', 'redirectUris', ['javascript:alert(document.domain)'], 'the javascript: scheme is never allowed'],
    ['JavaScript: in capitals', 'redirectUris', ['https://app.example/cb', 'JavaScript:alert(1)'], 'the javascript: scheme is never allowed'],
    ['data:', 'redirectUris', ['data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=='], 'the data: scheme is never allowed'],
    ['file:', 'postLogoutRedirectUris', ['file:///etc/passwd'], 'the file: scheme is never allowed'],
    ['vbscript:', 'redirectUris', ['vbscript:msgbox(1)'], 'the vbscript: scheme is never allowed'],
    ['a fragment', 'redirectUris', ['https://app.example/cb#frag'], 'must not contain a fragment'],
    ['http on a public host', 'redirectUris', ['http://app.example/cb'], 'http is allowed only on a loopback address'],
    ['a scheme that is not reverse-domain', 'postLogoutRedirectUris', ['myapp:/cb'], 'the myapp: scheme is not allowed'],
  ])('refuses a redirect URI with %s, naming the field, on creation and on replacement', async (_name, field, uris, reason) => {
    const index = (uris as string[]).length - 1;
    const created = await api('POST', '/api/auth/clients', { body: { name: 'redirects', [field as string]: uris } });
    expect(created.status).toBe(400);
    expect(created.body.errorCode).toBe('VALIDATION');
    expect(created.body.errorMessage).toContain(`body.${field}[${index}]: ${reason}`);

    const client = await api('POST', '/api/auth/clients', { body: { name: 'redirects' } });
    const replaced = await api('PUT', `/api/auth/clients/${client.body.data.id}`, { body: { name: 'redirects', [field as string]: uris } });
    expect(replaced.status).toBe(400);
    expect(replaced.body.errorMessage).toContain(`body.${field}[${index}]: ${reason}`);
    expect((await api('GET', `/api/auth/clients/${client.body.data.id}`)).body.data[field as string]).toEqual([]);
  });

  it('accepts https, http on loopback addresses and private-use reverse-domain schemes', async () => {
    const redirectUris = [
      'https://app.example/cb?x=1',
      'http://127.0.0.1:8400/cb',
      'http://[::1]:8400/cb',
      'http://localhost/cb',
      'com.example.app:/oauth2redirect',
    ];
    const created = await api('POST', '/api/auth/clients', {
      body: { name: 'native', redirectUris, postLogoutRedirectUris: ['https://app.example/bye'] },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ redirectUris, postLogoutRedirectUris: ['https://app.example/bye'] });
  });
});
