import { inTokenRequest, tokenRequestContext } from '../../api/auth/oidc-adapter';

const enabled = () => (tokenRequestContext as unknown as { enabled: boolean }).enabled;
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('token request context', () => {
  it('is visible to each request, and the storage is disabled once no token request is in flight', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = inTokenRequest({ authMethod: 'client_secret_post' }, async () => {
      await gate;
      return tokenRequestContext.getStore()?.authMethod;
    });
    const fast = await inTokenRequest({ authMethod: 'client_secret_basic' }, async () => {
      await tick();
      return tokenRequestContext.getStore()?.authMethod;
    });
    expect(fast).toBe('client_secret_basic');
    expect(enabled()).toBe(true); // the slow request still needs its store
    release();
    expect(await slow).toBe('client_secret_post');
    expect(enabled()).toBe(false);
    expect(tokenRequestContext.getStore()).toBeUndefined();
  });
});
