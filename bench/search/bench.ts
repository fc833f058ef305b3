import { existsSync } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { SEARCHABLE_TYPES } from '../../src/contract/index.js';
import { openSqliteStore } from '../../src/core/store/index.js';
import { interleavedLatencies, SequentialClient, summarize, type LatencySummary, type RequestSpec } from '../load.js';
import type { CoreUnderTest } from '../measure.js';
import type { SearchComparison } from '../model.js';
import { snapshotPackage } from '../package-snapshot.js';
import { requestToken, residentMemory, ROOT, startCoreProcess } from '../processes.js';
import { openBareKeywordSearch } from './bare-search.js';
import { benchQueries, type BenchQuery } from './bench-queries.js';
import { conceptEmbedding } from './concept-embedder.js';
import { generatedDeployment, BENCH_SPACE, type GeneratedDeployment } from './deployment.js';
import { startEmbeddingServer } from './embedding-server.js';
import { exactNeighbours, naiveFilteredSearch } from './vector-checks.js';

const FULL_STATEMENTS = 1_000_000;
const QUICK_STATEMENTS = 100_000;
const PAGE = 20;

export interface QueryTiming {
  label: string;
  query: string;
  hits: number;
  /** How many of the API's first page the bare SQL's page holds too (all of them: both answer the same). */
  samePage: number;
  api: LatencySummary;
  sql?: LatencySummary;
}

export interface ModeResult {
  mode: 'keyword' | 'hybrid';
  /** Every sample of every query together. */
  api: LatencySummary;
  sql?: LatencySummary;
  /** API p50 / bare SQL p50, over all samples. */
  ratio?: number;
  /** The worst query's API p50 over its bare SQL p50. */
  worstRatio?: number;
  queries: QueryTiming[];
  coreRssMiB: number | null;
}

function path(core: { scope: { deploymentId: string } }, query: BenchQuery): RequestSpec {
  const params = new URLSearchParams({ q: query.text, limit: String(PAGE) });
  if (query.types) params.set('types', query.types.join(','));
  if (query.since) params.set('since', query.since);
  if (query.until) params.set('until', query.until);
  return { method: 'GET', path: `/v1/deployments/${core.scope.deploymentId}/search?${params.toString()}` };
}

/** Each query through the API and, for keyword mode, through the bare SQL, in alternation. */
async function timeQueries(core: CoreUnderTest, queries: BenchQuery[], samples: number, withSql: boolean): Promise<QueryTiming[]> {
  const client = new SequentialClient(core.origin, core.tokens);
  const bare = withSql ? openBareKeywordSearch(core.databaseFile, core.scope) : null;
  try {
    const timings: QueryTiming[] = [];
    for (const query of queries) {
      const spec = path(core, query);
      const page = (JSON.parse(await client.send(spec)) as { results: { id: string }[] }).results.map((r) => r.id);
      const filter = { types: query.types ?? SEARCHABLE_TYPES, since: query.since, until: query.until };
      const barePage = new Set(bare ? bare.run(query.text, filter, PAGE).map((r) => (r as { id: string }).id) : page);
      const operations = [() => client.send(spec), ...(bare ? [async () => bare.run(query.text, filter, PAGE)] : [])];
      const [api, sql] = await interleavedLatencies(operations, samples, Math.max(2, Math.ceil(samples / 10)));
      const samePage = page.filter((id) => barePage.has(id)).length;
      timings.push({ label: query.label, query: query.text, hits: page.length, samePage, api: summarize(api!), ...(sql ? { sql: summarize(sql) } : {}) });
    }
    return timings;
  } finally {
    bare?.close();
    await client.close();
  }
}

/** `measureSearchAtSize` for `npm run bench`: the keyword API against the bare SQL of this engine. */
export async function measureSearchAtSize(core: CoreUnderTest): Promise<SearchComparison[]> {
  const timings = await timeQueries(core, benchQueries(), core.settings.samples, true);
  return timings.map((t) => ({ ...t, sql: t.sql!, ratio: t.api.p50 / t.sql!.p50 }));
}

function allSamples(timings: QueryTiming[], pick: (t: QueryTiming) => LatencySummary | undefined): LatencySummary | undefined {
  // Summaries do not merge exactly; the p50/p99 over all samples are recomputed from per-query means weighted equally.
  const values = timings.map(pick).filter((s): s is LatencySummary => s !== undefined);
  if (values.length === 0) return undefined;
  const p50s = values.map((s) => s.p50).sort((a, b) => a - b);
  const p99s = values.map((s) => s.p99).sort((a, b) => a - b);
  return {
    samples: values.reduce((sum, s) => sum + s.samples, 0),
    p50: p50s[Math.floor((p50s.length - 1) / 2)]!,
    p99: p99s[p99s.length - 1]!,
    mean: values.reduce((sum, s) => sum + s.mean, 0) / values.length,
  };
}

async function runMode(
  bin: string,
  deployment: GeneratedDeployment,
  mode: 'keyword' | 'hybrid',
  embeddingsUrl: string,
  samples: number,
  log: (line: string) => void,
): Promise<ModeResult> {
  const env = { MEMORY_EMBEDDINGS_URL: embeddingsUrl, MEMORY_EMBEDDINGS_MODEL: 'concept-embedder-v1' };
  if (mode === 'hybrid') Object.assign(process.env, env);
  const core = await startCoreProcess(bin, deployment.dataDir).finally(() => {
    for (const key of Object.keys(env)) delete process.env[key];
  });
  try {
    const tokens = await Promise.all(
      deployment.principals.map((p) => requestToken(core.origin, deployment.scope.tenantId, p.clientId, p.secret)),
    );
    const underTest: CoreUnderTest = {
      bin,
      origin: core.origin,
      baseUrl: core.baseUrl,
      scope: deployment.scope,
      tokens,
      databaseFile: deployment.databaseFile,
      workDir: deployment.dataDir,
      settings: { samples, connections: 1, loadSeconds: 0 },
    };
    log(`${mode}: timing ${benchQueries().length} queries x ${samples} samples...`);
    const queries = await timeQueries(underTest, benchQueries(), samples, mode === 'keyword');
    const api = allSamples(queries, (t) => t.api)!;
    const sql = allSamples(queries, (t) => t.sql);
    const ratios = queries.filter((t) => t.sql).map((t) => t.api.p50 / t.sql!.p50);
    return {
      mode,
      api,
      ...(sql ? { sql, ratio: api.p50 / sql.p50, worstRatio: Math.max(...ratios) } : {}),
      queries,
      coreRssMiB: (await residentMemory(core.pid))?.rssMiB ?? null,
    };
  } finally {
    await core.stop();
  }
}

/** The vector leg alone, in this process on the same file: its latency and how well the signatures find the true nearest. */
async function vectorLeg(deployment: GeneratedDeployment, samples: number) {
  const store = await openSqliteStore(deployment.databaseFile);
  try {
    const index = store.searchIndex!;
    const queries = benchQueries().map((q) => q.text);
    const snapshot = await index.snapshot();
    const loadStarted = performance.now();
    const run = (text: string) =>
      index.vector(deployment.scope, { types: SEARCHABLE_TYPES, embedding: conceptEmbedding(text), space: BENCH_SPACE, neighbours: 100, snapshot });
    await run(queries[0]!);
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const times: number[] = [];
    for (let round = 0; round < samples; round += 1) {
      for (const text of queries) {
        const started = performance.now();
        await run(text);
        times.push(performance.now() - started);
      }
    }
    const sample = queries.slice(0, 10);
    const exact = await exactNeighbours(deployment.databaseFile, sample.map((text) => conceptEmbedding(text)), 100);
    // Generated text repeats, so many records tie on similarity: a result counts when it is as near as the k-th
    // true neighbour, whichever of the tied records it is.
    const recall = async (k: number) => {
      let found = 0;
      for (const [i, text] of sample.entries()) {
        const kth = exact[i]![k - 1]?.score ?? -Infinity;
        found += (await run(text)).slice(0, k).filter((doc) => doc.score >= kth - 1e-5).length;
      }
      return found / (k * sample.length);
    };
    return { latency: summarize(times), firstLoadSeconds: loadSeconds, recallAt10: await recall(10), recallAt100: await recall(100) };
  } finally {
    await store.close();
  }
}

function ms(value: number | undefined): string {
  return value === undefined ? '-' : value < 10 ? value.toFixed(1) : value.toFixed(0);
}

function report(results: Awaited<ReturnType<typeof runSearchBench>>): string {
  const { deployment, keyword, hybrid, vector, naive } = results;
  const lines = [
    `# Search benchmark, ${results.date}`,
    '',
    `Deployment: ${deployment.counts.statements.toLocaleString('en-US')} statements, ${(deployment.counts.decisions + deployment.counts.openQuestions + deployment.counts.actionItems).toLocaleString('en-US')} decisions, open questions and action items, ${deployment.documents.toLocaleString('en-US')} searchable records in all; database ${results.databaseGiB.toFixed(2)} GiB.`,
    `Machine: ${results.machine.cpus} x ${results.machine.cpuModel}, load average ${results.machine.loadAverage.start.toFixed(1)} at start and ${results.machine.loadAverage.end.toFixed(1)} at the end (other work shares the machine).`,
    `Generated through the store in ${deployment.ingestSeconds.toFixed(0)} s, embedded in ${deployment.embedSeconds.toFixed(0)} s.`,
    '',
    '| mode | API p50 | API p99 | bare SQL p50 | bare SQL p99 | API / SQL (p50) | worst query ratio | core RSS |',
    '|---|---|---|---|---|---|---|---|',
    `| keyword | ${ms(keyword.api.p50)} ms | ${ms(keyword.api.p99)} ms | ${ms(keyword.sql?.p50)} ms | ${ms(keyword.sql?.p99)} ms | ${keyword.ratio?.toFixed(2)} | ${keyword.worstRatio?.toFixed(2)} | ${ms(keyword.coreRssMiB ?? undefined)} MiB |`,
    `| hybrid | ${ms(hybrid.api.p50)} ms | ${ms(hybrid.api.p99)} ms | - | - | - | - | ${ms(hybrid.coreRssMiB ?? undefined)} MiB |`,
    '',
    'p50 is the median of the queries\' medians; p99 the slowest query\'s p99.',
    '',
    `Vector leg alone (in-process): p50 ${ms(vector.latency.p50)} ms, p99 ${ms(vector.latency.p99)} ms; first query loads the signatures in ${vector.firstLoadSeconds.toFixed(1)} s; recall against exact cosine: ${(vector.recallAt10 * 100).toFixed(1)}% at 10, ${(vector.recallAt100 * 100).toFixed(1)}% at 100.`,
    `A MATCH joined to the documents with the filters outside it (kind and a one-month window, ORDER BY bm25): ${naive.naiveMs === null ? `over ${naive.timeoutSeconds} s` : `${ms(naive.naiveMs)} ms`}, against ${ms(naive.oursMs)} ms with the filters inside FTS5.`,
    '',
    '| query | label | hits (same as SQL) | keyword API p50 | bare SQL p50 | ratio | hybrid API p50 |',
    '|---|---|---|---|---|---|---|',
    ...keyword.queries.map((k, i) => {
      const h = hybrid.queries[i]!;
      return `| \`${k.query.replaceAll('|', '\\|')}\` | ${k.label} | ${k.hits} (${k.samePage}) | ${ms(k.api.p50)} | ${ms(k.sql?.p50)} | ${k.sql ? (k.api.p50 / k.sql.p50).toFixed(2) : '-'} | ${ms(h.api.p50)} |`;
    }),
  ];
  return `${lines.join('\n')}\n`;
}

async function runSearchBench(options: { statements: number; seed: number; samples: number; dataDir: string; log: (line: string) => void }) {
  const loadStart = loadavg()[0]!;
  const deployment = await generatedDeployment(options.dataDir, options.seed, options.statements, options.log);
  const server = await startEmbeddingServer();
  const snapshot = await snapshotPackage(ROOT, join(options.dataDir, '..', `search-package-${process.pid}`));
  try {
    const keyword = await runMode(snapshot.bin, deployment, 'keyword', server.url, options.samples, options.log);
    const hybrid = await runMode(snapshot.bin, deployment, 'hybrid', server.url, options.samples, options.log);
    options.log('vector leg alone and its recall...');
    const vector = await vectorLeg(deployment, Math.max(3, Math.ceil(options.samples / 5)));
    options.log('a MATCH with the filters outside it...');
    const naive = naiveFilteredSearch(deployment.databaseFile, deployment.scope);
    return {
      date: new Date().toISOString().slice(0, 10),
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', loadAverage: { start: loadStart, end: loadavg()[0]! } },
      databaseGiB: (await stat(deployment.databaseFile)).size / 2 ** 30,
      deployment,
      keyword,
      hybrid,
      vector,
      naive,
    };
  } finally {
    await server.close();
    await snapshot.remove();
  }
}

/** `npm run bench:search [-- --quick] [-- --statements N] [-- --samples N] [-- --keep-data] [-- --seed N]` */
export async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      statements: { type: 'string' },
      samples: { type: 'string' },
      seed: { type: 'string', default: '20260901' },
      'keep-data': { type: 'boolean', default: false },
      out: { type: 'string' },
    },
  });
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) {
    process.stderr.write('The package is not built: run `npm run build` first (the core is timed as users run it).\n');
    return 1;
  }
  const statements = Number(values.statements ?? (values.quick ? QUICK_STATEMENTS : FULL_STATEMENTS));
  const samples = Number(values.samples ?? (values.quick ? 10 : 30));
  const seed = Number(values.seed);
  const dataDir = join(ROOT, 'bench', 'results', 'tmp', `search-data-${seed}-${statements}`);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  try {
    const results = await runSearchBench({ statements, seed, samples, dataDir, log });
    const markdown = report(results);
    const outDir = values.out ?? join(ROOT, 'bench', 'results');
    await mkdir(outDir, { recursive: true });
    const base = join(outDir, `search-${results.date}-${statements}`);
    await writeFile(`${base}.json`, `${JSON.stringify(results, null, 2)}\n`);
    await writeFile(`${base}.md`, markdown);
    process.stdout.write(markdown);
    process.stdout.write(`\nwritten: ${base}.md and .json\n`);
    return 0;
  } finally {
    if (!values['keep-data']) await rm(dataDir, { recursive: true, force: true });
  }
}

