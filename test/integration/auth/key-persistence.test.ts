import { control } from '../../support/control';
import { api, getToken } from '../../support/http';

describe('signing keys', () => {
  it('persist across an API restart, so live tokens stay valid', async () => {
    const token = await getToken('auth:read');
    const before = await fetch(`${process.env.TEST_API_URL}/api/auth/jwks`).then(
      (r) => r.json() as Promise<{ keys: Array<Record<string, unknown>> }>,
    );
    await control('api', 'restart');
    const after = await fetch(`${process.env.TEST_API_URL}/api/auth/jwks`).then((r) => r.json() as Promise<{ keys: Array<Record<string, unknown>> }>);
    expect(after).toEqual(before);
    expect(after.keys[0]).not.toHaveProperty('d');
    expect((await api('GET', '/api/auth/clients', { token })).status).toBe(200);
  });
});
