import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Scope } from '../src/core/store/store.js';
import {
  alternatingLoadTests,
  interleavedLatencies,
  SequentialClient,
  summarize,
  type LoadResult,
  type RequestSpec,
} from './load.js';
import { checkMcpHttpAnswer, MCP_HTTP_HEADERS, mcpToolCallBody, StdioMcpClient } from './mcp.js';
import type { BenchSettings, SearchComparison, SizeResult } from './model.js';
import { startBareServer } from './processes.js';
import { openBareSearch } from './search-baseline.js';

/** A running core with a generated deployment, and what the measurements need to call it. */
export interface CoreUnderTest {
  /** bin/memory.js of the package under test. */
  bin: string;
  origin: string;
  baseUrl: string;
  scope: Scope;
  /** One token per principal; requests rotate through them. */
  tokens: string[];
  databaseFile: string;
  workDir: string;
  settings: Pick<BenchSettings, 'samples' | 'connections' | 'loadSeconds'> & { sampleSeconds?: number };
}

/** The keyword queries: a term in many records, a mid-frequency one, a rare one, and two terms together. */
export const SEARCH_QUERIES: readonly { label: string; query: string }[] = [
  { label: 'common term', query: 'invoice' },
  { label: 'mid-frequency term', query: 'Frankfurt' },
  { label: 'rare term', query: 'Oakmoor' },
  { label: 'two terms', query: 'kill switch' },
];

/** The time budget of one latency comparison; none unless the settings give one. */
function budgetMs(core: CoreUnderTest): number {
  return (core.settings.sampleSeconds ?? Number.POSITIVE_INFINITY) * 1000;
}

function decisionsPath(core: CoreUnderTest): string {
  return `/v1/deployments/${core.scope.deploymentId}/decisions?limit=50`;
}

/** Under 600 calls a minute per principal, the rate limit of the contract, whatever the sample count. */
function perPrincipalSamples(samples: number): number {
  return Math.min(samples, 500);
}

/**
 * `GET decisions` on the core against a bare node:http server returning the same JSON from memory: latency one
 * request at a time (precise), then throughput and latency under load with autocannon.
 */
export async function measureList(core: CoreUnderTest): Promise<NonNullable<SizeResult['list']>> {
  const spec: RequestSpec = { method: 'GET', path: decisionsPath(core) };
  const client = new SequentialClient(core.origin, core.tokens);
  const bodyFile = join(core.workDir, 'decisions.json');
  await writeFile(bodyFile, await client.send(spec));
  const bare = await startBareServer(bodyFile);
  const bareClient = new SequentialClient(bare.origin, core.tokens);
  try {
    const { samples, connections, loadSeconds } = core.settings;
    const [coreTimes, bareTimes] = await interleavedLatencies(
      [() => client.send(spec), () => bareClient.send(spec)],
      samples,
      Math.ceil(samples / 10),
      budgetMs(core),
    );
    const [coreLoad, bareLoad] = (await alternatingLoadTests(
      [{ origin: core.origin, spec }, { origin: bare.origin, spec }],
      { tokens: core.tokens, connections, seconds: loadSeconds },
    )) as [LoadResult, LoadResult];
    return {
      path: spec.path,
      sequential: { core: summarize(coreTimes!), bare: summarize(bareTimes!) },
      load: { core: coreLoad, bare: bareLoad },
      throughputRatio: coreLoad.requestsPerSecond / bareLoad.requestsPerSecond,
    };
  } finally {
    await Promise.all([client.close(), bareClient.close(), bare.stop()]);
  }
}

/** `GET search` through the API against the bare SQL for the same page, query by query, in alternation. */
export async function measureSearch(core: CoreUnderTest): Promise<SearchComparison[]> {
  const client = new SequentialClient(core.origin, core.tokens);
  const bare = openBareSearch(core.databaseFile, core.scope);
  try {
    const comparisons: SearchComparison[] = [];
    for (const { label, query } of SEARCH_QUERIES) {
      const spec: RequestSpec = {
        method: 'GET',
        path: `/v1/deployments/${core.scope.deploymentId}/search?q=${encodeURIComponent(query)}&limit=20`,
      };
      const { results } = JSON.parse(await client.send(spec)) as { results: { id: string }[] };
      const barePage = new Set((bare.run(query, 20) as { id: string }[]).map((row) => row.id));
      const samePage = results.filter((result) => barePage.has(result.id)).length;
      const [api, sql] = await interleavedLatencies(
        [() => client.send(spec), async () => bare.run(query, 20)],
        core.settings.samples,
        Math.ceil(core.settings.samples / 10),
        budgetMs(core),
      );
      const apiSummary = summarize(api!);
      const sqlSummary = summarize(sql!);
      const ratio = apiSummary.p50 / sqlSummary.p50;
      comparisons.push({ label, query, hits: results.length, samePage, api: apiSummary, sql: sqlSummary, ratio });
    }
    return comparisons;
  } finally {
    bare.close();
    await client.close();
  }
}

/** `memory mcp` (stdio, built package) calling listDecisions, against the REST call it makes, in alternation. */
export async function measureMcpStdio(core: CoreUnderTest): Promise<NonNullable<SizeResult['mcpStdio']>> {
  const token = core.tokens[0]!;
  const mcp = await StdioMcpClient.start(core.bin, {
    MEMORY_BASE_URL: core.baseUrl,
    MEMORY_TOKEN: token,
    MEMORY_DEPLOYMENT: core.scope.deploymentId,
  });
  const rest = new SequentialClient(core.origin, core.tokens.slice(1));
  try {
    const args = { name: 'listDecisions', arguments: { deployment_id: core.scope.deploymentId, limit: 50 } };
    const spec: RequestSpec = { method: 'GET', path: decisionsPath(core) };
    const samples = perPrincipalSamples(core.settings.samples);
    const [mcpTimes, restTimes] = await interleavedLatencies(
      [() => mcp.request('tools/call', args), () => rest.send(spec)],
      samples,
      Math.min(50, Math.ceil(samples / 10)),
      budgetMs(core),
    );
    const mcpSummary = summarize(mcpTimes!);
    const restSummary = summarize(restTimes!);
    return { mcp: mcpSummary, rest: restSummary, overheadP50: mcpSummary.p50 - restSummary.p50 };
  } finally {
    await Promise.all([mcp.close(), rest.close()]);
  }
}

/** A tools/call listDecisions POSTed to the core's /v1/mcp, against the REST GET for the same page. */
export async function measureMcpHttp(core: CoreUnderTest): Promise<NonNullable<SizeResult['mcpHttp']>> {
  const mcpSpec: RequestSpec = {
    method: 'POST',
    path: '/v1/mcp',
    headers: MCP_HTTP_HEADERS,
    body: mcpToolCallBody('listDecisions', { deployment_id: core.scope.deploymentId, limit: 50 }),
  };
  const restSpec: RequestSpec = { method: 'GET', path: decisionsPath(core) };
  const client = new SequentialClient(core.origin, core.tokens);
  try {
    checkMcpHttpAnswer(await client.send(mcpSpec));
    const { samples, connections, loadSeconds } = core.settings;
    const [mcpTimes, restTimes] = await interleavedLatencies(
      [async () => checkMcpHttpAnswer(await client.send(mcpSpec)), () => client.send(restSpec)],
      samples,
      Math.ceil(samples / 10),
      budgetMs(core),
    );
    const [mcpLoad, restLoad] = (await alternatingLoadTests(
      [{ origin: core.origin, spec: mcpSpec }, { origin: core.origin, spec: restSpec }],
      { tokens: core.tokens, connections, seconds: loadSeconds },
    )) as [LoadResult, LoadResult];
    const mcpSummary = summarize(mcpTimes!);
    const restSummary = summarize(restTimes!);
    return {
      mcp: mcpSummary,
      rest: restSummary,
      overheadP50: mcpSummary.p50 - restSummary.p50,
      load: { mcp: mcpLoad, rest: restLoad },
      throughputRatio: mcpLoad.requestsPerSecond / restLoad.requestsPerSecond,
    };
  } finally {
    await client.close();
  }
}
