import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { embeddingSpace } from '../../src/core/search/embedding-provider.js';
import { openSqliteStore } from '../../src/core/store/index.js';
import type { Scope, SearchIndex } from '../../src/core/store/store.js';
import type { RecordCounts } from '../generate.js';
import { ingestThroughStore, provisionBenchTenant } from '../ingest.js';
import { CONCEPT_DIMENSIONS, conceptEmbedding } from './concept-embedder.js';
import { CONCEPT_MODEL } from './embedding-server.js';

/** A generated deployment on disk, as the benchmark reuses it (`manifest.json` beside `memory.db`). */
export interface GeneratedDeployment {
  dataDir: string;
  databaseFile: string;
  scope: Scope;
  principals: { clientId: string; secret: string }[];
  counts: RecordCounts;
  /** Searchable records (statements, decisions, questions, action items, topics). */
  documents: number;
  ingestSeconds: number;
  embedSeconds: number;
}

export const BENCH_SPACE = embeddingSpace(CONCEPT_MODEL, CONCEPT_DIMENSIONS);
const EMBED_BATCH = 2000;

/**
 * Embeds every queued record with the concept embedder in-process and stores the vectors through the store, as the
 * worker would after an HTTP round trip (a million JSON-encoded vectors over loopback would only time JSON).
 */
async function embedAll(index: SearchIndex): Promise<number> {
  await index.useEmbeddingSpace(BENCH_SPACE);
  let total = 0;
  for (let tasks = await index.claimEmbeddingTasks(EMBED_BATCH, 60_000); tasks.length > 0; tasks = await index.claimEmbeddingTasks(EMBED_BATCH, 60_000)) {
    await index.saveEmbeddings(BENCH_SPACE, tasks.map((task) => ({ docId: task.docId, embedding: conceptEmbedding(task.text) })));
    total += tasks.length;
  }
  return total;
}

/**
 * The deployment for a seed and size in `dataDir`: generated through the store (importMeeting, as ingest writes)
 * and embedded, or read back from its manifest when a previous run left it there.
 */
export async function generatedDeployment(dataDir: string, seed: number, statements: number, log: (line: string) => void): Promise<GeneratedDeployment> {
  const manifestFile = join(dataDir, 'manifest.json');
  if (existsSync(manifestFile)) {
    log(`reusing the deployment in ${dataDir}`);
    return JSON.parse(await readFile(manifestFile, 'utf8')) as GeneratedDeployment;
  }
  await mkdir(dataDir, { recursive: true });
  const databaseFile = join(dataDir, 'memory.db');
  const store = await openSqliteStore(databaseFile);
  try {
    const tenant = await provisionBenchTenant(store, 8);
    log(`generating ${statements} statements (seed ${seed}) through the store...`);
    const ingest = await ingestThroughStore(store, tenant.scope, { seed, statements });
    log(`ingested in ${ingest.seconds.toFixed(0)} s; embedding every record...`);
    const started = performance.now();
    const documents = await embedAll(store.searchIndex!);
    const deployment: GeneratedDeployment = {
      dataDir,
      databaseFile,
      scope: tenant.scope,
      principals: tenant.principals,
      counts: ingest.counts,
      documents,
      ingestSeconds: ingest.seconds,
      embedSeconds: (performance.now() - started) / 1000,
    };
    await writeFile(manifestFile, `${JSON.stringify(deployment, null, 2)}\n`);
    return deployment;
  } finally {
    await store.close();
  }
}
