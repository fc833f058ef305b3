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
import { APP_ROLE, type Db, type Tx } from './postgres-db.js';
import { toRecords } from './postgres-records.js';
import { grant, keywordSearchSql, tenantPolicy } from './postgres-schema.js';
import { keywordArgs } from './postgres-search.js';
import { text, type Row } from './sqlite-db.js';
import { dayEnd, dayStart } from './sqlite-records.js';
import { MAX_EMBEDDING_ATTEMPTS } from './sqlite-vector.js';

/** not_before of a task that gave up: later than any retry (as on SQLite). */
const GAVE_UP = 8.64e15;
const CURRENT_SPACE = 'search.embedding_space';

/**
 * The semantic leg's tables, installed once pgvector is: documents get a number (the SearchIndex's docId), new
 * documents are queued for embedding by a trigger in their own transaction, and each document holds at most one
 * vector (in the space it was embedded in). `vector` is the extension's schema, quoted.
 *
 * The queue and the vectors are tenant tables (RLS like the rest); the worker, which serves every tenant, claims,
 * defers and saves through SECURITY DEFINER functions that touch nothing but the queue and the vectors, and reads the
 * records' texts afterwards as the app role, tenant by tenant.
 */
export function vectorSchema(owner: string, vector: string): string {
  const ownerAll = (table: string) => `CREATE POLICY ${table}_owner ON ${table} TO ${owner} USING (true) WITH CHECK (true);`;
  return `
ALTER TABLE search_docs ADD COLUMN doc_id bigint GENERATED ALWAYS AS IDENTITY;
ALTER TABLE search_docs ADD CONSTRAINT search_docs_doc_id UNIQUE (doc_id);

CREATE TABLE embedding_spaces (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text COLLATE "C" NOT NULL UNIQUE
);
${grant('embedding_spaces', ['SELECT', 'INSERT'])}

-- not_before is in ms since the epoch: 0 for a new task, a lease or retry time otherwise.
CREATE TABLE embedding_queue (
  doc_id bigint PRIMARY KEY REFERENCES search_docs (doc_id),
  tenant_id memory_id NOT NULL,
  deployment_id memory_id NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  not_before bigint NOT NULL DEFAULT 0,
  last_error text
);
CREATE INDEX embedding_queue_due ON embedding_queue (not_before, doc_id DESC);
${tenantPolicy('embedding_queue')}
${ownerAll('embedding_queue')}
${grant('embedding_queue', ['SELECT', 'INSERT', 'DELETE'], ['attempts', 'not_before', 'last_error'])}

CREATE TABLE search_vectors (
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  doc_id bigint PRIMARY KEY REFERENCES search_docs (doc_id),
  tenant_id memory_id NOT NULL,
  deployment_id memory_id NOT NULL,
  space_id integer NOT NULL REFERENCES embedding_spaces (id),
  embedding ${vector}.vector NOT NULL
);
CREATE INDEX search_vectors_by_scope ON search_vectors (tenant_id, deployment_id, space_id);
${tenantPolicy('search_vectors')}
${ownerAll('search_vectors')}
${grant('search_vectors', ['SELECT', 'DELETE'])}

-- Every document is queued in the transaction that indexes it, so no record is lost across restarts.
CREATE FUNCTION memory_queue_new_docs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO embedding_queue (doc_id, tenant_id, deployment_id) SELECT doc_id, tenant_id, deployment_id FROM added;
  RETURN NULL;
END $$;
CREATE TRIGGER search_docs_queue AFTER INSERT ON search_docs REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION memory_queue_new_docs();
INSERT INTO embedding_queue (doc_id, tenant_id, deployment_id) SELECT doc_id, tenant_id, deployment_id FROM search_docs;

-- Due tasks for one worker: SKIP LOCKED hands a task to one worker only, and the lease keeps it from the others
-- until it is saved, deferred or the worker is presumed dead.
CREATE FUNCTION memory_claim_embeddings(p_now bigint, p_limit integer, p_lease bigint)
RETURNS TABLE (doc_id bigint, tenant_id text, deployment_id text, kind text, record_id text)
LANGUAGE sql SECURITY DEFINER SET search_path FROM CURRENT AS $$
  WITH due AS (
    SELECT q.doc_id FROM embedding_queue q WHERE q.not_before <= p_now
    ORDER BY q.not_before, q.doc_id DESC LIMIT p_limit FOR UPDATE SKIP LOCKED
  ), leased AS (
    UPDATE embedding_queue q SET not_before = p_now + p_lease FROM due WHERE q.doc_id = due.doc_id RETURNING q.doc_id
  )
  SELECT d.doc_id, d.tenant_id::text, d.deployment_id::text, d.kind, d.record_id::text
  FROM leased JOIN search_docs d ON d.doc_id = leased.doc_id
$$;

CREATE FUNCTION memory_defer_embeddings(p_docs bigint[], p_error text, p_retry bigint, p_increment integer)
RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path FROM CURRENT AS $$
  UPDATE embedding_queue SET attempts = attempts + p_increment, last_error = left(p_error, 500),
    not_before = CASE WHEN attempts + p_increment >= ${MAX_EMBEDDING_ATTEMPTS} THEN ${GAVE_UP}::bigint ELSE p_retry END
  WHERE doc_id = ANY (p_docs)
$$;

-- Stores vectors in the space and removes their tasks; a document that already has its vector in the space keeps it.
CREATE FUNCTION memory_save_embeddings(p_space text, p_docs bigint[], p_vectors text[])
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE space integer;
BEGIN
  INSERT INTO embedding_spaces (name) VALUES (p_space) ON CONFLICT (name) DO NOTHING;
  SELECT id INTO space FROM embedding_spaces WHERE name = p_space;
  DELETE FROM embedding_queue WHERE doc_id = ANY (p_docs);
  -- A vector of another space goes, and the new one gets a new seq: snapshots taken before do not see it.
  DELETE FROM search_vectors WHERE doc_id = ANY (p_docs) AND space_id <> space;
  INSERT INTO search_vectors (doc_id, tenant_id, deployment_id, space_id, embedding)
    SELECT d.doc_id, d.tenant_id, d.deployment_id, space, v.embedding::${vector}.vector
    FROM unnest(p_docs, p_vectors) AS v (doc_id, embedding) JOIN search_docs d ON d.doc_id = v.doc_id
  ON CONFLICT (doc_id) DO NOTHING;
END $$;

-- Makes p_space the current one; switching queues every document that has no vector in it yet.
CREATE FUNCTION memory_use_space(p_space text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE space integer; queued bigint;
BEGIN
  IF (SELECT value FROM settings WHERE key = '${CURRENT_SPACE}') IS NOT DISTINCT FROM p_space THEN RETURN 0; END IF;
  INSERT INTO embedding_spaces (name) VALUES (p_space) ON CONFLICT (name) DO NOTHING;
  SELECT id INTO space FROM embedding_spaces WHERE name = p_space;
  INSERT INTO settings (key, value) VALUES ('${CURRENT_SPACE}', p_space) ON CONFLICT (key) DO UPDATE SET value = excluded.value;
  INSERT INTO embedding_queue (doc_id, tenant_id, deployment_id)
    SELECT d.doc_id, d.tenant_id, d.deployment_id FROM search_docs d
    WHERE NOT EXISTS (SELECT 1 FROM search_vectors v WHERE v.doc_id = d.doc_id AND v.space_id = space)
  ON CONFLICT (doc_id) DO NOTHING;
  GET DIAGNOSTICS queued = ROW_COUNT;
  RETURN queued;
END $$;

CREATE FUNCTION memory_search_snapshot() RETURNS TABLE (docs bigint, vectors bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $$
  SELECT coalesce((SELECT max(doc_id) FROM search_docs), 0), coalesce((SELECT max(seq) FROM search_vectors), 0)
$$;

-- The backlog of every tenant (p_tenant NULL) or of one: what is waiting, what gave up, what is embedded.
CREATE FUNCTION memory_embedding_backlog(p_tenant text) RETURNS TABLE (pending bigint, failed bigint, embedded bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $$
  SELECT
    (SELECT count(*) FROM embedding_queue WHERE not_before < ${GAVE_UP}::bigint AND (p_tenant IS NULL OR tenant_id = p_tenant)),
    (SELECT count(*) FROM embedding_queue WHERE not_before >= ${GAVE_UP}::bigint AND (p_tenant IS NULL OR tenant_id = p_tenant)),
    (SELECT count(*) FROM search_vectors v JOIN embedding_spaces s ON s.id = v.space_id
      WHERE s.name = (SELECT value FROM settings WHERE key = '${CURRENT_SPACE}') AND (p_tenant IS NULL OR v.tenant_id = p_tenant))
$$;

${keywordSearchSql('memory_keyword_docs', true)}

REVOKE ALL ON FUNCTION memory_claim_embeddings(bigint, integer, bigint), memory_defer_embeddings(bigint[], text, bigint, integer),
  memory_save_embeddings(text, bigint[], text[]), memory_use_space(text), memory_search_snapshot(),
  memory_embedding_backlog(text),
  memory_keyword_docs(text, text[], text[], tsquery, text[], text, text, integer, integer, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION memory_claim_embeddings(bigint, integer, bigint), memory_defer_embeddings(bigint[], text, bigint, integer),
  memory_save_embeddings(text, bigint[], text[]), memory_use_space(text), memory_search_snapshot(),
  memory_embedding_backlog(text),
  memory_keyword_docs(text, text[], text[], tsquery, text[], text, text, integer, integer, bigint) TO ${APP_ROLE};
`;
}

function vectorLiteral(embedding: Float32Array): string {
  return `[${Array.from(embedding).join(',')}]`;
}

function toSearchDoc(row: Row): SearchDoc {
  return { docId: Number(row.doc_id), kind: text(row, 'kind') as SearchableType, recordId: text(row, 'record_id') };
}

/** The text each kind is embedded from: the record's words (a topic's name). */
const TEXT_OF: Record<SearchableType, { table: string; column: string }> = {
  statement: { table: 'statements', column: 'text' },
  decision: { table: 'decisions', column: 'text' },
  open_question: { table: 'open_questions', column: 'text' },
  action_item: { table: 'action_items', column: 'text' },
  topic: { table: 'topics', column: 'name' },
};

/**
 * The PostgreSQL search index, present when pgvector is: the keyword leg (the same tiers as the store's search,
 * with document numbers and the snapshot), the vector leg (exact cosine distance with pgvector over the deployment's
 * vectors in the query's space), and the durable embedding queue every replica's worker drains without two of them
 * ever embedding one record at once.
 */
export class PostgresSearchIndex implements SearchIndex {
  /** `pgvector`: the schema pgvector's types and operators live in, quoted. */
  constructor(
    private readonly db: Db,
    private readonly pgvector: string,
  ) {}

  async snapshot(): Promise<SearchSnapshot> {
    const row = await this.db.read(null, (tx) => tx.row('SELECT docs, vectors FROM memory_search_snapshot()'));
    return { docs: Number(row?.docs ?? 0), vectors: Number(row?.vectors ?? 0) };
  }

  async keyword(scope: Scope, query: KeywordQuery): Promise<RankedDocs> {
    const args = keywordArgs(scope, query);
    if (args === null) return { docs: [], capped: false, total: 0 };
    const rows = await this.db.snapshot(scope.tenantId, (tx) =>
      tx.rows('SELECT * FROM memory_keyword_docs($1, $2, $3, $4::tsquery, $5, $6, $7, $8, $9, $10)', [...args, query.snapshot.docs]),
    );
    const total = Math.min(rows.length, query.cap);
    const docs = rows.slice(0, Math.min(total, query.depth ?? query.cap)).map((row) => ({ ...toSearchDoc(row), score: Number(row.relevance) }));
    return { docs, capped: rows.length > query.cap, total };
  }

  async vector(scope: Scope, query: VectorQuery): Promise<RankedDoc[]> {
    const types = [...new Set(query.types)];
    if (types.length === 0) return [];
    const distance = `v.embedding OPERATOR(${this.pgvector}.<=>) $3::${this.pgvector}.vector`;
    const rows = await this.db.read(scope.tenantId, (tx) =>
      tx.rows(
        `SELECT d.doc_id, d.kind, d.record_id, 1 - (${distance}) AS score
         FROM search_vectors v JOIN embedding_spaces s ON s.id = v.space_id
         JOIN search_docs d ON d.doc_id = v.doc_id
         WHERE v.tenant_id = $1 AND v.deployment_id = $2 AND s.name = $4
           AND ${this.pgvector}.vector_dims(v.embedding) = $5
           AND d.doc_id <= $6 AND v.seq <= $7 AND d.kind = ANY($8::text[])
           AND ($9::text IS NULL OR d.ts >= $9) AND ($10::text IS NULL OR d.ts <= $10)
         ORDER BY ${distance}, d.doc_id LIMIT $11`,
        [
          scope.tenantId,
          scope.deploymentId,
          vectorLiteral(query.embedding),
          query.space,
          query.embedding.length,
          query.snapshot.docs,
          query.snapshot.vectors,
          types,
          query.since === undefined ? null : dayStart(query.since),
          query.until === undefined ? null : dayEnd(query.until),
          query.neighbours,
        ],
      ),
    );
    return rows.map((row) => ({ ...toSearchDoc(row), score: Number(row.score) }));
  }

  /** Nothing to ready: the vectors stay in the database, which every replica queries directly. */
  async warm(): Promise<void> {}

  async load(scope: Scope, docs: readonly SearchDoc[]): Promise<(ListableRecord | null)[]> {
    return this.db.read(scope.tenantId, async (tx) => {
      const found = new Map<string, ListableRecord>();
      for (const kind of new Set(docs.map((doc) => doc.kind))) {
        const ids = docs.filter((doc) => doc.kind === kind).map((doc) => doc.recordId);
        const rows = await tx.rows(
          `SELECT * FROM ${TEXT_OF[kind].table} WHERE tenant_id = $1 AND deployment_id = $2 AND id = ANY($3::text[])`,
          [scope.tenantId, scope.deploymentId, ids],
        );
        for (const record of await toRecords(tx, kind, scope, rows)) found.set(`${kind}:${record.id}`, record);
      }
      return docs.map((doc) => found.get(`${doc.kind}:${doc.recordId}`) ?? null);
    });
  }

  async useEmbeddingSpace(space: string): Promise<{ requeued: number }> {
    const row = await this.db.write(null, (tx) => tx.row('SELECT memory_use_space($1) AS queued', [space]));
    return { requeued: Number(row?.queued ?? 0) };
  }

  /** Claims as the owner (the queue spans tenants), then reads each tenant's texts as the app role, under its policies. */
  async claimEmbeddingTasks(limit: number, leaseMs: number): Promise<EmbeddingTask[]> {
    const claimed = await this.db.write(null, (tx) =>
      tx.rows('SELECT * FROM memory_claim_embeddings($1, $2, $3)', [Date.now(), limit, leaseMs]),
    );
    const tasks: EmbeddingTask[] = [];
    for (const tenant of new Set(claimed.map((row) => text(row, 'tenant_id')))) {
      const mine = claimed.filter((row) => row.tenant_id === tenant);
      const texts = await this.db.read(tenant, (tx) => textsOf(tx, tenant, mine));
      for (const row of mine) tasks.push({ docId: Number(row.doc_id), text: texts.get(Number(row.doc_id)) ?? '' });
    }
    return tasks;
  }

  async saveEmbeddings(space: string, vectors: readonly { docId: number; embedding: Float32Array }[]): Promise<void> {
    await this.db.write(null, (tx) =>
      tx.run('SELECT memory_save_embeddings($1, $2::bigint[], $3::text[])', [
        space,
        vectors.map((v) => v.docId),
        vectors.map((v) => vectorLiteral(v.embedding)),
      ]),
    );
  }

  async deferEmbeddingTasks(docIds: readonly number[], error: string, retryAt: number, countAttempt: boolean): Promise<void> {
    await this.db.write(null, (tx) =>
      tx.run('SELECT memory_defer_embeddings($1::bigint[], $2, $3, $4)', [[...docIds], error, retryAt, countAttempt ? 1 : 0]),
    );
  }

  /** Drops the tenant's (or one deployment's) vectors and queues its documents again, inside its tenant context. */
  async requeueEmbeddings(tenantId: string, deploymentId?: string): Promise<number> {
    return this.db.write(tenantId, async (tx) => {
      const params = [tenantId, deploymentId ?? null];
      const inScope = 'tenant_id = $1 AND ($2::text IS NULL OR deployment_id = $2)';
      await tx.run(`DELETE FROM search_vectors WHERE ${inScope}`, params);
      await tx.run(`DELETE FROM embedding_queue WHERE ${inScope}`, params);
      return tx.run(
        `INSERT INTO embedding_queue (doc_id, tenant_id, deployment_id)
         SELECT doc_id, tenant_id, deployment_id FROM search_docs WHERE ${inScope}`,
        params,
      );
    });
  }

  async embeddingBacklog(tenantId?: string): Promise<EmbeddingBacklog> {
    const row = await this.db.read(null, (tx) =>
      tx.row('SELECT pending, failed, embedded FROM memory_embedding_backlog($1)', [tenantId ?? null]),
    );
    return { pending: Number(row?.pending ?? 0), failed: Number(row?.failed ?? 0), embedded: Number(row?.embedded ?? 0) };
  }
}

/** The texts of one tenant's claimed documents, by docId. */
async function textsOf(tx: Tx, tenantId: string, claimed: Row[]): Promise<Map<number, string>> {
  const texts = new Map<number, string>();
  for (const kind of new Set(claimed.map((row) => text(row, 'kind') as SearchableType))) {
    const ofKind = claimed.filter((row) => row.kind === kind);
    const { table, column } = TEXT_OF[kind];
    const rows = await tx.rows(
      `SELECT c.doc_id, r.${column} AS body FROM unnest($2::bigint[], $3::text[], $4::text[]) AS c (doc_id, deployment_id, record_id)
       JOIN ${table} r ON r.tenant_id = $1 AND r.deployment_id = c.deployment_id AND r.id = c.record_id`,
      [tenantId, ofKind.map((row) => Number(row.doc_id)), ofKind.map((row) => text(row, 'deployment_id')), ofKind.map((row) => text(row, 'record_id'))],
    );
    for (const row of rows) texts.set(Number(row.doc_id), text(row, 'body'));
  }
  return texts;
}
