import { auditEntryFields, chainHash, GENESIS_HASH } from '../audit/chain.js';
import { AUDIT_KINDS, auditEntryOf, auditUntil, retentionCutoffs } from './audit-rows.js';
import type {
  AuditEntry,
  AuditKind,
  AuditPage,
  AuditQuery,
  AuditRetention,
  AuditVerification,
} from './store.js';
import { APP_ROLE, type Db, type Tx } from './postgres-db.js';
import { refuse } from './postgres-schema.js';
import { text, type Row } from './sqlite-db.js';

/** Entries are verified in pages of this size, so a long log is never held in memory. */
const VERIFY_PAGE = 2000;

/** The tenant an audit row belongs to, or null for calls without a usable token: the app sees one or the other. */
const AUDIT_TENANT = `nullif(current_setting('memory.tenant_id', true), '')`;

/**
 * Version 2: the audit log. Appends are the app role's only write (GRANT INSERT, SELECT); rows are never updated
 * and are deleted only by the retention function, which runs as the owner (SECURITY DEFINER) and raises the
 * transaction-local `memory.audit_prune` flag the delete trigger checks, so even the owner cannot remove rows by
 * accident. Each kind is one hash chain across all tenants; appends to a chain are serialised by an advisory lock
 * taken in memory_audit_head(), so two replicas never link two entries to the same predecessor.
 */
export function auditSchema(owner: string): string {
  return `
CREATE TABLE audit_log (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text COLLATE "C" NOT NULL UNIQUE,
  at memory_ts NOT NULL,
  surface text NOT NULL CHECK (surface IN ('rest', 'mcp')),
  tenant_id text COLLATE "C",
  principal_oid text,
  remote_address text,
  operation text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('read', 'action')),
  deployment_id text,
  record_ids text[] NOT NULL,
  status integer NOT NULL,
  duration_ms integer NOT NULL,
  prev_hash text NOT NULL,
  hash text NOT NULL
);
CREATE INDEX audit_log_by_tenant ON audit_log (tenant_id, seq);
CREATE INDEX audit_log_by_kind ON audit_log (kind, seq);
ALTER TABLE audit_log ENABLE ROW LEVEL SECURITY;
ALTER TABLE audit_log FORCE ROW LEVEL SECURITY;
CREATE POLICY audit_log_tenant ON audit_log
  USING (tenant_id IS NOT DISTINCT FROM ${AUDIT_TENANT}) WITH CHECK (tenant_id IS NOT DISTINCT FROM ${AUDIT_TENANT});
-- The owner walks and prunes whole chains (through the functions below); it still cannot insert or update.
CREATE POLICY audit_log_owner_read ON audit_log FOR SELECT TO ${owner} USING (true);
CREATE POLICY audit_log_owner_prune ON audit_log FOR DELETE TO ${owner} USING (true);
GRANT SELECT, INSERT ON audit_log TO ${APP_ROLE};

CREATE TABLE audit_chains (
  kind text PRIMARY KEY CHECK (kind IN ('read', 'action')),
  anchor_hash text NOT NULL,
  pruned bigint NOT NULL
);
INSERT INTO audit_chains (kind, anchor_hash, pruned) VALUES ('read', '${GENESIS_HASH}', 0), ('action', '${GENESIS_HASH}', 0);
GRANT SELECT ON audit_chains TO ${APP_ROLE};

CREATE FUNCTION memory_audit_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('memory.audit_prune', true) = 'on' THEN RETURN OLD; END IF;
  IF TG_OP = 'UPDATE' AND TG_TABLE_NAME = 'audit_chains' AND current_setting('memory.audit_prune', true) = 'on' THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION '%: % refused, the audit log is append-only', TG_TABLE_NAME, lower(TG_OP)
    USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER audit_log_guard BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION memory_audit_guard();
CREATE TRIGGER audit_chains_guard BEFORE UPDATE OR DELETE ON audit_chains FOR EACH ROW EXECUTE FUNCTION memory_audit_guard();
${refuse('audit_log', 'TRUNCATE')}
${refuse('audit_chains', 'TRUNCATE')}

-- The newest stored hash of a chain, or its anchor when it is empty, whether or not the chain verifies.
CREATE FUNCTION memory_audit_newest(p_kind text) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $$
  SELECT coalesce(
    (SELECT hash FROM audit_log WHERE kind = p_kind ORDER BY seq DESC LIMIT 1),
    (SELECT anchor_hash FROM audit_chains WHERE kind = p_kind))
$$;

-- Takes the chain's lock for the rest of the caller's transaction and returns the hash the next entry links to.
CREATE FUNCTION memory_audit_head(p_kind text) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('meeting-memory audit ' || current_schema() || ' ' || p_kind));
  RETURN memory_audit_newest(p_kind);
END $$;

-- One page of a chain, oldest first, across tenants: what verification needs and nothing a query could filter.
CREATE FUNCTION memory_audit_chain(p_kind text, p_after bigint, p_limit integer) RETURNS SETOF audit_log
LANGUAGE sql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $$
  SELECT * FROM audit_log WHERE kind = p_kind AND seq > p_after ORDER BY seq LIMIT p_limit
$$;

-- The retention job for one chain: cuts it at the first entry still inside retention and records the last removed
-- hash as the new anchor, under the chain's lock so no append interleaves.
CREATE FUNCTION memory_audit_prune(p_kind text, p_cutoff text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE bound bigint; last_hash text; removed bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('meeting-memory audit ' || current_schema() || ' ' || p_kind));
  SELECT seq INTO bound FROM audit_log WHERE kind = p_kind AND at >= p_cutoff ORDER BY seq LIMIT 1;
  bound := coalesce(bound, 9223372036854775807);
  SELECT hash INTO last_hash FROM audit_log WHERE kind = p_kind AND seq < bound ORDER BY seq DESC LIMIT 1;
  IF last_hash IS NULL THEN RETURN 0; END IF;
  PERFORM set_config('memory.audit_prune', 'on', true);
  DELETE FROM audit_log WHERE kind = p_kind AND seq < bound;
  GET DIAGNOSTICS removed = ROW_COUNT;
  UPDATE audit_chains SET anchor_hash = last_hash, pruned = pruned + removed WHERE kind = p_kind;
  PERFORM set_config('memory.audit_prune', 'off', true);
  RETURN removed;
END $$;

REVOKE ALL ON FUNCTION memory_audit_newest(text), memory_audit_head(text), memory_audit_chain(text, bigint, integer),
  memory_audit_prune(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION memory_audit_newest(text), memory_audit_head(text), memory_audit_chain(text, bigint, integer),
  memory_audit_prune(text, text) TO ${APP_ROLE};
`;
}

function toEntry(row: Row): AuditEntry {
  return auditEntryOf(row, row.record_ids as string[]);
}

/** Inserts an entry at the head of its chain in `tx`, holding the chain's lock until `tx` ends. */
export async function insertAuditEntry(tx: Tx, entry: AuditEntry): Promise<void> {
  const head = text((await tx.row('SELECT memory_audit_head($1) AS head', [entry.kind])) ?? {}, 'head');
  await tx.run(
    `INSERT INTO audit_log (id, at, surface, tenant_id, principal_oid, remote_address, operation, kind,
       deployment_id, record_ids, status, duration_ms, prev_hash, hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [...auditEntryFields(entry), head, chainHash(head, entry)],
  );
}

/** Appends one entry to its chain: lock and head, then the insert, in the entry's tenant context. */
export async function appendAuditEntry(db: Db, entry: AuditEntry): Promise<void> {
  await db.write(entry.tenantId, (tx) => insertAuditEntry(tx, entry));
}

/** Filters in a fixed order with numbered parameters; a filter left out compares with NULL and passes. */
const QUERY_SQL = `SELECT * FROM audit_log WHERE tenant_id IS NOT DISTINCT FROM $1
    AND ($2::text IS NULL OR at >= $2) AND ($3::text IS NULL OR at < $3)
    AND ($4::text IS NULL OR principal_oid = $4) AND ($5::text IS NULL OR deployment_id = $5)
    AND ($6::text IS NULL OR operation = $6) AND ($7::text IS NULL OR kind = $7)
    AND ($8::text IS NULL OR surface = $8) AND ($9::integer IS NULL OR status = $9)
    AND ($10::text IS NULL OR id = $10) AND ($11::bigint IS NULL OR seq < $11)
  ORDER BY seq DESC LIMIT $12`;

/** A tenant's entries newest first (null: calls without a usable token), one row past the page to tell if more follow. */
export async function queryAuditEntries(db: Db, tenantId: string | null, query: AuditQuery): Promise<AuditPage> {
  const until = query.until === undefined ? null : auditUntil(query.until);
  const rows = await db.read(tenantId, (tx) =>
    tx.rows(QUERY_SQL, [
      tenantId,
      query.since === undefined ? null : `${query.since}T00:00:00Z`,
      until,
      query.principalOid ?? null,
      query.deploymentId ?? null,
      query.operation ?? null,
      query.kind ?? null,
      query.surface ?? null,
      query.status ?? null,
      query.requestId ?? null,
      query.after?.seq ?? null,
      query.limit + 1,
    ]),
  );
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    entries: page.map(toEntry),
    next: rows.length > query.limit && last ? { seq: Number(last.seq) } : null,
  };
}

interface ChainCheck {
  checked: number;
  bad?: { seq: number; id: string; reason: 'content changed' | 'link broken' };
}

/** Walks one chain oldest first from its anchor up to its first bad entry, a page at a time. */
async function checkChain(tx: Tx, kind: AuditKind): Promise<ChainCheck> {
  let expected = text((await tx.row('SELECT anchor_hash FROM audit_chains WHERE kind = $1', [kind])) ?? {}, 'anchor_hash');
  let checked = 0;
  let after = 0;
  for (;;) {
    const rows = await tx.rows('SELECT * FROM memory_audit_chain($1, $2, $3)', [kind, after, VERIFY_PAGE]);
    for (const row of rows) {
      checked += 1;
      const bad = (reason: 'content changed' | 'link broken') => ({
        checked,
        bad: { seq: Number(row.seq), id: text(row, 'id'), reason },
      });
      if (text(row, 'prev_hash') !== expected) return bad('link broken');
      if (chainHash(expected, toEntry(row)) !== text(row, 'hash')) return bad('content changed');
      expected = text(row, 'hash');
    }
    if (rows.length < VERIFY_PAGE) return { checked };
    after = Number(rows.at(-1)?.seq);
  }
}

async function newestHash(tx: Tx, kind: AuditKind): Promise<string> {
  return text((await tx.row('SELECT memory_audit_newest($1) AS hash', [kind])) ?? {}, 'hash');
}

/**
 * Checks every chain in one REPEATABLE READ snapshot, so appends by any replica while it runs neither break nor
 * extend what it walks. The first bad entry (oldest across chains) is named; the heads are the newest stored hashes.
 */
export async function verifyAuditLog(db: Db): Promise<AuditVerification> {
  return db.snapshot(null, async (tx) => {
    const checks: ChainCheck[] = [];
    for (const kind of AUDIT_KINDS) checks.push(await checkChain(tx, kind));
    const bad = checks.flatMap((check) => (check.bad ? [check.bad] : [])).sort((a, b) => a.seq - b.seq)[0];
    const verification: AuditVerification = {
      ok: bad === undefined,
      checked: checks.reduce((sum, check) => sum + check.checked, 0),
      heads: { read: await newestHash(tx, 'read'), action: await newestHash(tx, 'action') },
    };
    if (bad) {
      verification.firstBadId = bad.id;
      verification.reason = bad.reason;
    }
    return verification;
  });
}

/** The retention job: each chain cut at the first entry still inside its kind's retention at `now`. */
export async function pruneAuditEntries(db: Db, now: Date, retention: AuditRetention): Promise<Record<AuditKind, number>> {
  const cutoffs = retentionCutoffs(now, retention);
  return db.write(null, async (tx) => {
    const removed = { read: 0, action: 0 };
    for (const kind of AUDIT_KINDS) {
      const row = await tx.row('SELECT memory_audit_prune($1, $2) AS removed', [kind, cutoffs[kind]]);
      removed[kind] = Number(row?.removed ?? 0);
    }
    return removed;
  });
}
