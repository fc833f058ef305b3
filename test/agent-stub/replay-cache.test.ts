import { describe, expect, it } from 'vitest';
import { ReplayCache } from '../../src/agent-stub/replay-cache.js';

describe('ReplayCache', () => {
  it('recognises a key while it lives and forgets it after it expires', () => {
    const cache = new ReplayCache(10);
    expect(cache.remember('a:1', 2000, 1000)).toBe('recorded');
    expect(cache.remember('a:1', 2500, 1500)).toBe('replayed');
    expect(cache.remember('a:2', 2500, 1500)).toBe('recorded');
    expect(cache.remember('a:1', 4000, 2000)).toBe('recorded');
  });

  it('makes room by sweeping expired entries, and reports full when all are live', () => {
    const cache = new ReplayCache(2);
    cache.remember('a', 1500, 1000);
    cache.remember('b', 5000, 1000);
    expect(cache.remember('c', 5000, 1200)).toBe('full');
    expect(cache.remember('c', 5000, 2000)).toBe('recorded');
    expect(cache.size).toBe(2);
    expect(cache.remember('b', 5000, 2000)).toBe('replayed');
  });
});
