import { randomUUID } from 'node:crypto';
import type { Access, Deployment } from '../../contract/index.js';
import type { AgentBackend, Grant, MeetingStaging, PersonName, Principal, Scope, Tenant } from './store.js';
import type { Db, Tx } from './postgres-db.js';
import { importMeetingDocument, insertMany } from './postgres-import.js';
import { grant, tenantPolicy } from './postgres-schema.js';
import { attributionColumns } from './sqlite-migrations.js';
import { DOCUMENT_SQL, facetLexeme } from './postgres-search.js';
import { personNameKey } from './person-name.js';
import { attributionValues, normalizeTimestamp, nowTimestamp, text } from './sqlite-db.js';
import { toAgentBackend } from './sqlite-admin.js';
import { toDeployment, toPrincipal, toTenant } from './sqlite-store.js';

/** A staging run older than this was left by a crashed import; the tenant's next import removes it. */
const STALE_RUN = '1 day';

/** Version 3: each deployment's agent backend, the tenant's speaker-name mappings, and streamed-import staging. */
export const ADMIN_SCHEMA = `
CREATE TABLE agent_backends (
  tenant_id memory_id NOT NULL,
  deployment_id memory_id NOT NULL,
  url text NOT NULL,
  secret_ref text NOT NULL,
  timeout_ms integer NOT NULL CHECK (timeout_ms BETWEEN 1000 AND 30000),
  fallback_line text NOT NULL,
  system_prompt text,
  updated_at memory_ts NOT NULL,
  updated_by text NOT NULL,
  PRIMARY KEY (tenant_id, deployment_id),
  FOREIGN KEY (tenant_id, deployment_id) REFERENCES deployments (tenant_id, id)
);
${tenantPolicy('agent_backends')}
${grant('agent_backends', ['SELECT', 'INSERT'], ['url', 'secret_ref', 'timeout_ms', 'fallback_line', 'system_prompt', 'updated_at', 'updated_by'])}

CREATE TABLE person_names (
  tenant_id memory_id NOT NULL REFERENCES tenants (id),
  name_key text COLLATE "C" NOT NULL,
  display_name text NOT NULL,
  idp_id text NOT NULL,
  PRIMARY KEY (tenant_id, name_key)
);
${tenantPolicy('person_names')}
${grant('person_names', ['SELECT', 'INSERT'], ['display_name', 'idp_id'])}

-- Staged rows are not memory: nothing reads them but the commit, which removes them with their run.
CREATE TABLE ingest_runs (
  id memory_id PRIMARY KEY,
  tenant_id memory_id NOT NULL,
  deployment_id memory_id NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (tenant_id, deployment_id) REFERENCES deployments (tenant_id, id)
);
CREATE INDEX ingest_runs_by_start ON ingest_runs (tenant_id, started_at);
${tenantPolicy('ingest_runs')}
${grant('ingest_runs', ['SELECT', 'INSERT', 'DELETE'])}

CREATE TABLE ingest_statements (
  tenant_id memory_id NOT NULL,
  run_id memory_id NOT NULL REFERENCES ingest_runs (id) ON DELETE CASCADE,
  seq integer NOT NULL,
  id memory_id NOT NULL,
  text text NOT NULL,
  spoken_at memory_ts NOT NULL,
  ${attributionColumns('attribution', false)},
  PRIMARY KEY (run_id, seq)
);
${tenantPolicy('ingest_statements')}
${grant('ingest_statements', ['SELECT', 'INSERT', 'DELETE'])}
`;

/** Renames a tenant or moves its region; null when there is no such tenant. */
export async function updateTenant(db: Db, id: string, change: { name?: string; region?: 'us' | 'ca' }): Promise<Tenant | null> {
  const row = await db.write(id, (tx) =>
    tx.row('UPDATE tenants SET name = coalesce($1, name), region = coalesce($2, region) WHERE id = $3 RETURNING *', [
      change.name ?? null,
      change.region ?? null,
      id,
    ]),
  );
  return row ? toTenant(row) : null;
}

/** A tenant's deployments by name (byte order, as on SQLite), then id. */
export async function listTenantDeployments(db: Db, tenantId: string): Promise<Omit<Deployment, 'access'>[]> {
  const rows = await db.read(tenantId, (tx) =>
    tx.rows('SELECT * FROM deployments WHERE tenant_id = $1 ORDER BY name COLLATE "C", id', [tenantId]),
  );
  return rows.map(toDeployment);
}

export async function getDeployment(db: Db, tenantId: string, id: string): Promise<Omit<Deployment, 'access'> | null> {
  const row = await db.read(tenantId, (tx) => tx.row('SELECT * FROM deployments WHERE tenant_id = $1 AND id = $2', [tenantId, id]));
  return row ? toDeployment(row) : null;
}

export async function listPrincipals(db: Db, tenantId: string): Promise<Principal[]> {
  const rows = await db.read(tenantId, (tx) =>
    tx.rows('SELECT * FROM principals WHERE tenant_id = $1 ORDER BY display_name COLLATE "C", client_id', [tenantId]),
  );
  return rows.map(toPrincipal);
}

export async function listGrants(db: Db, tenantId: string, filter: { oid?: string; deploymentId?: string }): Promise<Grant[]> {
  const rows = await db.read(tenantId, (tx) =>
    tx.rows(
      `SELECT g.oid, p.client_id, g.deployment_id, g.access FROM grants g
       JOIN principals p ON p.tenant_id = g.tenant_id AND p.oid = g.oid
       WHERE g.tenant_id = $1 AND ($2::text IS NULL OR g.oid = $2) AND ($3::text IS NULL OR g.deployment_id = $3)
       ORDER BY p.client_id, g.deployment_id`,
      [tenantId, filter.oid ?? null, filter.deploymentId ?? null],
    ),
  );
  return rows.map((row) => ({
    oid: text(row, 'oid'),
    clientId: text(row, 'client_id'),
    deploymentId: text(row, 'deployment_id'),
    access: text(row, 'access') as Access,
  }));
}

export async function revokeGrant(db: Db, tenantId: string, oid: string, deploymentId: string): Promise<boolean> {
  const removed = await db.write(tenantId, (tx) =>
    tx.run('DELETE FROM grants WHERE tenant_id = $1 AND oid = $2 AND deployment_id = $3', [tenantId, oid, deploymentId]),
  );
  return removed > 0;
}

/** Registers or replaces a deployment's agent backend. */
export async function upsertAgentBackend(db: Db, scope: Scope, backend: Omit<AgentBackend, 'updatedAt'>): Promise<AgentBackend> {
  const row = await db.write(scope.tenantId, (tx) =>
    tx.row(
      `INSERT INTO agent_backends (tenant_id, deployment_id, url, secret_ref, timeout_ms, fallback_line, system_prompt,
        updated_at, updated_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (tenant_id, deployment_id) DO UPDATE SET url = excluded.url, secret_ref = excluded.secret_ref,
        timeout_ms = excluded.timeout_ms, fallback_line = excluded.fallback_line, system_prompt = excluded.system_prompt,
        updated_at = excluded.updated_at, updated_by = excluded.updated_by
       RETURNING *`,
      [
        scope.tenantId,
        scope.deploymentId,
        backend.url,
        backend.secretRef,
        backend.timeoutMs,
        backend.fallbackLine,
        backend.systemPrompt,
        nowTimestamp(),
        backend.updatedBy,
      ],
    ),
  );
  if (!row) throw new Error('agent backend vanished inside its own write');
  return toAgentBackend(row);
}

export async function readAgentBackend(db: Db, scope: Scope): Promise<AgentBackend | null> {
  const row = await db.read(scope.tenantId, (tx) =>
    tx.row('SELECT * FROM agent_backends WHERE tenant_id = $1 AND deployment_id = $2', [scope.tenantId, scope.deploymentId]),
  );
  return row ? toAgentBackend(row) : null;
}

/**
 * Maps each name to its id, and records the name in the people directory so assignees resolve to it. One by one,
 * in the caller's order, so a name given twice ends as its last mapping (as on SQLite).
 */
export async function upsertPersonNames(db: Db, tenantId: string, people: PersonName[]): Promise<void> {
  await db.write(tenantId, async (tx) => {
    for (const person of people) {
      await tx.run(
        `INSERT INTO person_names (tenant_id, name_key, display_name, idp_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (tenant_id, name_key) DO UPDATE SET display_name = excluded.display_name, idp_id = excluded.idp_id`,
        [tenantId, personNameKey(person.displayName), person.displayName, person.idpId],
      );
      await tx.run(
        `INSERT INTO people (tenant_id, idp_id, display_name) VALUES ($1, $2, $3)
         ON CONFLICT (tenant_id, idp_id) DO UPDATE SET display_name = excluded.display_name`,
        [tenantId, person.idpId, person.displayName],
      );
    }
  });
}

export async function readPersonNames(db: Db, tenantId: string): Promise<PersonName[]> {
  const rows = await db.read(tenantId, (tx) =>
    tx.rows('SELECT display_name, idp_id FROM person_names WHERE tenant_id = $1 ORDER BY name_key', [tenantId]),
  );
  return rows.map((row) => ({ idpId: text(row, 'idp_id'), displayName: text(row, 'display_name') }));
}

export async function lookupPersonName(db: Db, tenantId: string, displayName: string): Promise<string | null> {
  const row = await db.read(tenantId, (tx) =>
    tx.row('SELECT idp_id FROM person_names WHERE tenant_id = $1 AND name_key = $2', [tenantId, personNameKey(displayName)]),
  );
  return row ? text(row, 'idp_id') : null;
}

/**
 * Moves a run's staged statements into memory and the keyword index inside the commit's transaction, server-side:
 * however long the transcript, nothing of it passes through the core's memory again.
 */
function copyStaged(scope: Scope, runId: string) {
  return async (tx: Tx, meetingId: string, now: string): Promise<void> => {
    await tx.run(
      `INSERT INTO statements (tenant_id, deployment_id, id, meeting_id, text, spoken_at,
        attribution_kind, attribution_display_name, attribution_idp_id, created_at)
       SELECT $1, $2, s.id, $3, s.text, s.spoken_at, s.attribution_kind, s.attribution_display_name,
        s.attribution_idp_id, $4
       FROM ingest_statements s WHERE s.run_id = $5 ORDER BY s.seq`,
      [scope.tenantId, scope.deploymentId, meetingId, now, runId],
    );
    await tx.run(
      `INSERT INTO search_docs (tenant_id, deployment_id, kind, record_id, ts, document)
       SELECT $1, $2, 'statement', s.id, s.spoken_at, ${DOCUMENT_SQL}
       FROM (SELECT id, spoken_at, text AS body, coalesce(attribution_display_name, '') AS who, $3::text AS facet
             FROM ingest_statements WHERE run_id = $4) AS s`,
      [scope.tenantId, scope.deploymentId, facetLexeme(scope, 'statement'), runId],
    );
  };
}

/**
 * A streamed import's staging. Each batch is its own short transaction into `ingest_statements`, so the parser's
 * memory stays bounded and other calls run between batches; the commit then writes the meeting and moves the
 * staged statements in one transaction, all or nothing.
 */
export async function beginStaging(db: Db, scope: Scope): Promise<MeetingStaging> {
  const runId = randomUUID();
  await db.write(scope.tenantId, async (tx) => {
    await tx.run(`DELETE FROM ingest_runs WHERE tenant_id = $1 AND started_at < now() - interval '${STALE_RUN}'`, [scope.tenantId]);
    await tx.run('INSERT INTO ingest_runs (id, tenant_id, deployment_id) VALUES ($1, $2, $3)', [
      runId,
      scope.tenantId,
      scope.deploymentId,
    ]);
  });
  let seq = 0;
  let open = true;
  const ensureOpen = () => {
    if (!open) throw new Error('this meeting import has already been committed or discarded');
  };
  const dropRun = (tx: Tx) => tx.run('DELETE FROM ingest_runs WHERE id = $1', [runId]);
  return {
    async add(statements) {
      ensureOpen();
      const rows = statements.map((s) => [
        scope.tenantId,
        runId,
        (seq += 1),
        s.id,
        s.text,
        normalizeTimestamp(s.spokenAt),
        ...attributionValues(s.attribution),
      ]);
      await db.write(scope.tenantId, (tx) =>
        insertMany(
          tx,
          'ingest_statements',
          ['tenant_id', 'run_id', 'seq', 'id', 'text', 'spoken_at', 'attribution_kind', 'attribution_display_name', 'attribution_idp_id'],
          rows,
        ),
      );
    },
    async commit(doc) {
      ensureOpen();
      open = false;
      try {
        return await db.write(scope.tenantId, async (tx) => {
          const outcome = await importMeetingDocument(tx, scope, doc, copyStaged(scope, runId));
          await dropRun(tx);
          return outcome;
        });
      } catch (error) {
        await db.write(scope.tenantId, dropRun);
        throw error;
      }
    },
    async discard() {
      if (!open) return;
      open = false;
      await db.write(scope.tenantId, dropRun);
    },
  };
}
