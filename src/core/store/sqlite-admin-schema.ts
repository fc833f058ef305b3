/**
 * The admin surface's tables: each deployment's agent backend, the tenant's speaker-name mappings, and the staging
 * area a streamed meeting import fills before it commits. Staged rows are not memory: nothing reads them but the
 * commit, and they are removed when it ends (or, after a crash, by the next import a day later).
 */
export const ADMIN_SCHEMA_SQL = `
CREATE TABLE agent_backends (
  tenant_id TEXT NOT NULL,
  deployment_id TEXT NOT NULL,
  url TEXT NOT NULL,
  secret_ref TEXT NOT NULL,
  timeout_ms INTEGER NOT NULL CHECK (timeout_ms BETWEEN 1000 AND 30000),
  fallback_line TEXT NOT NULL,
  system_prompt TEXT,
  updated_at TEXT NOT NULL,
  updated_by TEXT NOT NULL,
  PRIMARY KEY (tenant_id, deployment_id),
  FOREIGN KEY (tenant_id, deployment_id) REFERENCES deployments (tenant_id, id)
) STRICT;

CREATE TABLE person_names (
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  name_key TEXT NOT NULL,
  display_name TEXT NOT NULL,
  idp_id TEXT NOT NULL,
  PRIMARY KEY (tenant_id, name_key)
) STRICT;

CREATE TABLE ingest_runs (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  deployment_id TEXT NOT NULL,
  started_at TEXT NOT NULL
) STRICT;
CREATE INDEX ingest_runs_by_start ON ingest_runs (started_at);

CREATE TABLE ingest_statements (
  run_id TEXT NOT NULL REFERENCES ingest_runs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  id TEXT NOT NULL,
  text TEXT NOT NULL,
  spoken_at TEXT NOT NULL,
  attribution_kind TEXT NOT NULL,
  attribution_display_name TEXT,
  attribution_idp_id TEXT,
  PRIMARY KEY (run_id, seq)
) STRICT;
`;
