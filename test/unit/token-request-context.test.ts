import { inTokenRequest, tokenRequestContext } from '../../api/auth/oidc-adapter';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A continuation of the current request that runs only when resumed: it reads the store as that request's code would. */
function continuation(): { resume: () => void; seen: Promise<string | undefined> } {
  let resume!: () => void;
  const seen = new Promise<void>((resolve) => (resume = resolve)).then(() => tokenRequestContext.getStore()?.authMethod);
  return { resume, seen };
}

describe('token request context', () => {
  it('is visible to each request, and the storage is disabled once no token request is in flight', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = inTokenRequest({ authMethod: 'client_secret_post' }, async () => {
      await gate;
      return tokenRequestContext.getStore()?.authMethod;
    });
    let early!: ReturnType<typeof continuation>;
    let late!: ReturnType<typeof continuation>;
    const fast = await inTokenRequest({ authMethod: 'client_secret_basic' }, async () => {
      await tick();
      [early, late] = [continuation(), continuation()];
      return tokenRequestContext.getStore()?.authMethod;
    });
    expect(fast).toBe('client_secret_basic');
    // The slow request still needs its store, so the storage stays enabled: a late continuation still sees its own.
    early.resume();
    expect(await early.seen).toBe('client_secret_basic');
    release();
    expect(await slow).toBe('client_secret_post');
    // Disabled once none is in flight: no continuation sees a store any more.
    late.resume();
    expect(await late.seen).toBeUndefined();
    expect(tokenRequestContext.getStore()).toBeUndefined();
  });
});
