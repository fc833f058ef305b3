import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from './harness/http.js';
import { BUDGET, MODE } from './harness/mode.js';
import { addPrincipal, tokenOf, type TestPrincipal } from './harness/principals.js';
import { writeSuiteResult } from './harness/results.js';
import { killServe, residentKib, startServe, type ServeChild } from './harness/serve-child.js';
import { prepareDemoDataDir } from './harness/served-demo.js';
import { latencyThirds, rssTrend, type LatencySample, type RssSample } from './harness/soak-stats.js';
import { trafficPlanner, type SoakTargets, type TrafficKind } from './harness/soak-traffic.js';

/**
 * A steady mix of reads, searches, actions, MCP tool calls and refused input against the built `memory serve`,
 * for BUDGET.soakSeconds at BUDGET.soakRate requests a second. Holds: no answer other than the one each request
 * expects (so no 5xx, no 429 under the limits, no connection error), p99 latency of the last third close to the
 * first third's, and resident memory flat after a warm-up. Traffic goes only to 127.0.0.1 and is bounded.
 */
const PRINCIPALS = 8;
/** Requests in flight at most; past it the planner waits, so a stalled core cannot pile up sockets. */
const MAX_IN_FLIGHT = 64;
const long = MODE === 'long';
/** p99 of the last third may be at most this factor of the first third's, plus this many ms. */
const P99_FACTOR = long ? 2 : 3;
const P99_SLACK_MS = long ? 50 : 150;
/** Resident memory may grow after the warm-up by at most this fraction or this many MiB, whichever is larger. */
const RSS_FRACTION = long ? 0.15 : 0.25;
const RSS_SLACK_MIB = long ? 40 : 48;
const WARMUP = 0.2;

let dataDir: string;
let principals: TestPrincipal[];
let targets: SoakTargets;
let child: ServeChild | null = null;

beforeAll(async () => {
  const prepared = await prepareDemoDataDir('mm-soak-', async (store, tenantId, deploymentIds) => {
    const scope = { tenantId, deploymentId: deploymentIds[0]! };
    const grant = [{ deploymentId: scope.deploymentId, access: 'read_write' as const }];
    const decisions = await store.list('decision', scope, { order: 'desc', limit: 1000 });
    return {
      principals: await Promise.all(Array.from({ length: PRINCIPALS }, (_, i) => addPrincipal(store, tenantId, `soak-${i}`, grant))),
      targets: {
        deploymentId: scope.deploymentId,
        decisions: decisions.map((record) => record.id),
        questions: (await store.list('open_question', scope, { order: 'desc', limit: 1000 })).map((record) => record.id),
        items: (await store.list('action_item', scope, { order: 'desc', limit: 1000 })).map((record) => record.id),
        meetings: [...new Set(decisions.map((record) => record.meeting_id))],
      },
    };
  });
  dataDir = prepared.dataDir;
  ({ principals, targets } = prepared.extra);
}, 120_000);

afterAll(async () => {
  if (child) await killServe(child, 'SIGTERM');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe(`soak (${MODE}: ${BUDGET.soakSeconds} s at ${BUDGET.soakRate} requests/s)`, () => {
  it(
    'serves a steady mixed load with no unexpected answer, a stable p99 and flat resident memory',
    async () => {
      child = await startServe(dataDir, { demo: false });
      const running = child;
      const writers = await Promise.all(principals.map((principal) => tokenOf(running.origin, principal)));
      const plan = trafficPlanner(targets, { writers }, 3_000);
      const latencies: LatencySample[] = [];
      const rss: RssSample[] = [];
      const unexpected: string[] = [];
      const served = new Map<TrafficKind, number>();
      const durationMs = BUDGET.soakSeconds * 1000;
      const start = Date.now();
      const sampler = setInterval(() => rss.push({ at: Date.now() - start, kib: residentKib(running.pid) }), 1000);
      const inFlight = new Set<Promise<void>>();
      let next = start;
      try {
        while (Date.now() - start < durationMs) {
          const planned = plan();
          const at = Date.now() - start;
          const done: Promise<void> = send(running.origin, planned.request, 15_000)
            .then(
              (answer) => {
                latencies.push({ at, ms: answer.ms });
                served.set(planned.kind, (served.get(planned.kind) ?? 0) + 1);
                if (!planned.expected(answer)) unexpected.push(`${planned.kind} ${planned.request.method} ${planned.request.path} -> ${answer.status} ${answer.text.slice(0, 200)}`);
              },
              (error: Error) => void unexpected.push(`${planned.kind} ${planned.request.method} ${planned.request.path} -> ${error.message}`),
            )
            .finally(() => inFlight.delete(done));
          inFlight.add(done);
          if (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
          next += 1000 / BUDGET.soakRate;
          await sleep(Math.max(0, next - Date.now()));
        }
        await Promise.all(inFlight);
      } finally {
        clearInterval(sampler);
      }
      await killServe(running, 'SIGTERM');
      child = null;

      const thirds = latencyThirds(latencies, durationMs);
      const memory = rssTrend(rss, durationMs, WARMUP);
      const p99Limit = thirds.first.p99 * P99_FACTOR + P99_SLACK_MS;
      const rssLimitMib = memory.afterWarmupMib + Math.max(memory.afterWarmupMib * RSS_FRACTION, RSS_SLACK_MIB);
      writeSuiteResult('soak', {
        mode: MODE,
        seconds: BUDGET.soakSeconds,
        target_rate: BUDGET.soakRate,
        requests_served: latencies.length,
        achieved_rate: Math.round((latencies.length / BUDGET.soakSeconds) * 10) / 10,
        served_by_kind: Object.fromEntries(served),
        unexpected_answers: unexpected.length,
        unexpected_examples: unexpected.slice(0, 20),
        ...(unexpected.length > 0 ? { core_stderr_tail: running.stderr().slice(-4000) } : {}),
        latency_ms: { first_third: thirds.first, last_third: thirds.last, p99_limit: p99Limit },
        rss_mib: { ...memory, limit: rssLimitMib, samples: rss.length },
      });
      expect(unexpected).toEqual([]);
      expect(latencies.length).toBeGreaterThan(BUDGET.soakSeconds * BUDGET.soakRate * 0.8);
      expect(thirds.last.p99).toBeLessThanOrEqual(p99Limit);
      expect(memory.endMib).toBeLessThanOrEqual(rssLimitMib);
    },
    BUDGET.soakSeconds * 1000 + 90_000,
  );
});
