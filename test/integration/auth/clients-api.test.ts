import { api } from '../../support/http';

describe('clients API (ops 1 and 2)', () => {
  it('creates, reads, lists, updates and deletes a client in the spec\'s shape', async () => {
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
      body: { name: 'billing-v2', description: 'pays', trusted: true, redirectUris: ['https://app.example/cb'], scopes: ['ledger:write'], metadata: { team: 'fin' } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ name: 'billing-v2', description: 'pays', trusted: true, redirectUris: ['https://app.example/cb'], scopes: ['ledger:write'], metadata: { team: 'fin' } });

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
});
