import type { Database } from 'better-sqlite3';
import { auditEntryFields, chainHash } from '../audit/chain.js';
import { AUDIT_KINDS, auditEntryOf, auditUntil, retentionCutoffs } from './audit-rows.js';
import type {
  AuditEntry,
  AuditKind,
  AuditPage,
  AuditQuery,
  AuditRetention,
  AuditVerification,
} from './store.js';
import { integer, Sql, text, type Row } from './sqlite-db.js';


function toEntry(row: Row): AuditEntry {
  return auditEntryOf(row, JSON.parse(text(row, 'record_ids')) as string[]);
}

function anchorOf(sql: Sql, kind: AuditKind): string {
  return text(sql.row('SELECT anchor_hash FROM audit_chains WHERE kind = ?', kind) ?? {}, 'anchor_hash');
}

/** The newest stored hash of a chain, or its anchor when empty: what the next entry links to. */
function headOf(sql: Sql, kind: AuditKind): string {
  const row = sql.row('SELECT hash FROM audit_log WHERE kind = ? ORDER BY seq DESC LIMIT 1', kind);
  return row ? text(row, 'hash') : anchorOf(sql, kind);
}

/**
 * Runs `write` (one transaction) with synchronous=FULL when it commits an action's entry: the WAL is synced up to
 * and including it (and so the action's own change), which synchronous=NORMAL only promises across process
 * crashes, not power loss.
 */
export function durablyFor<T>(sql: Sql, kind: AuditKind | undefined, write: () => T): T {
  const durable = kind === 'action';
  if (durable) sql.db.pragma('synchronous = FULL');
  try {
    return write();
  } finally {
    if (durable) sql.db.pragma('synchronous = NORMAL');
  }
}

/** Inserts an entry at the head of its chain; inside a transaction, so the head read and the insert cannot interleave. */
export function insertAuditEntry(sql: Sql, entry: AuditEntry): void {
  const prev = headOf(sql, entry.kind);
  sql.run(
    `INSERT INTO audit_log (id, at, surface, tenant_id, principal_oid, remote_address, operation, kind,
       deployment_id, record_ids, status, duration_ms, prev_hash, hash)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    // SQLite keeps record_ids as JSON text.
    ...auditEntryFields(entry).map((field) => (Array.isArray(field) ? JSON.stringify(field) : field)),
    prev,
    chainHash(prev, entry),
  );
}

/** Appends in one IMMEDIATE transaction of its own, durably for an action (see durablyFor). */
export function appendAuditEntry(sql: Sql, entry: AuditEntry): void {
  durablyFor(sql, entry.kind, () => sql.transaction(() => insertAuditEntry(sql, entry)));
}

const FILTERS: [keyof AuditQuery, string][] = [
  ['since', 'at >= ?'],
  ['until', 'at < ?'],
  ['principalOid', 'principal_oid = ?'],
  ['deploymentId', 'deployment_id = ?'],
  ['operation', 'operation = ?'],
  ['kind', 'kind = ?'],
  ['surface', 'surface = ?'],
  ['status', 'status = ?'],
  ['requestId', 'id = ?'],
];

/** The value a filter compares with: inclusive days become the half-open range [since 00:00, until+1 00:00). */
function filterValue(key: keyof AuditQuery, query: AuditQuery): unknown {
  if (key === 'since') return `${query.since}T00:00:00Z`;
  if (key === 'until') return auditUntil(query.until!);
  return query[key];
}

/** A tenant's entries newest first, one row past the page to tell whether another page follows. */
export function queryAuditEntries(sql: Sql, tenantId: string | null, query: AuditQuery): AuditPage {
  const where = ['tenant_id IS ?'];
  const params: unknown[] = [tenantId];
  for (const [key, condition] of FILTERS) {
    if (query[key] === undefined) continue;
    where.push(condition);
    params.push(filterValue(key, query));
  }
  if (query.after) {
    where.push('seq < ?');
    params.push(query.after.seq);
  }
  const rows = sql.rows(
    `SELECT * FROM audit_log WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ?`,
    ...params,
    query.limit + 1,
  );
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    entries: page.map(toEntry),
    next: rows.length > query.limit && last ? { seq: integer(last, 'seq') } : null,
  };
}

interface ChainCheck {
  checked: number;
  bad?: { seq: number; id: string; reason: 'content changed' | 'link broken' };
}

/** Walks one chain oldest first up to its first bad entry, streaming rows so a long log is never held in memory. */
function checkChain(sql: Sql, kind: AuditKind): ChainCheck {
  let expected = anchorOf(sql, kind);
  let checked = 0;
  for (const row of sql.prepared('SELECT * FROM audit_log WHERE kind = ? ORDER BY seq').iterate(kind) as Iterable<Row>) {
    checked += 1;
    const bad = (reason: 'content changed' | 'link broken') => ({
      checked,
      bad: { seq: integer(row, 'seq'), id: text(row, 'id'), reason },
    });
    if (text(row, 'prev_hash') !== expected) return bad('link broken');
    if (chainHash(expected, toEntry(row)) !== text(row, 'hash')) return bad('content changed');
    expected = text(row, 'hash');
  }
  return { checked };
}

/**
 * Checks every chain of the audit log in `db`, in one read transaction so a prune or append by another process
 * cannot fall between the anchors and the rows. Works on a read-only connection, so an operator can verify a data
 * dir without starting the core. The first bad entry (oldest across chains) is named.
 */
export function verifyAuditLog(db: Database): AuditVerification {
  const sql = new Sql(db);
  return db.transaction(() => {
    const checks = AUDIT_KINDS.map((kind) => checkChain(sql, kind));
    const bad = checks.flatMap((check) => (check.bad ? [check.bad] : [])).sort((a, b) => a.seq - b.seq)[0];
    const verification: AuditVerification = {
      ok: bad === undefined,
      checked: checks.reduce((sum, check) => sum + check.checked, 0),
      heads: { read: headOf(sql, 'read'), action: headOf(sql, 'action') },
    };
    if (bad) {
      verification.firstBadId = bad.id;
      verification.reason = bad.reason;
    }
    return verification;
  })();
}

/** The first entry of a chain that is still inside retention; everything before it goes. */
function firstKept(sql: Sql, kind: AuditKind, cutoff: string): number | null {
  const row = sql.row('SELECT seq FROM audit_log WHERE kind = ? AND at >= ? ORDER BY seq LIMIT 1', kind, cutoff);
  return row ? integer(row, 'seq') : null;
}

/**
 * Cuts each chain at the first entry still inside its retention. Entries are appended when a call ends, so a
 * long call can sit after a newer one: cutting at the first kept entry keeps such stragglers rather than removing
 * any entry that is still inside retention. The gate opens and closes inside this one transaction.
 */
export function pruneAuditEntries(sql: Sql, now: Date, retention: AuditRetention): Record<AuditKind, number> {
  const cutoffs = retentionCutoffs(now, retention);
  return sql.transaction(() => {
    sql.run('UPDATE audit_gate SET open = 1 WHERE id = 1');
    const removed = { read: 0, action: 0 };
    for (const kind of AUDIT_KINDS) {
      const keep = firstKept(sql, kind, cutoffs[kind]);
      const bound = keep ?? Number.MAX_SAFE_INTEGER;
      const lastRemoved = sql.row('SELECT hash FROM audit_log WHERE kind = ? AND seq < ? ORDER BY seq DESC LIMIT 1', kind, bound);
      if (!lastRemoved) continue;
      removed[kind] = sql.run('DELETE FROM audit_log WHERE kind = ? AND seq < ?', kind, bound);
      sql.run(
        'UPDATE audit_chains SET anchor_hash = ?, pruned = pruned + ? WHERE kind = ?',
        text(lastRemoved, 'hash'),
        removed[kind],
        kind,
      );
    }
    sql.run('UPDATE audit_gate SET open = 0 WHERE id = 1');
    return removed;
  });
}
