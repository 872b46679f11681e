// A small in-process token bucket per client address (behind TRUSTED_PROXIES, the client they forward), for
// the endpoints anyone may call without an account (client registration, the token endpoint). Each instance
// limits on its own; that bounds abuse per process, which is what these endpoints need (their work is a hash
// and a row, not a platform call).
import type { MiddlewareHandler } from 'hono';
import { TooManyRequests } from '../../domain/shared/errors.js';
import { clientLimitKeyOf } from '../platform/client-address.js';

export interface BucketOptions {
  /** Requests allowed at once. */
  burst: number;
  /** Requests regained per minute. */
  perMinute: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly options: BucketOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one request's token; the seconds to wait when there is none. */
  take(key: string): { allowed: true } | { allowed: false; retryAfterSeconds: number } {
    const now = this.now();
    const perMs = this.options.perMinute / 60_000;
    const bucket = this.buckets.get(key) ?? { tokens: this.options.burst, at: now };
    bucket.tokens = Math.min(this.options.burst, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    if (this.buckets.size > 50_000) this.prune(now, perMs);
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)) };
  }

  /** Forgets buckets that have filled up again (they are the same as no bucket). */
  private prune(now: number, perMs: number): void {
    for (const [key, bucket] of this.buckets)
      if (bucket.tokens + (now - bucket.at) * perMs >= this.options.burst) this.buckets.delete(key);
  }
}

/** 429 with the spec's error body (`rate_limit_exceeded`, `retryAfterSeconds`) and Retry-After once spent. */
export function rateLimited(buckets: TokenBuckets): MiddlewareHandler {
  return async function rateLimitMiddleware(c, next) {
    const taken = buckets.take(clientLimitKeyOf(c));
    if (!taken.allowed)
      throw new TooManyRequests('Too many requests; try again later', taken.retryAfterSeconds);
    await next();
  };
}
