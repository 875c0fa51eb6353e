import net from 'node:net';
import { api, apiUrl, getToken } from '../../support/http';

/** Regression tests for what the API fuzzer found: each of these answered 500 or reset the connection before. */
describe('fuzzer findings', () => {
  it('refuses NUL and unpaired surrogates in bodies, keys, query and path with 400 instead of a database error', async () => {
    const wallet = await api('POST', '/api/wallets/wallets', { body: { name: 'nul-test' } });
    expect(wallet.status).toBe(201);
    const nulValue = await api('PATCH', `/api/wallets/wallets/${wallet.body.data.id}`, { body: { metadata: { a: 'x\u0000y' } } });
    expect(nulValue.status).toBe(400);
    expect(nulValue.body.errorMessage).toMatch(/body\.metadata\.a: text must not contain NUL/);
    const nulKey = await api('POST', '/api/ledger/v2/_default/accounts/users:1/metadata', {
      rawBody: '{"a\\u0000": "b"}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(nulKey.status).toBe(400);
    const loneSurrogate = await api('POST', '/api/payments/v3/bank-accounts', {
      rawBody: '{"name": "\\ud800", "accountNumber": "1234"}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(loneSurrogate.status).toBe(400);
    const inPath = await api('GET', '/api/ledger/v2/a%00b');
    expect(inPath.status).toBe(400);
    // A well-formed surrogate pair (an emoji) is ordinary text.
    const emoji = await api('PATCH', `/api/wallets/wallets/${wallet.body.data.id}`, { body: { metadata: { a: 'ok \ud83d\ude00' } } });
    expect(emoji.status).toBe(204);
  });

  it('answers 404 for a client secret id that is not a UUID', async () => {
    const client = await api('POST', '/api/auth/clients', { body: { name: 'secret-id-test' } });
    expect(client.status).toBe(201);
    const res = await api('DELETE', `/api/auth/clients/${client.body.data.id}/secrets/00`);
    expect(res.status).toBe(404);
  });

  it('refuses client metadata that is not a string (Formance clients read it as strings), even an integer beyond 2^53', async () => {
    const client = await api('POST', '/api/auth/clients', { body: { name: 'big-metadata' } });
    const res = await api('PUT', `/api/auth/clients/${client.body.data.id}`, {
      rawBody: '{"name": "big-metadata", "metadata": {"n": -119376612231942078464}}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/body\.metadata\.n/);
    expect((await api('GET', `/api/auth/clients/${client.body.data.id}`)).body.data.metadata).toEqual({});
    await api('DELETE', `/api/auth/clients/${client.body.data.id}`);
  });

  it('answers an oversized request line with a readable 431 even while the client is still sending', async () => {
    const token = await getToken();
    const { hostname, port } = new URL(apiUrl());
    const request = `GET /api/ledger/v2?x=${'a'.repeat(90_000)} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\n\r\n`;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => socket.end(request));
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString()));
      socket.on('close', () => resolve(data));
      socket.on('error', (error) => (data ? resolve(data) : reject(error)));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain('"errorCode":"HEADERS_TOO_LARGE"');
  });

  it('documents the docs asset path parameter and answers 404 for an unknown asset', async () => {
    const doc = await api('GET', '/api/openapi.json');
    expect(doc.body.paths['/api/docs/{asset}'].get.parameters).toEqual([expect.objectContaining({ name: 'asset', in: 'path', required: true })]);
    expect((await api('GET', '/api/docs/nope.js', { token: null })).status).toBe(404);
  });
});
