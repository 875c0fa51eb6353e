import { sdkClient } from './sdk-client';

/** Every method of Formance's `auth.v1` through the official SDK. */
const auth = sdkClient().auth.v1;

describe('contract: auth.v1 through the Formance SDK', () => {
  test('getServerInfoAuth', async () => {
    expect(typeof (await auth.getServerInfoAuth()).serverInfo!.version).toBe('string');
  });

  test('getOIDCWellKnowns', async () => {
    expect((await auth.getOIDCWellKnowns()).statusCode).toBe(200);
  });

  test('createClient, readClient, updateClient, listClients, createSecret, deleteSecret, deleteClient', async () => {
    const name = `contract-${Date.now()}`;
    const created = (await auth.createClient({ name, scopes: ['ledger:read'], metadata: { suite: 'contract' } })).createClientResponse!.data!;
    expect((await auth.readClient({ clientId: created.id })).readClientResponse!.data!.name).toBe(name);
    await auth.updateClient({ clientId: created.id, clientOptions: { name: `${name}-b`, scopes: ['ledger:write'] } });
    expect((await auth.readClient({ clientId: created.id })).readClientResponse!.data!.scopes).toEqual(['ledger:write']);
    expect((await auth.listClients()).listClientsResponse!.data!.map((c) => c.id)).toContain(created.id);
    const secret = (await auth.createSecret({ clientId: created.id, secretOptions: { name: 's1' } })).createSecretResponse!.data!;
    expect(secret.clear ?? '').toMatch(/\S/);
    expect((await auth.deleteSecret({ clientId: created.id, secretId: secret.id })).statusCode).toBe(204);
    expect((await auth.deleteClient({ clientId: created.id })).statusCode).toBe(204);
  });

  test('listUsers is empty without an external OIDC issuer; readUser is then a 404', async () => {
    expect((await auth.listUsers()).listUsersResponse!.data).toEqual([]);
    await expect(auth.readUser({ userId: 'nobody' })).rejects.toMatchObject({ statusCode: 404 });
  });
});
