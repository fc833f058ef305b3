/**
 * Hybrid search's tables. Keyword: one contentless FTS5 table per deployment (`search_fts_<id>`, created when the
 * deployment's first record is indexed), so BM25 statistics and query cost belong to that deployment alone, and a
 * key per document that orders the table by day and kind (see sqlite-fts.ts). Semantic: a durable queue of records
 * waiting for an embedding, and per record a compact signature (scanned in memory) and its full vector (re-ranks
 * the nearest signatures with sqlite-vec's cosine distance). memory_fts held every deployment in one table with
 * facet tokens inside the MATCH; its rows are rebuilt into the new tables when the store opens.
 */
export const SEARCH_SCHEMA_SQL = `
CREATE TABLE search_scopes (
  id INTEGER PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  deployment_id TEXT NOT NULL,
  UNIQUE (tenant_id, deployment_id),
  FOREIGN KEY (tenant_id, deployment_id) REFERENCES deployments (tenant_id, id)
) STRICT;

ALTER TABLE search_docs ADD COLUMN fts_key INTEGER;
CREATE UNIQUE INDEX search_docs_by_key ON search_docs (tenant_id, deployment_id, fts_key);
CREATE INDEX search_docs_unkeyed ON search_docs (fts_key) WHERE fts_key IS NULL;
DROP TABLE memory_fts;

CREATE TABLE embedding_spaces (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
) STRICT;

-- not_before is in ms since the epoch: 0 for a new task, a lease or retry time otherwise.
CREATE TABLE embedding_queue (
  doc_id INTEGER PRIMARY KEY REFERENCES search_docs (rowid),
  attempts INTEGER NOT NULL DEFAULT 0,
  not_before INTEGER NOT NULL DEFAULT 0,
  last_error TEXT
) STRICT;
CREATE INDEX embedding_queue_due ON embedding_queue (not_before, doc_id DESC);
INSERT INTO embedding_queue (doc_id) SELECT rowid FROM search_docs;

-- seq orders vectors as they were written, so the in-memory scan loads only what is new.
CREATE TABLE search_signatures (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  doc_id INTEGER NOT NULL UNIQUE REFERENCES search_docs (rowid),
  scope_id INTEGER NOT NULL REFERENCES search_scopes (id),
  space_id INTEGER NOT NULL REFERENCES embedding_spaces (id),
  kind INTEGER NOT NULL,
  day INTEGER NOT NULL,
  signature BLOB NOT NULL
) STRICT;
CREATE INDEX search_signatures_by_scope ON search_signatures (scope_id, space_id, seq);

-- Keyed by the signature's seq, which only grows: rows are appended in key order and pages stay full, whatever
-- order the queue embeds records in (newest first).
CREATE TABLE search_embeddings (
  seq INTEGER PRIMARY KEY REFERENCES search_signatures (seq),
  embedding BLOB NOT NULL
) STRICT;
`;
