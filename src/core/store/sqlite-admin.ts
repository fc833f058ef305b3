import { randomUUID } from 'node:crypto';
import type { AgentBackend, MeetingStaging, PersonName, Scope, StagedStatement } from './store.js';
import { attribution, attributionValues, integer, maybeText, nowTimestamp, text, type Row, type Sql } from './sqlite-db.js';
import { importMeetingDocument } from './sqlite-import.js';
import { personNameKey } from './person-name.js';

/** A staging run older than this was left by a crashed import; the next import removes it. */
const STALE_RUN_MS = 24 * 60 * 60 * 1000;
/** Staged statements are read back in pages of this size, so a commit holds one page in memory at a time. */
const STAGED_PAGE = 1000;

export function toAgentBackend(row: Row): AgentBackend {
  return {
    url: text(row, 'url'),
    secretRef: text(row, 'secret_ref'),
    timeoutMs: integer(row, 'timeout_ms'),
    fallbackLine: text(row, 'fallback_line'),
    systemPrompt: maybeText(row, 'system_prompt'),
    updatedAt: text(row, 'updated_at'),
    updatedBy: text(row, 'updated_by'),
  };
}

/** Registers or replaces a deployment's agent backend. */
export function upsertAgentBackend(sql: Sql, scope: Scope, backend: Omit<AgentBackend, 'updatedAt'>): AgentBackend {
  sql.run(
    `INSERT INTO agent_backends (tenant_id, deployment_id, url, secret_ref, timeout_ms, fallback_line, system_prompt,
      updated_at, updated_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (tenant_id, deployment_id) DO UPDATE SET url = excluded.url, secret_ref = excluded.secret_ref,
      timeout_ms = excluded.timeout_ms, fallback_line = excluded.fallback_line, system_prompt = excluded.system_prompt,
      updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
    scope.tenantId,
    scope.deploymentId,
    backend.url,
    backend.secretRef,
    backend.timeoutMs,
    backend.fallbackLine,
    backend.systemPrompt,
    nowTimestamp(),
    backend.updatedBy,
  );
  const stored = readAgentBackend(sql, scope);
  if (!stored) throw new Error('agent backend vanished inside its own write');
  return stored;
}

export function readAgentBackend(sql: Sql, scope: Scope): AgentBackend | null {
  const row = sql.row(
    'SELECT * FROM agent_backends WHERE tenant_id = ? AND deployment_id = ?',
    scope.tenantId,
    scope.deploymentId,
  );
  return row ? toAgentBackend(row) : null;
}

/** Maps each name to its id, and records the name in the people directory so assignees resolve to it. */
export function upsertPersonNames(sql: Sql, tenantId: string, people: PersonName[]): void {
  sql.transaction(() => {
    for (const person of people) {
      sql.run(
        `INSERT INTO person_names (tenant_id, name_key, display_name, idp_id) VALUES (?, ?, ?, ?)
         ON CONFLICT (tenant_id, name_key) DO UPDATE SET display_name = excluded.display_name, idp_id = excluded.idp_id`,
        tenantId,
        personNameKey(person.displayName),
        person.displayName,
        person.idpId,
      );
      sql.run(
        `INSERT INTO people (tenant_id, idp_id, display_name) VALUES (?, ?, ?)
         ON CONFLICT (tenant_id, idp_id) DO UPDATE SET display_name = excluded.display_name`,
        tenantId,
        person.idpId,
        person.displayName,
      );
    }
  });
}

export function readPersonNames(sql: Sql, tenantId: string): PersonName[] {
  return sql
    .rows('SELECT display_name, idp_id FROM person_names WHERE tenant_id = ? ORDER BY name_key', tenantId)
    .map((row) => ({ idpId: text(row, 'idp_id'), displayName: text(row, 'display_name') }));
}

export function lookupPersonName(sql: Sql, tenantId: string, displayName: string): string | null {
  const row = sql.row(
    'SELECT idp_id FROM person_names WHERE tenant_id = ? AND name_key = ?',
    tenantId,
    personNameKey(displayName),
  );
  return row ? text(row, 'idp_id') : null;
}

/** The staged statements of a run in order, one page in memory at a time. */
function* stagedStatements(sql: Sql, runId: string): Generator<StagedStatement> {
  let after = 0;
  for (;;) {
    const rows = sql.rows(
      'SELECT * FROM ingest_statements WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?',
      runId,
      after,
      STAGED_PAGE,
    );
    for (const row of rows) {
      yield { id: text(row, 'id'), text: text(row, 'text'), spokenAt: text(row, 'spoken_at'), attribution: attribution(row, 'attribution') };
    }
    const last = rows.at(-1);
    if (!last || rows.length < STAGED_PAGE) return;
    after = integer(last, 'seq');
  }
}

/**
 * A streamed import's staging. Each batch is its own short transaction into `ingest_statements`, so other calls
 * run between batches and the parser's memory stays bounded; the commit then moves everything into memory inside
 * one transaction, which is the only time the import holds the write lock for long.
 */
export function beginStaging(sql: Sql, scope: Scope): MeetingStaging {
  const runId = randomUUID();
  const cutoff = new Date(Date.now() - STALE_RUN_MS).toISOString();
  sql.transaction(() => {
    sql.run('DELETE FROM ingest_runs WHERE started_at < ?', cutoff);
    sql.run(
      'INSERT INTO ingest_runs (id, tenant_id, deployment_id, started_at) VALUES (?, ?, ?, ?)',
      runId,
      scope.tenantId,
      scope.deploymentId,
      new Date().toISOString(),
    );
  });
  let seq = 0;
  let open = true;
  const ensureOpen = () => {
    if (!open) throw new Error('this meeting import has already been committed or discarded');
  };
  const dropRun = () => sql.run('DELETE FROM ingest_runs WHERE id = ?', runId);
  return {
    async add(statements) {
      ensureOpen();
      sql.transaction(() => {
        for (const s of statements) {
          sql.run(
            `INSERT INTO ingest_statements (run_id, seq, id, text, spoken_at,
              attribution_kind, attribution_display_name, attribution_idp_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
            runId,
            ++seq,
            s.id,
            s.text,
            s.spokenAt,
            ...attributionValues(s.attribution),
          );
        }
      });
    },
    async commit(doc) {
      ensureOpen();
      open = false;
      try {
        return sql.transaction(() => {
          const outcome = importMeetingDocument(sql, scope, doc, () => stagedStatements(sql, runId));
          dropRun();
          return outcome;
        });
      } catch (error) {
        dropRun();
        throw error;
      }
    },
    async discard() {
      if (!open) return;
      open = false;
      dropRun();
    },
  };
}
