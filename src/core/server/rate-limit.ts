/** What a limiter says about one call. */
export interface RateDecision {
  allowed: boolean;
  /** Calls a key may make in any window. */
  limit: number;
  /** Calls left in the window that ends now, after this one. */
  remaining: number;
  /**
   * Whole seconds until the oldest counted call leaves the window and a slot frees (0 when none is counted).
   * On a refusal this is the honest `Retry-After`: waiting it is enough for the next call to be accepted.
   */
  resetSeconds: number;
}

/**
 * Counts accepted calls per key in a sliding window. Refused calls are not counted. The in-memory limiter serves
 * one process; several replicas share one that keeps the counts in PostgreSQL.
 */
export interface RateLimiter {
  /** Counts one call for `key` at `now` (ms since the epoch) if the window has room. */
  take(key: string, now: number): Promise<RateDecision>;
  /** What `take` would decide, without counting anything. */
  peek(key: string, now: number): Promise<RateDecision>;
}

/** The acceptance times of one key, oldest first, in a ring as long as the limit. */
class Ring {
  private readonly times: Float64Array;
  private start = 0;
  size = 0;

  constructor(capacity: number) {
    this.times = new Float64Array(capacity);
  }

  oldest(): number {
    return this.times[this.start]!;
  }

  newest(): number {
    return this.times[(this.start + this.size - 1) % this.times.length]!;
  }

  push(time: number): void {
    this.times[(this.start + this.size) % this.times.length] = time;
    this.size += 1;
  }

  dropOldest(): void {
    this.start = (this.start + 1) % this.times.length;
    this.size -= 1;
  }
}

/**
 * Exact sliding window in memory: each key keeps the times of its last `limit` accepted calls, so a call is
 * accepted exactly when fewer than `limit` were accepted in the `windowMs` before it. Keys idle for a whole
 * window are swept, so addresses that called once do not pile up.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly rings = new Map<string, Ring>();
  private lastSweep = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`A rate limit must be a positive integer, not ${limit}`);
  }

  async take(key: string, now: number): Promise<RateDecision> {
    this.sweep(now);
    let ring = this.rings.get(key);
    const decision = this.decide(ring, now, 1);
    if (decision.allowed) {
      if (!ring) {
        ring = new Ring(this.limit);
        this.rings.set(key, ring);
      }
      ring.push(now);
      decision.resetSeconds = this.secondsUntilFree(ring, now);
    }
    return decision;
  }

  async peek(key: string, now: number): Promise<RateDecision> {
    return this.decide(this.rings.get(key), now, 0);
  }

  /** Expires what left the window, then decides whether `cost` more calls fit. */
  private decide(ring: Ring | undefined, now: number, cost: number): RateDecision {
    if (ring) while (ring.size > 0 && ring.oldest() <= now - this.windowMs) ring.dropOldest();
    const used = ring?.size ?? 0;
    const allowed = used < this.limit;
    return {
      allowed,
      limit: this.limit,
      remaining: allowed ? this.limit - used - cost : 0,
      resetSeconds: ring ? this.secondsUntilFree(ring, now) : 0,
    };
  }

  private secondsUntilFree(ring: Ring, now: number): number {
    return ring.size === 0 ? 0 : Math.max(1, Math.ceil((ring.oldest() + this.windowMs - now) / 1000));
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [key, ring] of this.rings) if (ring.size === 0 || ring.newest() <= now - this.windowMs) this.rings.delete(key);
  }
}
