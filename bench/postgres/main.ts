import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { SEARCHABLE_TYPES } from '../../src/contract/index.js';
import { SEARCH_CANDIDATE_CAP } from '../../src/core/search/search-service.js';
import { openPostgresStore, openSqliteStore, type ListQuery, type Scope, type Store } from '../../src/core/store/index.js';
import { ingestThroughStore, provisionBenchTenant, type IngestResult } from '../ingest.js';
import { summarize, type LatencySummary } from '../load.js';
import { SEARCH_QUERIES } from '../measure.js';
import { ROOT } from '../processes.js';

const FULL_STATEMENTS = 1_000_000;
const QUICK_STATEMENTS = 20_000;
const WARMUP = 10;

export interface PostgresBenchOptions {
  statements: number;
  samples: number;
  seed: number;
  /** The owner's URL; the bench works in a schema of its own, dropped afterwards unless kept. */
  databaseUrl: string;
  outDir: string;
  keep: boolean;
}

export interface EngineResult {
  engine: 'sqlite' | 'postgres';
  ingest: IngestResult;
  databaseMiB: number;
  list: { label: string; summary: LatencySummary }[];
  search: { label: string; query: string; hits: number; summary: LatencySummary }[];
}

export interface PostgresBenchResult {
  statements: number;
  samples: number;
  seed: number;
  postgresVersion: string;
  engines: EngineResult[];
}

/** Reads `npm run bench:postgres -- [--quick] [--statements N] [--samples N] [--database-url URL] [--keep]`. */
export function parsePostgresBenchArgs(argv: readonly string[]): PostgresBenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      statements: { type: 'string' },
      samples: { type: 'string' },
      seed: { type: 'string', default: '20260901' },
      'database-url': { type: 'string' },
      out: { type: 'string' },
      keep: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const count = (value: string | undefined, fallback: number, flag: string) => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} takes a positive integer, not ${value}`);
    return n;
  };
  const quick = values.quick ?? false;
  return {
    statements: count(values.statements, quick ? QUICK_STATEMENTS : FULL_STATEMENTS, '--statements'),
    samples: count(values.samples, quick ? 50 : 300, '--samples'),
    seed: count(values.seed, 20260901, '--seed'),
    databaseUrl:
      values['database-url'] ?? process.env.MEMORY_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    outDir: values.out ?? join(ROOT, 'bench', 'results'),
    keep: values.keep ?? false,
  };
}

function log(line: string): void {
  process.stderr.write(`[bench:postgres ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

/** Latencies of one call, after a warm-up, in milliseconds. */
async function sample(samples: number, run: () => Promise<unknown>): Promise<LatencySummary> {
  for (let i = 0; i < WARMUP; i += 1) await run();
  const times: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return summarize(times);
}

/** The list pages the API serves most: newest first, a transcript in order, and a keyset page deep in history. */
async function listCases(store: Store, scope: Scope): Promise<{ label: string; run: () => Promise<unknown> }[]> {
  const page = (partial: Partial<ListQuery>): ListQuery => ({ order: 'desc', limit: 50, ...partial });
  const [middle] = await store.list('statement', scope, page({ order: 'asc', since: '2024-12-02', limit: 1 }));
  if (!middle) throw new Error('the generated history has no statement after 2024-12-02');
  const after = { ts: middle.spoken_at, id: middle.id };
  return [
    { label: 'decisions, newest 50', run: () => store.list('decision', scope, page({})) },
    { label: 'statements, newest 50', run: () => store.list('statement', scope, page({})) },
    { label: 'statements, 50 after a cursor mid-history', run: () => store.list('statement', scope, page({ after })) },
    {
      label: 'one meeting’s transcript, 200 in order',
      run: () => store.list('statement', scope, page({ meetingId: middle.meeting_id, order: 'asc', limit: 200 })),
    },
  ];
}

/** How often the engine's housekeeping (see EngineHooks.maintain) runs while the history is ingested. */
const MAINTENANCE_INTERVAL_MS = 45_000;

interface EngineHooks {
  size: () => Promise<number>;
  /** Runs once the history is in, before anything is measured. */
  analyze: () => Promise<void>;
  /** Runs every MAINTENANCE_INTERVAL_MS during ingest: what the database's own background work would do. */
  maintain?: () => Promise<void>;
}

/** Ingests the history while `maintain` runs on a timer, one run at a time. */
async function ingestWithMaintenance(store: Store, scope: Scope, options: PostgresBenchOptions, maintain?: () => Promise<void>) {
  let running: Promise<void> = Promise.resolve();
  const timer = maintain
    ? setInterval(() => {
        running = running.then(maintain).catch((error: unknown) => log(`maintenance failed: ${String(error)}`));
      }, MAINTENANCE_INTERVAL_MS)
    : undefined;
  try {
    return await ingestThroughStore(store, scope, { seed: options.seed, statements: options.statements });
  } finally {
    clearInterval(timer);
    await running;
  }
}

async function measureEngine(
  engine: EngineResult['engine'],
  store: Store,
  options: PostgresBenchOptions,
  { size, analyze, maintain }: EngineHooks,
): Promise<EngineResult> {
  const tenant = await provisionBenchTenant(store, 1);
  log(`${engine}: ingesting ${options.statements.toLocaleString('en')} statements through the store`);
  const ingest = await ingestWithMaintenance(store, tenant.scope, options, maintain);
  log(`${engine}: ${Math.round(ingest.statementsPerSecond).toLocaleString('en')} statements/s; measuring`);
  await analyze();
  const list = [];
  for (const { label, run } of await listCases(store, tenant.scope)) {
    list.push({ label, summary: await sample(options.samples, run) });
  }
  const search = [];
  for (const { label, query } of SEARCH_QUERIES) {
    const run = () => store.search(tenant.scope, { text: query, types: SEARCHABLE_TYPES, candidateCap: SEARCH_CANDIDATE_CAP });
    const hits = (await run()).hits.length;
    search.push({ label, query, hits, summary: await sample(options.samples, run) });
  }
  return { engine, ingest, databaseMiB: (await size()) / 2 ** 20, list, search };
}

async function fileBytes(file: string): Promise<number> {
  const sizes = await Promise.all(['', '-wal'].map((suffix) => stat(`${file}${suffix}`).then((s) => s.size, () => 0)));
  return sizes.reduce((sum, bytes) => sum + bytes, 0);
}

async function benchSqlite(options: PostgresBenchOptions, workDir: string): Promise<EngineResult> {
  const file = join(workDir, 'memory.db');
  const store = await openSqliteStore(file);
  try {
    return await measureEngine('sqlite', store, options, { size: () => fileBytes(file), analyze: async () => {} });
  } finally {
    await store.close();
  }
}

async function asOwner<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * PostgreSQL in a schema of its own, served as memory_app like the core. VACUUM stands in for autovacuum (off on some
 * clusters, this one included): during ingest, of the tables whose few rows are updated by every meeting (a topic's
 * date, a person's name), whose dead versions otherwise pile up and slowed this ingest several times over; after it,
 * VACUUM ANALYZE of every table, which on a live database would long since have merged the GIN index's pending
 * entries and gathered the lexeme statistics the planner needs to choose it.
 */
async function benchPostgres(options: PostgresBenchOptions): Promise<EngineResult> {
  const schema = `mm_bench_${randomBytes(4).toString('hex')}`;
  const store = await openPostgresStore({ url: options.databaseUrl, schema });
  try {
    const size = async () => {
      const [row] = await asOwner<{ bytes: string }>(
        options.databaseUrl,
        `SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c
         WHERE c.relnamespace = '${schema}'::regnamespace AND c.relkind IN ('r', 'm')`,
      );
      return Number(row?.bytes ?? 0);
    };
    const vacuum = async (tables: string[], analyze: boolean) => {
      for (const table of tables) await asOwner(options.databaseUrl, `VACUUM ${analyze ? 'ANALYZE ' : ''}${schema}.${table}`);
    };
    return await measureEngine('postgres', store, options, {
      size,
      maintain: () => vacuum(['topics', 'people', 'search_docs'], false),
      analyze: () =>
        vacuum(['statements', 'decisions', 'open_questions', 'action_items', 'topics', 'topic_meetings', 'search_docs'], true),
    });
  } finally {
    await store.close();
    if (options.keep) log(`kept schema ${schema}`);
    else await asOwner(options.databaseUrl, `DROP SCHEMA ${schema} CASCADE`);
  }
}

const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(1));

/** The side-by-side tables: list and search p50/p99 per engine, then ingest rate and size. */
export function postgresBenchMarkdown(result: PostgresBenchResult): string {
  const [sqlite, postgres] = result.engines;
  if (!sqlite || !postgres) throw new Error('both engines must have been measured');
  const rows = (pick: (engine: EngineResult) => { label: string; summary: LatencySummary }[]) =>
    pick(sqlite).map(({ label, summary }, i) => {
      const other = pick(postgres)[i]!.summary;
      return `| ${label} | ${ms(summary.p50)} | ${ms(summary.p99)} | ${ms(other.p50)} | ${ms(other.p99)} |`;
    });
  const header = '| | SQLite p50 | SQLite p99 | PostgreSQL p50 | PostgreSQL p99 |\n|---|---:|---:|---:|---:|';
  const hits = sqlite.search.map((s, i) => `${s.query}: ${s.hits}/${postgres.search[i]?.hits ?? '?'}`).join(', ');
  return [
    `Store calls at ${result.statements.toLocaleString('en')} statements (seed ${result.seed}), ${result.samples} samples each,`,
    `milliseconds, one client; ${result.postgresVersion}.`,
    '',
    '**List**',
    '',
    header,
    ...rows((engine) => engine.list),
    '',
    `**Search** (keyword, all types, candidate cap ${SEARCH_CANDIDATE_CAP}; hits SQLite/PostgreSQL: ${hits})`,
    '',
    header,
    ...rows((engine) => engine.search.map((s) => ({ label: `${s.label} (“${s.query}”)`, summary: s.summary }))),
    '',
    '| | SQLite | PostgreSQL |\n|---|---:|---:|',
    `| ingest, statements/s | ${Math.round(sqlite.ingest.statementsPerSecond).toLocaleString('en')} | ${Math.round(postgres.ingest.statementsPerSecond).toLocaleString('en')} |`,
    `| database size, MiB | ${Math.round(sqlite.databaseMiB)} | ${Math.round(postgres.databaseMiB)} |`,
  ].join('\n');
}

/** Both engines on the same generated deployment, one after the other, in the same process. */
export async function runPostgresBench(options: PostgresBenchOptions): Promise<PostgresBenchResult> {
  const [version] = await asOwner<{ server_version: string }>(options.databaseUrl, 'SHOW server_version');
  const workDir = join(ROOT, 'bench', 'results', 'tmp');
  await mkdir(workDir, { recursive: true });
  const dir = await mkdtemp(join(workDir, 'postgres-bench-'));
  try {
    const sqlite = await benchSqlite(options, dir);
    const postgres = await benchPostgres(options);
    return {
      statements: options.statements,
      samples: options.samples,
      seed: options.seed,
      postgresVersion: `PostgreSQL ${version?.server_version ?? '?'}`,
      engines: [sqlite, postgres],
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `npm run bench:postgres`: runs, prints the tables, and writes them with the raw figures under bench/results. */
export async function main(argv: readonly string[]): Promise<number> {
  const options = parsePostgresBenchArgs(argv);
  const result = await runPostgresBench(options);
  const markdown = postgresBenchMarkdown(result);
  await mkdir(options.outDir, { recursive: true });
  const base = join(options.outDir, `postgres-${options.statements}`);
  await writeFile(`${base}.json`, `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(`${base}.md`, `${markdown}\n`);
  process.stdout.write(`${markdown}\n\nwritten: ${base}.json, ${base}.md\n`);
  return 0;
}
