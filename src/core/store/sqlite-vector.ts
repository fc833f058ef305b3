import * as sqliteVec from 'sqlite-vec';
import type { ListableRecord, SearchableType } from '../../contract/index.js';
import type {
  EmbeddingBacklog,
  EmbeddingTask,
  KeywordQuery,
  RankedDoc,
  RankedDocs,
  Scope,
  SearchDoc,
  SearchIndex,
  SearchSnapshot,
  VectorQuery,
} from './store.js';
import { integer, text, type Sql } from './sqlite-db.js';
import { dayOf, KIND_CODES, keywordSearch, scopeId, toSearchDoc } from './sqlite-fts.js';
import { dayEnd, dayStart, loadRecord } from './sqlite-records.js';
import { MAX_DAY, SignatureMatrix, signatureOf, type ScanFilter } from './sqlite-vector-index.js';

/** How many nearest signatures are re-ranked with full vectors for each neighbour the leg returns. */
const COARSE_FACTOR = 8;
const MIN_COARSE = 200;
/** Re-ranked vectors whose documents are checked against the filters, per neighbour returned. */
const RERANK_MARGIN = 1.25;
/** Attempts a record gets before it waits for a reindex (provider outages do not count). */
export const MAX_EMBEDDING_ATTEMPTS = 5;
/** not_before of a task that gave up: later than any retry. */
const GAVE_UP = 8.64e15;
const CURRENT_SPACE = 'search.embedding_space';

/** The text of a queued record, whatever its kind: the joins use each table's (tenant, deployment, id) key. */
const TASK_SQL = `SELECT q.doc_id AS doc_id, coalesce(s.text, dc.text, oq.text, ai.text, t.name) AS text
  FROM embedding_queue q JOIN search_docs d ON d.rowid = q.doc_id
  LEFT JOIN statements s ON d.kind = 'statement'
    AND s.tenant_id = d.tenant_id AND s.deployment_id = d.deployment_id AND s.id = d.record_id
  LEFT JOIN decisions dc ON d.kind = 'decision'
    AND dc.tenant_id = d.tenant_id AND dc.deployment_id = d.deployment_id AND dc.id = d.record_id
  LEFT JOIN open_questions oq ON d.kind = 'open_question'
    AND oq.tenant_id = d.tenant_id AND oq.deployment_id = d.deployment_id AND oq.id = d.record_id
  LEFT JOIN action_items ai ON d.kind = 'action_item'
    AND ai.tenant_id = d.tenant_id AND ai.deployment_id = d.deployment_id AND ai.id = d.record_id
  LEFT JOIN topics t ON d.kind = 'topic'
    AND t.tenant_id = d.tenant_id AND t.deployment_id = d.deployment_id AND t.id = d.record_id
  WHERE q.not_before <= ? ORDER BY q.not_before, q.doc_id DESC LIMIT ?`;

function generationKey(spaceId: number): string {
  return `search.vectors.generation.${spaceId}`;
}

function json(values: readonly number[]): string {
  return JSON.stringify(values);
}

function vectorBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/**
 * The SQLite engine's search index: the keyword leg over per-deployment FTS5 tables, the vector leg as an
 * in-memory Hamming scan of 256-bit signatures re-ranked by sqlite-vec's exact cosine distance on the full
 * vectors, and the durable embedding queue. sqlite-vec is loaded into the connection the first time vectors are
 * compared, so a core without an embedding provider never needs it.
 */
export class SqliteSearchIndex implements SearchIndex {
  private readonly matrices = new Map<string, SignatureMatrix>();
  private vecLoaded = false;

  constructor(private readonly sql: Sql) {}

  async snapshot(): Promise<SearchSnapshot> {
    const row = this.sql.row(
      `SELECT coalesce((SELECT max(rowid) FROM search_docs), 0) AS docs,
        coalesce((SELECT max(seq) FROM search_signatures), 0) AS vectors`,
    );
    return { docs: integer(row ?? {}, 'docs'), vectors: integer(row ?? {}, 'vectors') };
  }

  async keyword(scope: Scope, query: KeywordQuery): Promise<RankedDocs> {
    return keywordSearch(this.sql, scope, query);
  }

  async vector(scope: Scope, query: VectorQuery): Promise<RankedDoc[]> {
    const scopeNumber = scopeId(this.sql, scope);
    const spaceId = this.spaceId(query.space);
    if (scopeNumber === null || spaceId === null || query.types.length === 0) return [];
    this.loadVectorExtension();
    const matrix = this.refreshedMatrix(scopeNumber, spaceId);
    const coarse = Math.max(MIN_COARSE, query.neighbours * COARSE_FACTOR);
    const candidates = matrix.nearest(signatureOf(query.embedding), scanFilter(query), coarse);
    if (candidates.length === 0) return [];
    return this.rerank(scope, query, candidates);
  }

  async warm(space: string): Promise<void> {
    const spaceId = this.spaceId(space);
    if (spaceId === null) return;
    for (const row of this.sql.rows('SELECT id FROM search_scopes')) this.refreshedMatrix(integer(row, 'id'), spaceId);
  }

  /**
   * Exact cosine distance of the candidates' full vectors, then every filter checked against the documents of the
   * nearest few (the scan has already applied all but the exact day of a topic). CROSS JOIN keeps the candidates the
   * outer loop: left to itself, the planner scans the scope's documents by kind.
   */
  private rerank(scope: Scope, query: VectorQuery, candidates: number[]): RankedDoc[] {
    const nearest = this.sql.rows(
      `SELECT c.value AS seq, vec_distance_cosine(e.embedding, ?) AS distance
        FROM json_each(?) c CROSS JOIN search_embeddings e ON e.seq = c.value
        WHERE vec_length(e.embedding) = ? ORDER BY distance, seq LIMIT ?`,
      vectorBlob(query.embedding),
      json(candidates),
      query.embedding.length,
      Math.ceil(query.neighbours * RERANK_MARGIN),
    );
    const kinds = [...new Set(query.types)];
    const docs = this.sql.rows(
      `SELECT c.value AS seq, d.rowid AS doc_id, d.kind, d.record_id
        FROM json_each(?) c CROSS JOIN search_signatures s ON s.seq = c.value CROSS JOIN search_docs d ON d.rowid = s.doc_id
        WHERE d.tenant_id = ? AND d.deployment_id = ? AND d.rowid <= ? AND d.ts BETWEEN ? AND ?
          AND d.kind IN (${kinds.map(() => '?').join(', ')})`,
      json(nearest.map((row) => integer(row, 'seq'))),
      scope.tenantId,
      scope.deploymentId,
      query.snapshot.docs,
      query.since === undefined ? '' : dayStart(query.since),
      query.until === undefined ? '\uffff' : dayEnd(query.until),
      ...kinds,
    );
    const bySeq = new Map(docs.map((row) => [integer(row, 'seq'), toSearchDoc(row)]));
    return nearest
      .flatMap((row) => {
        const doc = bySeq.get(integer(row, 'seq'));
        return doc ? [{ ...doc, score: 1 - Number(row.distance) }] : [];
      })
      .slice(0, query.neighbours);
  }

  async load(scope: Scope, docs: readonly SearchDoc[]): Promise<(ListableRecord | null)[]> {
    return docs.map((doc) => loadRecord(this.sql, doc.kind, scope, doc.recordId));
  }

  async useEmbeddingSpace(space: string): Promise<{ requeued: number }> {
    return this.sql.transaction(() => {
      const current = this.sql.row('SELECT value FROM settings WHERE key = ?', CURRENT_SPACE);
      if (current && text(current, 'value') === space) return { requeued: 0 };
      this.sql.run('INSERT OR IGNORE INTO embedding_spaces (name) VALUES (?)', space);
      this.sql.run(
        'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        CURRENT_SPACE,
        space,
      );
      const requeued = this.sql.run(
        `INSERT OR IGNORE INTO embedding_queue (doc_id)
          SELECT d.rowid FROM search_docs d
          WHERE NOT EXISTS (SELECT 1 FROM search_signatures s WHERE s.doc_id = d.rowid AND s.space_id = ?)`,
        this.spaceId(space),
      );
      return { requeued };
    });
  }

  async claimEmbeddingTasks(limit: number, leaseMs: number): Promise<EmbeddingTask[]> {
    return this.sql.transaction(() => {
      const now = Date.now();
      const tasks = this.sql
        .rows(TASK_SQL, now, limit)
        .map((row) => ({ docId: integer(row, 'doc_id'), text: typeof row.text === 'string' ? row.text : '' }));
      if (tasks.length > 0) {
        this.sql.run(
          'UPDATE embedding_queue SET not_before = ? WHERE doc_id IN (SELECT value FROM json_each(?))',
          now + leaseMs,
          json(tasks.map((task) => task.docId)),
        );
      }
      return tasks;
    });
  }

  async saveEmbeddings(space: string, vectors: readonly { docId: number; embedding: Float32Array }[]): Promise<void> {
    this.sql.transaction(() => {
      this.sql.run('INSERT OR IGNORE INTO embedding_spaces (name) VALUES (?)', space);
      const spaceId = this.spaceId(space);
      if (spaceId === null) throw new Error(`embedding space ${space} vanished inside its own transaction`);
      for (const { docId, embedding } of vectors) this.saveOne(spaceId, docId, embedding);
    });
  }

  private saveOne(spaceId: number, docId: number, embedding: Float32Array): void {
    this.sql.run('DELETE FROM embedding_queue WHERE doc_id = ?', docId);
    const doc = this.sql.row('SELECT tenant_id, deployment_id, kind, ts FROM search_docs WHERE rowid = ?', docId);
    if (!doc) return;
    const scope = { tenantId: text(doc, 'tenant_id'), deploymentId: text(doc, 'deployment_id') };
    const scopeNumber = scopeId(this.sql, scope);
    if (scopeNumber === null) return;
    const replaced = this.sql.rows('SELECT seq, space_id FROM search_signatures WHERE doc_id = ?', docId);
    if (replaced.some((row) => integer(row, 'space_id') === spaceId)) return;
    for (const row of replaced) {
      this.bumpGeneration(integer(row, 'space_id'));
      this.sql.run('DELETE FROM search_embeddings WHERE seq = ?', integer(row, 'seq'));
    }
    this.sql.run('DELETE FROM search_signatures WHERE doc_id = ?', docId);
    const { lastInsertRowid } = this.sql.prepared(
      `INSERT INTO search_signatures (doc_id, scope_id, space_id, kind, day, signature) VALUES (?, ?, ?, ?, ?, ?)`,
    ).run(docId, scopeNumber, spaceId, KIND_CODES[text(doc, 'kind') as SearchableType], dayOf(text(doc, 'ts')), signatureOf(embedding));
    this.sql.run('INSERT INTO search_embeddings (seq, embedding) VALUES (?, ?)', lastInsertRowid, vectorBlob(embedding));
  }

  async deferEmbeddingTasks(
    docIds: readonly number[],
    error: string,
    retryAt: number,
    countAttempt: boolean,
  ): Promise<void> {
    const increment = countAttempt ? 1 : 0;
    this.sql.run(
      `UPDATE embedding_queue SET attempts = attempts + ?, last_error = ?,
        not_before = CASE WHEN attempts + ? >= ? THEN ? ELSE ? END
        WHERE doc_id IN (SELECT value FROM json_each(?))`,
      increment,
      error.slice(0, 500),
      increment,
      MAX_EMBEDDING_ATTEMPTS,
      GAVE_UP,
      retryAt,
      json(docIds),
    );
  }

  async requeueEmbeddings(tenantId: string, deploymentId?: string): Promise<number> {
    const where = deploymentId === undefined ? 'tenant_id = ?' : 'tenant_id = ? AND deployment_id = ?';
    const params = deploymentId === undefined ? [tenantId] : [tenantId, deploymentId];
    return this.sql.transaction(() => {
      const docs = `SELECT rowid FROM search_docs WHERE ${where}`;
      for (const row of this.sql.rows('SELECT id FROM embedding_spaces')) this.bumpGeneration(integer(row, 'id'));
      this.sql.run(`DELETE FROM search_embeddings WHERE seq IN (SELECT seq FROM search_signatures WHERE doc_id IN (${docs}))`, ...params);
      this.sql.run(`DELETE FROM search_signatures WHERE doc_id IN (${docs})`, ...params);
      return this.sql.run(
        `INSERT OR REPLACE INTO embedding_queue (doc_id, attempts, not_before, last_error)
          SELECT rowid, 0, 0, NULL FROM search_docs WHERE ${where}`,
        ...params,
      );
    });
  }

  async embeddingBacklog(tenantId?: string): Promise<EmbeddingBacklog> {
    const current = this.sql.row('SELECT value FROM settings WHERE key = ?', CURRENT_SPACE);
    const spaceId = current ? this.spaceId(text(current, 'value')) : null;
    const inTenant = tenantId === undefined ? '' : ' AND d.tenant_id = ?';
    const tenant = tenantId === undefined ? [] : [tenantId];
    const queued = this.sql.row(
      `SELECT count(*) FILTER (WHERE q.not_before < ?) AS pending, count(*) FILTER (WHERE q.not_before >= ?) AS failed
        FROM embedding_queue q JOIN search_docs d ON d.rowid = q.doc_id WHERE 1 = 1${inTenant}`,
      GAVE_UP,
      GAVE_UP,
      ...tenant,
    );
    const embedded = this.sql.row(
      `SELECT count(*) AS n FROM search_signatures s JOIN search_docs d ON d.rowid = s.doc_id
        WHERE s.space_id = ?${inTenant}`,
      spaceId ?? -1,
      ...tenant,
    );
    return {
      pending: integer(queued ?? {}, 'pending'),
      failed: integer(queued ?? {}, 'failed'),
      embedded: integer(embedded ?? {}, 'n'),
    };
  }

  private spaceId(space: string): number | null {
    const row = this.sql.row('SELECT id FROM embedding_spaces WHERE name = ?', space);
    return row ? integer(row, 'id') : null;
  }

  /** Vectors of the space were removed: every process holding its signatures in memory loads them anew. */
  private bumpGeneration(spaceId: number): void {
    this.sql.run(
      `INSERT INTO settings (key, value) VALUES (?, '1')
        ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)`,
      generationKey(spaceId),
    );
  }

  /** The deployment's signatures in memory, brought up to date with what any process wrote since. */
  private refreshedMatrix(scopeNumber: number, spaceId: number): SignatureMatrix {
    const key = `${scopeNumber}:${spaceId}`;
    const generationRow = this.sql.row('SELECT value FROM settings WHERE key = ?', generationKey(spaceId));
    const generation = generationRow ? text(generationRow, 'value') : null;
    let matrix = this.matrices.get(key);
    if (!matrix || matrix.generation !== generation) {
      matrix = new SignatureMatrix(generation);
      this.matrices.set(key, matrix);
    }
    const rows = this.sql
      .prepared(
        `SELECT seq, doc_id, kind, day, signature FROM search_signatures
          WHERE scope_id = ? AND space_id = ? AND seq > ? ORDER BY seq`,
      )
      .raw(true)
      .iterate(scopeNumber, spaceId, matrix.loadedSeq) as IterableIterator<[number, number, number, number, Buffer]>;
    for (const [seq, docId, kind, day, signature] of rows) matrix.append({ seq, docId, kind, day, signature });
    return matrix;
  }

  /** sqlite-vec's distance functions, loaded into this connection once. */
  private loadVectorExtension(): void {
    if (this.vecLoaded) return;
    loadSqliteVec(this.sql);
    this.vecLoaded = true;
  }
}

/** Loads sqlite-vec (a prebuilt native extension) into the connection; throws when the platform has none. */
function loadSqliteVec(sql: Sql): void {
  sqliteVec.load(sql.db);
}

function scanFilter(query: VectorQuery): ScanFilter {
  let kindMask = 0;
  for (const kind of query.types) kindMask |= 1 << KIND_CODES[kind];
  return {
    kindMask,
    lowDay: query.since === undefined ? 0 : dayOf(`${query.since}T00:00:00Z`),
    highDay: query.until === undefined ? MAX_DAY : dayOf(`${query.until}T00:00:00Z`),
    maxSeq: query.snapshot.vectors,
    movingKind: KIND_CODES.topic,
  };
}
