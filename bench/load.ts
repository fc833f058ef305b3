import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Client } from 'undici';

/** One HTTP request as the bench sends it; `tokens` rotate across requests so no principal hits its rate limit. */
export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LatencySummary {
  samples: number;
  p50: number;
  p99: number;
  mean: number;
}

export interface LoadResult {
  connections: number;
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  /** autocannon records whole milliseconds, so these are coarse below a few ms. */
  p50: number;
  p99: number;
  /** Responses that were not 2xx (e.g. 429 from the rate limit) and socket errors: any makes the figure suspect. */
  non2xx: number;
  errors: number;
  statusCodes: Record<string, number>;
}

/** The q-quantile (0..1) of a list of numbers, nearest-rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

/** p50, p99 and mean of latencies in milliseconds. */
export function summarize(values: readonly number[]): LatencySummary {
  const mean = values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  return { samples: values.length, p50: quantile(values, 0.5), p99: quantile(values, 0.99), mean };
}

function withToken(spec: RequestSpec, token: string | undefined): RequestSpec {
  return token === undefined ? spec : { ...spec, headers: { ...spec.headers, authorization: `Bearer ${token}` } };
}

interface LoadOptions {
  tokens?: readonly string[];
  connections: number;
  seconds: number;
}

/**
 * Throughput and latency under load with autocannon: keep-alive connections, one request in flight on each. The
 * requests are prebuilt, one per token, so the load generator does the same work against the core and a baseline.
 */
export async function loadTest(origin: string, spec: RequestSpec, options: LoadOptions): Promise<LoadResult> {
  const tokens = options.tokens && options.tokens.length > 0 ? options.tokens : [undefined];
  const result = await autocannon({
    url: origin,
    connections: options.connections,
    pipelining: 1,
    duration: options.seconds,
    timeout: 30,
    requests: tokens.map((token) => withToken(spec, token)),
  });
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));
  return {
    connections: options.connections,
    seconds: options.seconds,
    requests: result.requests.total,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statusCodes,
  };
}

/** Rounds of one target as one result: rates over the whole time, percentiles weighted by each round's requests. */
function mergeRounds(rounds: LoadResult[]): LoadResult {
  const requests = rounds.reduce((sum, r) => sum + r.requests, 0);
  const seconds = rounds.reduce((sum, r) => sum + r.seconds, 0);
  const weighted = (pick: (r: LoadResult) => number) =>
    requests === 0 ? NaN : rounds.reduce((sum, r) => sum + pick(r) * r.requests, 0) / requests;
  const statusCodes: Record<string, number> = {};
  for (const round of rounds) {
    for (const [code, count] of Object.entries(round.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  }
  return {
    connections: rounds[0]?.connections ?? 0,
    seconds,
    requests,
    requestsPerSecond: rounds.reduce((sum, r) => sum + r.requestsPerSecond * r.seconds, 0) / Math.max(1, seconds),
    p50: weighted((r) => r.p50),
    p99: weighted((r) => r.p99),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    statusCodes,
  };
}

/**
 * Load tests of several targets in alternating rounds of about two seconds (a, b, a, b, ...), so that a burst of
 * other work on a shared machine slows every target alike instead of whichever ran during it.
 */
export async function alternatingLoadTests(
  targets: readonly { origin: string; spec: RequestSpec }[],
  options: LoadOptions,
): Promise<LoadResult[]> {
  const rounds = Math.max(1, Math.floor(options.seconds / 2));
  const perRound = Math.max(1, Math.round(options.seconds / rounds));
  const results = targets.map(() => [] as LoadResult[]);
  for (let round = 0; round < rounds; round += 1) {
    for (const [index, target] of targets.entries()) {
      results[index]!.push(await loadTest(target.origin, target.spec, { ...options, seconds: perRound }));
    }
  }
  return results.map(mergeRounds);
}

/** One keep-alive connection that sends a request and resolves with its body once fully read. */
export class SequentialClient {
  private readonly client: Client;
  private turn = 0;

  constructor(
    origin: string,
    private readonly tokens: readonly string[] = [],
  ) {
    this.client = new Client(origin, { keepAliveTimeout: 60_000, pipelining: 1 });
  }

  /** Sends the request and returns the body; a non-2xx answer is an error, since timing it would mislead. */
  async send(spec: RequestSpec): Promise<string> {
    const token = this.tokens.length > 0 ? this.tokens[this.turn++ % this.tokens.length] : undefined;
    const { method, path, headers, body } = withToken(spec, token);
    const response = await this.client.request({ method, path, headers, body });
    const text = await response.body.text();
    if (response.statusCode < 200 || response.statusCode > 299) {
      throw new Error(`${method} ${path} answered ${response.statusCode}: ${text.slice(0, 300)}`);
    }
    return text;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** Fewest rounds recorded even when the time budget runs out, so that a p99 still means something. */
const MIN_ROUNDS = 30;

/**
 * Latencies of several operations measured in alternation (a, b, a, b, ...), so that load from anything else on the
 * machine falls on every operation alike and their ratio stays meaningful. Warm-up rounds are not recorded. Stops
 * after `rounds`, or once `budgetMs` has passed (after at least 30 rounds), so slow queries at a million statements
 * do not stretch the run for hours.
 */
export async function interleavedLatencies(
  operations: readonly (() => Promise<unknown>)[],
  rounds: number,
  warmup: number,
  budgetMs = Number.POSITIVE_INFINITY,
): Promise<number[][]> {
  const samples = operations.map(() => [] as number[]);
  const deadline = performance.now() + budgetMs;
  for (let round = 0; round < warmup + rounds; round += 1) {
    if (round >= warmup + MIN_ROUNDS && performance.now() > deadline) break;
    for (const [index, operation] of operations.entries()) {
      const started = performance.now();
      await operation();
      if (round >= warmup) samples[index]!.push(performance.now() - started);
    }
  }
  return samples;
}
