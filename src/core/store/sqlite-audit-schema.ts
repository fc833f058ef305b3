import { GENESIS_HASH } from '../audit/chain.js';

/** The condition under which audit rows may go: the retention job opens the gate inside its own transaction. */
const GATE_CLOSED = '(SELECT open FROM audit_gate WHERE id = 1) IS NOT 1';

function refuseAudit(table: string, event: 'UPDATE' | 'DELETE', when: string | null, reason: string): string {
  const condition = when ? ` WHEN ${when}` : '';
  return `CREATE TRIGGER ${table}_no_${event.toLowerCase()} BEFORE ${event} ON ${table}${condition}
    BEGIN SELECT RAISE(ABORT, '${table}: ${event.toLowerCase()} refused, ${reason}'); END;`;
}

/**
 * The audit log: append-only in the database itself. Rows are never updated; they are deleted only while the
 * one-row gate is open, which the retention job does and undoes within its own transaction, so no other
 * connection ever sees it open. Each kind (read, action) is its own hash chain; `audit_chains` keeps the hash a
 * chain starts from (the genesis hash, or the last entry pruned), so the chain still verifies after pruning and
 * a front cut made outside the job shows.
 */
export const AUDIT_SCHEMA_SQL = `
CREATE TABLE audit_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  at TEXT NOT NULL,
  surface TEXT NOT NULL CHECK (surface IN ('rest', 'mcp')),
  tenant_id TEXT,
  principal_oid TEXT,
  remote_address TEXT,
  operation TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('read', 'action')),
  deployment_id TEXT,
  record_ids TEXT NOT NULL,
  status INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
) STRICT;
CREATE INDEX audit_log_by_tenant ON audit_log (tenant_id, seq);
CREATE INDEX audit_log_by_kind ON audit_log (kind, seq);

CREATE TABLE audit_chains (
  kind TEXT PRIMARY KEY CHECK (kind IN ('read', 'action')),
  anchor_hash TEXT NOT NULL,
  pruned INTEGER NOT NULL
) STRICT;
INSERT INTO audit_chains (kind, anchor_hash, pruned) VALUES ('read', '${GENESIS_HASH}', 0), ('action', '${GENESIS_HASH}', 0);

CREATE TABLE audit_gate (id INTEGER PRIMARY KEY CHECK (id = 1), open INTEGER NOT NULL CHECK (open IN (0, 1))) STRICT;
INSERT INTO audit_gate (id, open) VALUES (1, 0);

${refuseAudit('audit_log', 'UPDATE', null, 'the audit log is append-only')}
${refuseAudit('audit_log', 'DELETE', GATE_CLOSED, 'only the retention job removes entries')}
${refuseAudit('audit_chains', 'UPDATE', GATE_CLOSED, 'only the retention job moves an anchor')}
${refuseAudit('audit_chains', 'DELETE', null, 'the chain anchors are permanent')}
${refuseAudit('audit_gate', 'DELETE', null, 'the retention gate is permanent')}
`;
