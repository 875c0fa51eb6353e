import { RateLimiter } from '../../api/middleware/rate-limit';
import { loadConfig } from '../../lib/config';

describe('per-client rate limit', () => {
  it('allows the burst, then refuses with 429 and a Retry-After until tokens refill', () => {
    const limiter = new RateLimiter(2, 3);
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) limiter.take('client-a', t0);
    let refused: any;
    try {
      limiter.take('client-a', t0);
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ status: 429, code: 'TOO_MANY_REQUESTS', headers: { 'Retry-After': '1' } });
    expect(() => limiter.take('client-b', t0)).not.toThrow();
    expect(() => limiter.take('client-a', t0 + 500)).not.toThrow();
  });

  it('is disabled by RATE_LIMIT_PER_SECOND=0', () => {
    expect(RateLimiter.fromConfig(loadConfig({ RATE_LIMIT_PER_SECOND: '0' }))).toBeUndefined();
    expect(RateLimiter.fromConfig(loadConfig({}))).toBeInstanceOf(RateLimiter);
  });
});
