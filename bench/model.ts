import type { ColdStart } from './cli.js';
import type { RecordCounts } from './generate.js';
import type { IngestResult } from './ingest.js';
import type { LatencySummary, LoadResult } from './load.js';
import type { ResidentMemory } from './processes.js';

/** Something the run could not measure, and why: never left out silently. */
export interface NotMeasured {
  what: string;
  reason: string;
  statements?: number;
}

export interface SearchComparison {
  label: string;
  query: string;
  /** Results on the API's first page. */
  hits: number;
  /** How many of them the bare SQL's page holds too: the baseline answers the same question when this equals hits. */
  samePage: number;
  api: LatencySummary;
  sql: LatencySummary;
  /** API p50 / bare SQL p50. */
  ratio: number;
}

export interface SizeResult {
  statements: number;
  counts: RecordCounts;
  databaseMiB: number;
  ingest?: { store: IngestResult; bare: IngestResult; ratio: number };
  list?: {
    path: string;
    sequential: { core: LatencySummary; bare: LatencySummary };
    load: { core: LoadResult; bare: LoadResult };
    /** Core requests/s over bare node:http requests/s. */
    throughputRatio: number;
  };
  search?: SearchComparison[];
  mcpStdio?: { mcp: LatencySummary; rest: LatencySummary; overheadP50: number };
  mcpHttp?: {
    mcp: LatencySummary;
    rest: LatencySummary;
    overheadP50: number;
    load: { mcp: LoadResult; rest: LoadResult };
    throughputRatio: number;
  };
  decisionsList?: LatencySummary;
  memory: {
    idle: ResidentMemory | null;
    afterLoad: ResidentMemory | null;
    /** Resident MiB after each workload, to show which one grows the core. */
    phases: { after: string; rssMiB: number }[];
  };
}

export interface TargetCheck {
  target: string;
  measured: string;
  /** null: the target applies to a size this run did not reach. */
  met: boolean | null;
}

export interface BenchSettings {
  quick: boolean;
  seed: number;
  sizes: number[];
  connections: number;
  loadSeconds: number;
  samples: number;
  /** Time budget of one latency comparison, in seconds; it stops early (after 30 samples at least) when spent. */
  sampleSeconds: number;
  principals: number;
  cliRuns: number;
  /** Who compared search with its bare SQL: the harness's FTS5 baseline, or bench/search for its engine. */
  searchComparedBy: 'harness' | 'bench/search';
}

export interface BenchResults {
  schema: 1;
  date: string;
  startedAt: string;
  finishedAt: string;
  settings: BenchSettings;
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGiB: number;
    node: string;
    platform: string;
    commit: string;
    /** 1-minute load average before and after: other work on the machine shows here. */
    loadAverage: { start: number; end: number };
  };
  sizes: SizeResult[];
  coldStart?: ColdStart;
  notMeasured: NotMeasured[];
  targets: TargetCheck[];
}
