import { integer, maybeText, normalizeTimestamp, text, type Row } from './sqlite-db.js';
import type { AuditEntry, AuditKind, AuditRetention } from './store.js';

/** The audit log's chains, each verified and pruned on its own. */
export const AUDIT_KINDS: readonly AuditKind[] = ['read', 'action'];

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * An audit row as an entry, on either engine. `recordIds` is the row's record_ids already decoded, since the
 * engines store it differently (JSON text in SQLite, a text array in PostgreSQL).
 */
export function auditEntryOf(row: Row, recordIds: string[]): AuditEntry {
  return {
    id: text(row, 'id'),
    at: text(row, 'at'),
    surface: text(row, 'surface') as AuditEntry['surface'],
    tenantId: maybeText(row, 'tenant_id'),
    principalOid: maybeText(row, 'principal_oid'),
    remoteAddress: maybeText(row, 'remote_address'),
    operation: text(row, 'operation'),
    kind: text(row, 'kind') as AuditKind,
    deploymentId: maybeText(row, 'deployment_id'),
    recordIds,
    status: integer(row, 'status'),
    durationMs: integer(row, 'duration_ms'),
  };
}

/** Where an inclusive `until` day ends: the next day's midnight, so a query covers [since 00:00, until+1 00:00). */
export function auditUntil(day: string): string {
  return normalizeTimestamp(new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString());
}

/** Per chain, the time before which entries are out of retention at `now`. */
export function retentionCutoffs(now: Date, retention: AuditRetention): Record<AuditKind, string> {
  const cutoff = (days: number) => normalizeTimestamp(new Date(now.getTime() - days * DAY_MS).toISOString());
  return { read: cutoff(retention.readsDays), action: cutoff(retention.actionsDays) };
}
