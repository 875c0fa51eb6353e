import type { Config } from '../../lib/config';
import { ApiError } from '../../lib/errors';

/**
 * Per-client token buckets, in memory per API process: a client may burst up to `burst` requests, then `ratePerSecond`.
 * With N API replicas a client gets up to N times the rate; that is the documented trade-off for not needing a shared
 * store on every request.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updated: number }>();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
  ) {}

  /** The limiter the settings ask for (RATE_LIMIT_PER_SECOND, RATE_LIMIT_BURST); none when the rate is 0. */
  static fromConfig(config: Pick<Config, 'rateLimitPerSecond' | 'rateLimitBurst'>): RateLimiter | undefined {
    if (config.rateLimitPerSecond === 0) return undefined;
    return new RateLimiter(config.rateLimitPerSecond, config.rateLimitBurst);
  }

  /** Takes one token for `key`; throws 429 TOO_MANY_REQUESTS with Retry-After (whole seconds) when none is left. */
  take(key: string, now = Date.now()): void {
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, updated: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.updated) / 1000) * this.ratePerSecond);
    bucket.updated = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens < 1) {
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond));
      throw new ApiError('TOO_MANY_REQUESTS', `rate limit of ${this.ratePerSecond} requests/s exceeded for this client`, {
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
    bucket.tokens -= 1;
    if (this.buckets.size > 100_000) this.evictIdle(now);
  }

  private evictIdle(now: number): void {
    for (const [key, bucket] of this.buckets) if (now - bucket.updated > 60_000) this.buckets.delete(key);
  }
}
