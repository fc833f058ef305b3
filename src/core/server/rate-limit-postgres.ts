import type pg from 'pg';
import type { RateDecision, RateLimiter } from './rate-limit.js';
import { ADDRESS_FAILURE_LIMIT, PRINCIPAL_LIMIT, RATE_WINDOW_MS, type RateLimitOptions } from './rate-limit-auth.js';

/**
 * The sliding-window limiter shared by every replica on one PostgreSQL database: the same decisions as
 * MemoryRateLimiter (a call is accepted exactly when fewer than `limit` were accepted in the `windowMs` before it;
 * refused calls are not counted), with the times kept in `rate_windows` and each take one atomic statement.
 */
export class PostgresRateLimiter implements RateLimiter {
  private lastSweep = 0;

  constructor(
    private readonly pool: pg.Pool,
    readonly limit: number,
    readonly windowMs: number,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`A rate limit must be a positive integer, not ${limit}`);
  }

  async take(key: string, now: number): Promise<RateDecision> {
    await this.sweep(now);
    return this.decide(key, now, 1);
  }

  async peek(key: string, now: number): Promise<RateDecision> {
    return this.decide(key, now, 0);
  }

  private async decide(key: string, now: number, cost: number): Promise<RateDecision> {
    const { rows } = await this.pool.query<{ used: number; kept: number; oldest: string | null }>(
      'SELECT used, kept, oldest FROM memory_rate_take($1, $2, $3, $4, $5)',
      [key, Math.floor(now), this.limit, this.windowMs, cost],
    );
    const { used, kept, oldest } = rows[0] ?? { used: 0, kept: 0, oldest: null };
    const allowed = used < this.limit;
    return {
      allowed,
      limit: this.limit,
      remaining: allowed ? this.limit - used - cost : 0,
      resetSeconds: kept === 0 || oldest === null ? 0 : Math.max(1, Math.ceil((Number(oldest) + this.windowMs - now) / 1000)),
    };
  }

  /**
   * At most once a window: keys whose newest accepted call left the window hold nothing, so their rows go and
   * one-off callers do not pile up.
   */
  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    await this.pool.query('DELETE FROM rate_windows WHERE coalesce(times[cardinality(times)], 0) <= $1', [
      Math.floor(now) - this.windowMs,
    ]);
  }
}

/**
 * The rate limits of a core that shares its database with other replicas: both counters (principals, and failed
 * authentications per address) live in PostgreSQL, with the limits and window of `options` (default the contract's).
 */
export function sharedRateLimits(pool: pg.Pool, options: RateLimitOptions = {}): RateLimitOptions {
  const windowMs = options.windowMs ?? RATE_WINDOW_MS;
  return {
    ...options,
    principals: options.principals ?? new PostgresRateLimiter(pool, options.perPrincipal ?? PRINCIPAL_LIMIT, windowMs),
    addresses: options.addresses ?? new PostgresRateLimiter(pool, options.perAddress ?? ADDRESS_FAILURE_LIMIT, windowMs),
  };
}
