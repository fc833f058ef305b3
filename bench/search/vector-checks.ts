import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import BetterSqlite3 from 'better-sqlite3';
import type { Scope } from '../../src/core/store/store.js';
import { openBareKeywordSearch } from './bare-search.js';
import { benchQueries } from './bench-queries.js';

/**
 * The true nearest documents by cosine for each query (unit vectors, so the dot product), by brute force over every
 * stored vector in one pass: what the signature scan plus re-rank is checked against.
 */
export function exactNeighbours(file: string, queries: Float32Array[], k: number): { score: number; docId: number }[][] {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  const best = queries.map(() => [] as { score: number; docId: number }[]);
  try {
    const dims = queries[0]!.length;
    const vector = new Float32Array(dims);
    const bytes = new Uint8Array(vector.buffer);
    const rows = db
      .prepare('SELECT s.doc_id, e.embedding FROM search_embeddings e JOIN search_signatures s ON s.seq = e.seq')
      .raw(true)
      .iterate() as IterableIterator<[number, Buffer]>;
    for (const [docId, blob] of rows) {
      if (blob.length !== dims * 4) continue;
      bytes.set(blob);
      for (const [q, query] of queries.entries()) {
        let dot = 0;
        for (let i = 0; i < dims; i += 1) dot += query[i]! * vector[i]!;
        const top = best[q]!;
        if (top.length < k || dot > top[top.length - 1]!.score) {
          top.push({ score: dot, docId });
          top.sort((a, b) => b.score - a.score || a.docId - b.docId);
          if (top.length > k) top.pop();
        }
      }
    }
  } finally {
    db.close();
  }
  return best;
}

const NAIVE_TIMEOUT_SECONDS = 120;

/** Runs in a child so that a query taking minutes can be stopped: argv = module, file, scope table, then parameters. */
const NAIVE_SCRIPT = `
const Database = require(process.argv[1]);
const [file, table, tenant, deployment, match, low, high] = process.argv.slice(2);
const db = new Database(file, { readonly: true });
const sql = 'SELECT d.record_id FROM ' + table + ' f JOIN search_docs d ON d.tenant_id = ? AND d.deployment_id = ? AND d.fts_key = f.rowid ' +
  "WHERE " + table + " MATCH ? AND d.kind = 'decision' AND d.ts BETWEEN ? AND ? ORDER BY bm25(" + table + ") LIMIT 20";
const started = performance.now();
const rows = db.prepare(sql).all(tenant, deployment, match, low, high);
console.log(JSON.stringify({ ms: performance.now() - started, rows: rows.length }));
`;

/**
 * The pathology the keyword leg avoids: a MATCH joined to the documents with the kind and date filters outside it
 * and ORDER BY bm25, which ranks every match before filtering; timed against the engine's own SQL for the same
 * search (the filters as rowid conditions inside FTS5).
 */
export function naiveFilteredSearch(file: string, scope: Scope): { naiveMs: number | null; oursMs: number; timeoutSeconds: number } {
  const query = benchQueries().find((q) => q.label === 'one month')!;
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  const { id } = db.prepare('SELECT id FROM search_scopes WHERE tenant_id = ? AND deployment_id = ?').get(scope.tenantId, scope.deploymentId) as {
    id: number;
  };
  db.close();
  const match = `"${query.text.replaceAll('"', '""')}"`;
  const child = spawnSync(
    process.execPath,
    ['-e', NAIVE_SCRIPT, createRequire(import.meta.url).resolve('better-sqlite3'), file, `search_fts_${id}`, scope.tenantId, scope.deploymentId, match, `${query.since}T00:00:00Z`, `${query.until}T23:59:59Z`],
    { timeout: NAIVE_TIMEOUT_SECONDS * 1000, encoding: 'utf8' },
  );
  const naiveMs = child.status === 0 ? (JSON.parse(child.stdout) as { ms: number }).ms : null;
  const bare = openBareKeywordSearch(file, scope);
  try {
    const filter = { types: ['decision' as const], since: query.since, until: query.until };
    bare.run(query.text, filter, 20);
    const started = performance.now();
    for (let i = 0; i < 10; i += 1) bare.run(query.text, filter, 20);
    return { naiveMs, oursMs: (performance.now() - started) / 10, timeoutSeconds: NAIVE_TIMEOUT_SECONDS };
  } finally {
    bare.close();
  }
}

