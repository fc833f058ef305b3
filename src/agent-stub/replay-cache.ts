/** What remembering a key found: new (now recorded), already seen, or no room left. */
export type ReplayVerdict = 'recorded' | 'replayed' | 'full';

/**
 * Remembers which (invocation, round) pairs were served, each until its request would be refused as stale anyway.
 * Bounded: when every slot holds a live entry it answers `full` instead of evicting one, because forgetting a
 * live entry would let that request be replayed.
 */
export class ReplayCache {
  private readonly expiries = new Map<string, number>();

  constructor(private readonly capacity: number) {}

  /** Records `key` until `expiresAtMs` unless it is already held (a replay) or the cache is full of live entries. */
  remember(key: string, expiresAtMs: number, nowMs: number): ReplayVerdict {
    const held = this.expiries.get(key);
    if (held !== undefined && held > nowMs) return 'replayed';
    if (held === undefined && this.expiries.size >= this.capacity) {
      this.sweep(nowMs);
      if (this.expiries.size >= this.capacity) return 'full';
    }
    this.expiries.set(key, expiresAtMs);
    return 'recorded';
  }

  /** How many entries are held, expired ones included until the next sweep. */
  get size(): number {
    return this.expiries.size;
  }

  private sweep(nowMs: number): void {
    for (const [key, expiresAt] of this.expiries) {
      if (expiresAt <= nowMs) this.expiries.delete(key);
    }
  }
}
