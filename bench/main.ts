import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openSqliteStore } from '../src/core/store/index.js';
import { measureColdStart, measureDecisionsList } from './cli.js';
import { ingestBare, ingestThroughStore, provisionBenchTenant, type BenchTenant } from './ingest.js';
import { measureList, measureMcpHttp, measureMcpStdio, measureSearch, type CoreUnderTest } from './measure.js';
import type { BenchResults, BenchSettings, NotMeasured, SearchComparison, SizeResult } from './model.js';
import { requestToken, residentMemory, ROOT, startCoreProcess } from './processes.js';
import { snapshotPackage } from './package-snapshot.js';
import { checkTargets } from './targets.js';
import { writeReports } from './report.js';

export interface BenchOptions extends Omit<BenchSettings, 'searchComparedBy'> {
  /** Re-render the reports of this results JSON instead of measuring (after a change to the report). */
  from?: string;
  /** bin/memory.js of the package under test. */
  bin: string;
  /** Where `<date>.json`, `.md` and `.svg` go. */
  outDir: string;
  /** Where data dirs are generated (deleted afterwards unless keepData). */
  workDir: string;
  keepData: boolean;
  /** Rewrite the README's performance table between its markers. */
  updateReadme: boolean;
}

/**
 * What `bench/search/bench.ts` (the search engine's own benchmark) may export for this harness to call at every size: the
 * API-vs-bare-SQL comparison for the engine's current schema, in place of the harness's FTS5 baseline.
 */
export interface SearchPlugin {
  measureSearchAtSize?: (core: CoreUnderTest) => Promise<SearchComparison[]>;
}

const FULL_SIZES = [10_000, 100_000, 1_000_000];
const QUICK_SIZES = [10_000];

function positiveIntegers(value: string, flag: string): number[] {
  const numbers = value.split(',').map((part) => Number(part.trim().replace(/_/g, '')));
  if (numbers.some((n) => !Number.isInteger(n) || n <= 0)) throw new Error(`${flag} takes positive integers, not ${value}`);
  return numbers;
}

/** Reads `npm run bench -- [--quick] [--sizes 10000,100000] [--seconds N] ...` into options. */
export function parseBenchArgs(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      sizes: { type: 'string' },
      seed: { type: 'string', default: '20260901' },
      seconds: { type: 'string' },
      connections: { type: 'string', default: '8' },
      samples: { type: 'string' },
      'sample-seconds': { type: 'string' },
      principals: { type: 'string' },
      'cli-runs': { type: 'string' },
      out: { type: 'string' },
      'keep-data': { type: 'boolean', default: false },
      readme: { type: 'boolean' },
      'no-readme': { type: 'boolean' },
      from: { type: 'string' },
    },
    strict: true,
  });
  const quick = values.quick ?? false;
  const one = (value: string | undefined, fallback: number, flag: string) =>
    value === undefined ? fallback : (positiveIntegers(value, flag)[0] ?? fallback);
  const principals = one(values.principals, quick ? 48 : 128, '--principals');
  // One principal is kept for the CLI, so the load tests need at least one more.
  if (principals < 2) throw new Error(`--principals takes 2 or more, not ${principals}`);
  const outDir = values.out ?? join(ROOT, 'bench', 'results');
  return {
    quick,
    seed: one(values.seed, 20260901, '--seed'),
    sizes: values.sizes ? positiveIntegers(values.sizes, '--sizes') : quick ? QUICK_SIZES : FULL_SIZES,
    loadSeconds: one(values.seconds, quick ? 3 : 10, '--seconds'),
    connections: one(values.connections, 8, '--connections'),
    samples: one(values.samples, quick ? 150 : 400, '--samples'),
    sampleSeconds: one(values['sample-seconds'], quick ? 15 : 45, '--sample-seconds'),
    principals,
    cliRuns: one(values['cli-runs'], quick ? 10 : 30, '--cli-runs'),
    outDir,
    ...(values.from ? { from: values.from } : {}),
    bin: join(ROOT, 'bin', 'memory.js'),
    workDir: join(ROOT, 'bench', 'results', 'tmp'),
    keepData: values['keep-data'] ?? false,
    // A quick run (CI) leaves the README alone unless asked; a full run is what the README reports.
    updateReadme: values['no-readme'] ? false : (values.readme ?? (!quick && values.out === undefined)),
  };
}

function log(line: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

/** Runs one measurement; a failure becomes a "not measured" entry with its reason instead of ending the run. */
async function attempt<T>(notMeasured: NotMeasured[], what: string, statements: number, run: () => Promise<T>): Promise<T | undefined> {
  try {
    log(statements > 0 ? `${what} (${statements.toLocaleString('en')} statements)` : what);
    return await run();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const reason = message.replace(/\s+/g, ' ').trim().slice(0, 400);
    notMeasured.push({ what, reason, statements });
    log(`not measured: ${what}: ${reason}`);
    return undefined;
  }
}

/** Token requests in flight at once: each costs the core a scrypt verification on its four libuv threads. */
const TOKEN_CONCURRENCY = 4;

/** Tokens for every bench principal, a few requests at a time. */
async function tokensFor(origin: string, tenant: BenchTenant): Promise<string[]> {
  const tokens: string[] = [];
  for (let start = 0; start < tenant.principals.length; start += TOKEN_CONCURRENCY) {
    const chunk = tenant.principals.slice(start, start + TOKEN_CONCURRENCY);
    tokens.push(
      ...(await Promise.all(chunk.map((p) => requestToken(origin, tenant.scope.tenantId, p.clientId, p.secret)))),
    );
  }
  return tokens;
}

/** Generates the deployment through the store and the bare baseline, in the same run, into a fresh data dir. */
async function ingest(options: BenchOptions, dataDir: string, statements: number) {
  const store = await openSqliteStore(join(dataDir, 'memory.db'));
  try {
    const tenant = await provisionBenchTenant(store, options.principals);
    const spec = { seed: options.seed, statements };
    const viaStore = await ingestThroughStore(store, tenant.scope, spec);
    const bareFile = join(dataDir, 'bare.db');
    const bare = ingestBare(bareFile, spec);
    await Promise.all(['', '-wal', '-shm'].map((suffix) => rm(`${bareFile}${suffix}`, { force: true })));
    return { tenant, ingest: { store: viaStore, bare, ratio: viaStore.statementsPerSecond / bare.statementsPerSecond } };
  } finally {
    await store.close();
  }
}

async function databaseMiB(file: string): Promise<number> {
  const sizes = await Promise.all(['', '-wal'].map((suffix) => stat(`${file}${suffix}`).then((s) => s.size, () => 0)));
  return sizes.reduce((sum, size) => sum + size, 0) / 2 ** 20;
}

/** Everything measured at one size: ingest, then a `memory serve` child under each workload, then its memory. */
async function measureSize(
  options: BenchOptions,
  statements: number,
  notMeasured: NotMeasured[],
  searchAtSize: (core: CoreUnderTest) => Promise<SearchComparison[]>,
): Promise<SizeResult> {
  await mkdir(options.workDir, { recursive: true });
  const dataDir = await mkdtemp(join(options.workDir, `data-${statements}-`));
  try {
    log(`generating ${statements.toLocaleString('en')} statements (seed ${options.seed}) through the store and bare SQLite`);
    const generated = await ingest(options, dataDir, statements);
    const databaseFile = join(dataDir, 'memory.db');
    const result: SizeResult = {
      statements,
      counts: generated.ingest.store.counts,
      databaseMiB: await databaseMiB(databaseFile),
      ingest: generated.ingest,
      memory: { idle: null, afterLoad: null, phases: [] },
    };
    const server = await startCoreProcess(options.bin, dataDir);
    try {
      result.memory.idle = await residentMemory(server.pid);
      log(`memory serve running (pid ${server.pid}); requesting ${generated.tenant.principals.length} tokens`);
      // The last principal is kept for the CLI: every other one's rate-limit window is spent by the load tests.
      const tokens = await tokensFor(server.origin, generated.tenant);
      const cliToken = tokens.pop()!;
      const core: CoreUnderTest = {
        bin: options.bin,
        origin: server.origin,
        baseUrl: server.baseUrl,
        scope: generated.tenant.scope,
        tokens,
        databaseFile,
        workDir: dataDir,
        settings: options,
      };
      const measured = async <T>(what: string, run: () => Promise<T>): Promise<T | undefined> => {
        const value = await attempt(notMeasured, what, statements, run);
        const memory = await residentMemory(server.pid);
        if (memory) result.memory.phases.push({ after: what, rssMiB: memory.rssMiB });
        return value;
      };
      result.list = await measured('list: core vs bare node:http', () => measureList(core));
      result.search = await measured('search: API vs bare SQL', () => searchAtSize(core));
      result.mcpStdio = await measured('MCP stdio vs REST', () => measureMcpStdio(core));
      result.mcpHttp = await measured('MCP Streamable HTTP vs REST', () => measureMcpHttp(core));
      result.decisionsList = await measured('`memory decisions list --json` wall time', async () =>
        measureDecisionsList(options.bin, { baseUrl: server.baseUrl, token: cliToken, deploymentId: core.scope.deploymentId }, options.cliRuns),
      );
      result.memory.afterLoad = await residentMemory(server.pid);
    } finally {
      await server.stop();
    }
    return result;
  } finally {
    if (!options.keepData) await rm(dataDir, { recursive: true, force: true });
  }
}

function gitCommit(): string {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  const dirty = spawnSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' });
  return `${head.stdout.trim() || 'unknown'}${dirty.stdout.trim() ? ' (src modified)' : ''}`;
}

/** Runs every size, then the CLI start-up comparison, and returns the results (nothing written yet). */
export async function runBench(options: BenchOptions, plugin: SearchPlugin = {}): Promise<BenchResults> {
  const startedAt = new Date();
  const searchAtSize = plugin.measureSearchAtSize ?? measureSearch;
  const loadStart = loadavg()[0] ?? 0;
  const notMeasured: NotMeasured[] = [];
  const sizes: SizeResult[] = [];
  for (const statements of options.sizes) sizes.push(await measureSize(options, statements, notMeasured, searchAtSize));
  const coldStart = await attempt(notMeasured, 'CLI cold start vs node -e 0', 0, async () => measureColdStart(options.bin, options.cliRuns));
  const settings: BenchSettings = {
    quick: options.quick,
    seed: options.seed,
    sizes: options.sizes,
    connections: options.connections,
    loadSeconds: options.loadSeconds,
    samples: options.samples,
    sampleSeconds: options.sampleSeconds,
    principals: options.principals,
    cliRuns: options.cliRuns,
    searchComparedBy: plugin.measureSearchAtSize ? 'bench/search' : 'harness',
  };
  const results: BenchResults = {
    schema: 1,
    date: startedAt.toISOString().slice(0, 10),
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    settings,
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      commit: gitCommit(),
      loadAverage: { start: loadStart, end: loadavg()[0] ?? 0 },
    },
    sizes,
    coldStart,
    notMeasured,
    targets: [],
  };
  results.targets = checkTargets(results);
  return results;
}

/** The `npm run bench` entry: measures, writes the reports, and exits 1 when a measurement the bench owns failed. */
export async function main(argv: readonly string[], loaded: { searchModule?: SearchPlugin } = {}): Promise<number> {
  const parsed = parseBenchArgs(argv);
  if (parsed.from !== undefined) return rerender(parsed.from, parsed);
  const snapshot = await snapshotPackage(ROOT, join(parsed.workDir, `package-${process.pid}`));
  try {
    return await measureAndReport({ ...parsed, bin: snapshot.bin }, loaded.searchModule);
  } finally {
    await snapshot.remove();
  }
}

/** Writes the reports of an earlier run again, with the targets judged by this version of the harness. */
async function rerender(file: string, options: BenchOptions): Promise<number> {
  const results = JSON.parse(await readFile(file, 'utf8')) as BenchResults;
  results.targets = checkTargets(results);
  const written = await writeReports(results, { outDir: options.outDir, updateReadme: options.updateReadme });
  for (const file of written) log(`wrote ${file}`);
  return 0;
}

async function measureAndReport(options: BenchOptions, searchModule: SearchPlugin | undefined): Promise<number> {
  log(`${options.quick ? 'quick' : 'full'} run: sizes ${options.sizes.join(', ')}; results in ${options.outDir}`);
  if (searchModule) {
    log(
      searchModule.measureSearchAtSize
        ? 'search compared by bench/search (measureSearchAtSize)'
        : 'bench/search/bench.ts exports no measureSearchAtSize: search compared by the harness against its own SQL',
    );
  }
  const results = await runBench(options, searchModule);
  const written = await writeReports(results, { outDir: options.outDir, updateReadme: options.updateReadme });
  for (const file of written) log(`wrote ${file}`);
  for (const target of results.targets) {
    log(`${target.met === null ? 'n/a ' : target.met ? 'met ' : 'MISS'} ${target.target}: ${target.measured}`);
  }
  for (const entry of results.notMeasured) log(`not measured: ${entry.what}: ${entry.reason}`);
  const ownFailures = results.notMeasured.filter((entry) => !entry.what.startsWith('MCP'));
  return ownFailures.length > 0 ? 1 : 0;
}
