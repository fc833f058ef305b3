import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clearV1Schedule,
  getV1Schedule,
  setV1Schedule,
  versionHeaders,
} from '../../../src/core/server/versioning.js';
import { startDemoCore, type TestCore } from '../../helpers/core.js';
import { call, mcp, type Answer } from '../audit/helpers.js';

const NOW = new Date('2031-03-01T12:00:00Z');
const DAY = 24 * 60 * 60 * 1000;

function after(days: number, from = NOW.getTime()): string {
  return new Date(from + days * DAY).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

let t: TestCore;

beforeAll(async () => {
  t = await startDemoCore();
});
afterAll(async () => t?.stop());

async function refusal(input: unknown): Promise<{ status: number; invalidParams: { name: string }[] }> {
  const error = (await setV1Schedule(t.core.store, input, NOW).catch((caught: unknown) => caught)) as {
    status: number;
    invalidParams: { name: string }[];
  };
  return { status: error.status, invalidParams: error.invalidParams };
}

function versioning(answer: Answer): { deprecation: string | null; sunset: string | null } {
  return { deprecation: answer.headers.get('deprecation'), sunset: answer.headers.get('sunset') };
}

describe('versioning: the end of v1', () => {
  it('sends neither header while no schedule is set', async () => {
    expect(await getV1Schedule(t.core.store)).toBeNull();
    expect(versioning(await call(t, 'GET', '/deployments'))).toEqual({ deprecation: null, sunset: null });
  });

  it('refuses a deprecation less than 90 days out and a sunset less than 180 days after the deprecation', async () => {
    expect(await refusal({ deprecation_at: after(89), sunset_at: after(400) })).toEqual({
      status: 400,
      invalidParams: [expect.objectContaining({ name: 'deprecation_at', in: 'body' })],
    });
    expect(await refusal({ deprecation_at: after(100), sunset_at: after(279) })).toEqual({
      status: 400,
      invalidParams: [expect.objectContaining({ name: 'sunset_at', in: 'body' })],
    });
    expect((await refusal({ deprecation_at: after(10), sunset_at: after(100) })).invalidParams.map((p) => p.name)).toEqual([
      'deprecation_at',
      'sunset_at',
    ]);
    expect(await getV1Schedule(t.core.store)).toBeNull();
  });

  it('refuses malformed and unknown fields', async () => {
    for (const bad of [
      {},
      { deprecation_at: '2031-02-30', sunset_at: after(400) },
      { deprecation_at: '2031-06-01T00:00:00.000Z', sunset_at: after(400) },
      { deprecation_at: after(100), sunset_at: after(400), notice: 'email' },
    ]) {
      expect((await refusal(bad)).status).toBe(400);
    }
  });

  it('accepts the exact minimums, and a date as midnight UTC', async () => {
    const exact = await setV1Schedule(t.core.store, { deprecation_at: after(90), sunset_at: after(270) }, NOW);
    expect(exact).toEqual({ deprecation_at: after(90), sunset_at: after(270), set_at: after(0) });
    const dated = await setV1Schedule(t.core.store, { deprecation_at: '2031-07-01', sunset_at: '2032-01-01' }, NOW);
    expect(dated).toMatchObject({ deprecation_at: '2031-07-01T00:00:00Z', sunset_at: '2032-01-01T00:00:00Z' });
    expect(await getV1Schedule(t.core.store)).toEqual(dated);
  });

  it('formats Deprecation as @unix-seconds (RFC 9745) and Sunset as an HTTP-date (RFC 8594)', () => {
    expect(versionHeaders({ deprecation_at: '2031-07-01T00:00:00Z', sunset_at: '2032-01-01T00:00:00Z', set_at: after(0) })).toEqual({
      deprecation: `@${Date.parse('2031-07-01T00:00:00Z') / 1000}`,
      sunset: 'Thu, 01 Jan 2032 00:00:00 GMT',
    });
  });

  it('puts both headers on every response once scheduled: reads, refusals, MCP, unknown routes and documents', async () => {
    await setV1Schedule(t.core.store, { deprecation_at: '2031-07-01', sunset_at: '2032-01-01' }, NOW);
    const expected = { deprecation: '@1940630400', sunset: 'Thu, 01 Jan 2032 00:00:00 GMT' };
    const answers = [
      await call(t, 'GET', '/deployments'),
      await call(t, 'GET', '/deployments', { principal: null }),
      await call(t, 'GET', `/deployments/${t.creds.deployments[1]!.id}/topics`),
      await call(t, 'GET', '/no-such-route'),
      await call(t, 'GET', '/health', { principal: null }),
      await mcp(t, { id: 1, method: 'tools/list' }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 403, 404, 200, 200]);
    for (const answer of answers) expect(versioning(answer)).toEqual(expected);
  });

  it('drops the headers when the schedule is cleared', async () => {
    await clearV1Schedule(t.core.store);
    expect(await getV1Schedule(t.core.store)).toBeNull();
    expect(versioning(await call(t, 'GET', '/deployments'))).toEqual({ deprecation: null, sunset: null });
  });
});
