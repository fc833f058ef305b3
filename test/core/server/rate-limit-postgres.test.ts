import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter, type RateLimiter } from '../../../src/core/server/rate-limit.js';
import { PostgresRateLimiter } from '../../../src/core/server/rate-limit-postgres.js';
import { openPostgresStore, type PostgresStore } from '../../../src/core/store/index.js';
import { asOwner, openTestPostgresStore, TEST_DATABASE_URL } from '../../helpers/postgres.js';

const WINDOW = 60_000;
let first: PostgresStore;
let second: PostgresStore;
let schema: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ store: first, schema, cleanup } = await openTestPostgresStore({ maxConnections: 8 }));
  // A second replica: its own pool on the same schema.
  second = await openPostgresStore({ url: TEST_DATABASE_URL, schema, maxConnections: 8 });
});

afterAll(async () => {
  await second.close();
  await cleanup();
});

function limiter(store: PostgresStore, limit: number): PostgresRateLimiter {
  return new PostgresRateLimiter(store.db.pool, limit, WINDOW);
}

/** A small deterministic generator, so a failure replays the same sequence. */
function* randomSteps(seed: number, count: number): Generator<{ key: string; advance: number; take: boolean }> {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  for (let i = 0; i < count; i += 1) {
    yield { key: `k${Math.floor(next() * 3)}`, advance: Math.floor(next() * 4000), take: next() < 0.85 };
  }
}

describe('PostgresRateLimiter', () => {
  it('decides exactly as the in-memory limiter over a long random sequence of takes and peeks', async () => {
    const prefix = `parity-${Date.now()}-`;
    const shared: RateLimiter = limiter(first, 5);
    const memory = new MemoryRateLimiter(5, WINDOW);
    let now = 1_700_000_000_000;
    for (const step of randomSteps(7, 400)) {
      now += step.advance;
      const key = prefix + step.key;
      const [expected, actual] = step.take
        ? [await memory.take(key, now), await shared.take(key, now)]
        : [await memory.peek(key, now), await shared.peek(key, now)];
      expect(actual, `${step.take ? 'take' : 'peek'} ${key} at ${now}`).toEqual(expected);
    }
  });

  it('accepts exactly the limit in a window across two replicas taking at once, and counts no refusal', async () => {
    const key = `principal:race-${Date.now()}`;
    const replicas = [limiter(first, 600), limiter(second, 600)];
    const now = Date.now();
    const decisions = await Promise.all(
      Array.from({ length: 700 }, (_, i) => replicas[i % 2]!.take(key, now + (i % 50))),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(600);
    const refused = decisions.filter((d) => !d.allowed);
    expect(refused).toHaveLength(100);
    expect(refused.every((d) => d.remaining === 0 && d.resetSeconds >= 1 && d.resetSeconds <= 60)).toBe(true);
    const remaining = decisions.filter((d) => d.allowed).map((d) => d.remaining).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 600 }, (_, i) => i));
    const [row] = await asOwner<{ n: number }>(`SELECT cardinality(times) AS n FROM ${schema}.rate_windows WHERE key = $1`, [key]);
    expect(row?.n).toBe(600);
    // The window slides: once the first accepted call is a window old, exactly one more fits.
    const later = now + 49 + WINDOW;
    expect((await replicas[1]!.take(key, later)).allowed).toBe(true);
  });

  it('sweeps the rows of keys idle for a whole window', async () => {
    const shared = limiter(first, 3);
    const now = 1_800_000_000_000;
    await shared.take('idle-key', now);
    const count = async () =>
      (await asOwner<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.rate_windows WHERE key = 'idle-key'`))[0]?.n;
    expect(await count()).toBe(1);
    await shared.take('busy-key', now + WINDOW + 1);
    expect(await count()).toBe(0);
    expect((await shared.peek('idle-key', now + WINDOW + 2)).remaining).toBe(3);
  });
});
