import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../../src/core/server/rate-limit.js';
import { startDemoCore, type TestCore } from '../../helpers/core.js';
import { call, mcp, toolCall, type Answer } from '../audit/helpers.js';

const T0 = Date.parse('2031-01-01T00:00:00Z');
const SECOND = 1000;

describe('MemoryRateLimiter: exact sliding window', () => {
  it('accepts `limit` calls in any window, refuses the next with the wait until the oldest leaves it', async () => {
    const limiter = new MemoryRateLimiter(3, 60 * SECOND);
    expect(await limiter.take('k', T0)).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
    expect(await limiter.take('k', T0 + 10 * SECOND)).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 50 });
    expect(await limiter.take('k', T0 + 20 * SECOND)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 40 });
    expect(await limiter.take('k', T0 + 30 * SECOND + 1)).toEqual({ allowed: false, limit: 3, remaining: 0, resetSeconds: 30 });
    // One millisecond before the first call leaves the window, it still counts; at 60 s it no longer does.
    expect((await limiter.take('k', T0 + 60 * SECOND - 1)).allowed).toBe(false);
    expect(await limiter.take('k', T0 + 60 * SECOND)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 10 });
    expect((await limiter.take('k', T0 + 60 * SECOND)).allowed).toBe(false);
  });

  it('does not count refused calls', async () => {
    const limiter = new MemoryRateLimiter(2, 60 * SECOND);
    await limiter.take('k', T0);
    await limiter.take('k', T0 + 30 * SECOND);
    for (let i = 0; i < 50; i += 1) expect((await limiter.take('k', T0 + 40 * SECOND)).allowed).toBe(false);
    expect((await limiter.take('k', T0 + 60 * SECOND)).allowed).toBe(true);
    expect(await limiter.take('k', T0 + 60 * SECOND)).toMatchObject({ allowed: false, resetSeconds: 30 });
  });

  it('rounds the wait up to whole seconds, never down to zero', async () => {
    const limiter = new MemoryRateLimiter(1, 60 * SECOND);
    await limiter.take('k', T0);
    expect((await limiter.take('k', T0 + 59_999)).resetSeconds).toBe(1);
    expect((await limiter.take('k', T0 + 58_500)).resetSeconds).toBe(2);
  });

  it('keeps keys apart, and peek counts nothing', async () => {
    const limiter = new MemoryRateLimiter(1, 60 * SECOND);
    expect(await limiter.peek('a', T0)).toEqual({ allowed: true, limit: 1, remaining: 1, resetSeconds: 0 });
    expect((await limiter.take('a', T0)).allowed).toBe(true);
    expect(await limiter.peek('a', T0)).toMatchObject({ allowed: false, remaining: 0 });
    expect((await limiter.take('b', T0)).allowed).toBe(true);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new MemoryRateLimiter(0, 60 * SECOND)).toThrow();
    expect(() => new MemoryRateLimiter(1.5, 60 * SECOND)).toThrow();
  });
});

function rateHeaders(answer: Answer): Record<string, string | null> {
  return {
    limit: answer.headers.get('ratelimit-limit'),
    remaining: answer.headers.get('ratelimit-remaining'),
    reset: answer.headers.get('ratelimit-reset'),
    retryAfter: answer.headers.get('retry-after'),
  };
}

describe('rate limits on a running core (the contract default: 600 per principal per 60 s)', () => {
  let t: TestCore;
  let now = T0;
  const READER = 0;

  beforeAll(async () => {
    t = await startDemoCore({ rateLimit: { now: () => now } });
  });
  afterAll(async () => t?.stop());

  it('accepts 600 calls in a window, refuses the 601st with an honest Retry-After, and reopens as calls age out', async () => {
    const first = await call(t, 'GET', '/deployments');
    expect(first.status).toBe(200);
    expect(rateHeaders(first)).toEqual({ limit: '600', remaining: '599', reset: '60', retryAfter: null });

    now = T0 + 30 * SECOND;
    const deployment = t.creds.deployments[0]!.id;
    for (let batch = 0; batch < 599; batch += 20) {
      const answers = await Promise.all(
        Array.from({ length: Math.min(20, 599 - batch) }, () => call(t, 'GET', `/deployments/${deployment}/topics?limit=1`)),
      );
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    }

    const refused = await call(t, 'GET', '/deployments');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ type: '/v1/problems/rate-limited', status: 429, request_id: refused.requestId });
    expect(rateHeaders(refused)).toEqual({ limit: '600', remaining: '0', reset: '30', retryAfter: '30' });
    // Refused calls do not count: at 60 s exactly the one call made at 0 s has left the window.
    for (let i = 0; i < 5; i += 1) expect((await call(t, 'GET', '/deployments')).status).toBe(429);

    now = T0 + 60 * SECOND - 1;
    expect((await call(t, 'GET', '/deployments')).status).toBe(429);
    now = T0 + 60 * SECOND;
    const reopened = await call(t, 'GET', '/deployments');
    expect(reopened.status).toBe(200);
    expect(rateHeaders(reopened)).toMatchObject({ remaining: '0', reset: '30' });
    expect(rateHeaders(await call(t, 'GET', '/deployments'))).toMatchObject({ retryAfter: '30' });

    now = T0 + 90 * SECOND;
    expect(rateHeaders(await call(t, 'GET', '/deployments'))).toMatchObject({ limit: '600', remaining: '598', retryAfter: null });
  });

  it('limits each principal on its own', async () => {
    now = T0 + 30 * 60 * SECOND;
    expect(rateHeaders(await call(t, 'GET', '/deployments', { principal: 1 }))).toMatchObject({ remaining: '599' });
    expect(rateHeaders(await call(t, 'GET', '/deployments', { principal: READER }))).toMatchObject({ remaining: '599' });
  });
});

describe('rate limits shared by REST and MCP, and per address for calls without a usable token', () => {
  let t: TestCore;
  let now = T0;
  const PER_PRINCIPAL = 4;
  const PER_ADDRESS = 3;

  beforeAll(async () => {
    t = await startDemoCore({ rateLimit: { perPrincipal: PER_PRINCIPAL, perAddress: PER_ADDRESS, now: () => now } });
  });
  afterAll(async () => t?.stop());

  it('counts REST and MCP calls of a principal together, with RateLimit headers on both', async () => {
    now = T0;
    const deployment = t.creds.deployments[0]!.id;
    const rest1 = await call(t, 'GET', '/deployments');
    const mcp1 = await mcp(t, toolCall('listTopics', { deployment_id: deployment }));
    expect(rateHeaders(mcp1)).toMatchObject({ limit: String(PER_PRINCIPAL), remaining: '2' });
    const rest2 = await call(t, 'GET', '/deployments');
    const mcp2 = await mcp(t, { id: 2, method: 'tools/list' });
    expect([rest1, mcp1, rest2, mcp2].map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(rateHeaders(mcp2)).toMatchObject({ remaining: '0' });

    const refusedMcp = await mcp(t, toolCall('listTopics', { deployment_id: deployment }));
    expect(refusedMcp.status).toBe(429);
    expect(rateHeaders(refusedMcp)).toMatchObject({ retryAfter: '60', remaining: '0' });
    expect((await call(t, 'GET', '/deployments')).status).toBe(429);
  });

  it('sends RateLimit headers on refusals of a known caller too (403, 404)', async () => {
    now = T0 + 10 * 60 * SECOND;
    const forbidden = await call(t, 'GET', `/deployments/${t.creds.deployments[1]!.id}/topics`);
    expect(forbidden.status).toBe(403);
    expect(rateHeaders(forbidden)).toMatchObject({ limit: String(PER_PRINCIPAL), remaining: '3' });
    const missing = await call(t, 'GET', `/deployments/${t.creds.deployments[0]!.id}/decisions/nope`);
    expect(missing.status).toBe(404);
    expect(rateHeaders(missing)).toMatchObject({ remaining: '2' });
  });

  it('refuses an address after too many 401s in the window, before checking any token, until they age out', async () => {
    now = T0 + 20 * 60 * SECOND;
    const failures = [
      await call(t, 'GET', '/deployments', { principal: null }),
      await call(t, 'GET', '/deployments', { token: 'not-a-token' }),
      await mcp(t, { id: 1, method: 'tools/list' }, null),
    ];
    expect(failures.map((answer) => answer.status)).toEqual([401, 401, 401]);
    expect(rateHeaders(failures[0]!)).toEqual({ limit: null, remaining: null, reset: null, retryAfter: null });

    now += 10 * SECOND;
    const blocked = await call(t, 'GET', '/deployments', { principal: null });
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toBe('50');
    // Refused before the token is looked at: a guess, right or wrong, learns nothing from this address.
    expect((await call(t, 'GET', '/deployments', { principal: 1 })).status).toBe(429);

    now += 50 * SECOND;
    expect((await call(t, 'GET', '/deployments', { principal: null })).status).toBe(401);
    expect((await call(t, 'GET', '/deployments', { principal: 1 })).status).toBe(200);
  });
});
