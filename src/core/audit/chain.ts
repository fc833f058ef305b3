import { createHash } from 'node:crypto';
import type { AuditEntry } from '../store/store.js';

/** The previous hash of the first entry a chain ever held. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * The entry's fields in a fixed order: the order its content is hashed in, whatever engine stored it, and the order
 * of audit_log's columns from `id` to `duration_ms` on both engines, so the stores insert this list as it is.
 */
export function auditEntryFields(entry: AuditEntry): unknown[] {
  return [
    entry.id,
    entry.at,
    entry.surface,
    entry.tenantId,
    entry.principalOid,
    entry.remoteAddress,
    entry.operation,
    entry.kind,
    entry.deploymentId,
    entry.recordIds,
    entry.status,
    entry.durationMs,
  ];
}

/** The entry's content as it is hashed (see auditEntryFields). */
export function canonicalAuditContent(entry: AuditEntry): string {
  return JSON.stringify(auditEntryFields(entry));
}

/** sha256 (hex) over the previous entry's hash and this entry's canonical content: the link that makes edits show. */
export function chainHash(previousHash: string, entry: AuditEntry): string {
  return createHash('sha256').update(previousHash).update('\n').update(canonicalAuditContent(entry)).digest('hex');
}
