import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { DATABASE_FILE } from '../server/data-dir.js';
import { verifyAuditLog } from '../store/sqlite-audit.js';
import type { AuditVerification, Store } from '../store/store.js';

/** A verification as the admin surface and `memory admin audit verify` show it. */
export interface AuditVerificationView {
  ok: boolean;
  checked: number;
  /** The request id of the oldest entry whose content or link does not hold; absent when ok. */
  first_bad_request_id?: string;
  reason?: 'content changed' | 'link broken';
  /** The newest hash of each chain: note them elsewhere to show later that nothing was cut from the end. */
  heads: { read: string; action: string };
}

/** The snake_case shape of a verification. */
export function auditVerificationView(verification: AuditVerification): AuditVerificationView {
  return {
    ok: verification.ok,
    checked: verification.checked,
    ...(verification.firstBadId ? { first_bad_request_id: verification.firstBadId, reason: verification.reason } : {}),
    heads: verification.heads,
  };
}

/** Walks the whole audit log of a running core's store (every tenant: an operator's check). */
export async function verifyAuditChain(store: Store): Promise<AuditVerificationView> {
  return auditVerificationView(await store.verifyAudit());
}

/**
 * Verifies the audit log of a core's data dir without starting the core: the database is opened read-only, so
 * this is safe beside a running core and changes nothing, not even the schema. Throws when the data dir holds no
 * database or one from before the audit log existed.
 */
export function verifyAuditInDataDir(dataDir: string): AuditVerificationView {
  const db = new BetterSqlite3(join(dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit_log'").get();
    if (!table) throw new Error(`The database in ${dataDir} has no audit log yet: start the core once to migrate it.`);
    return auditVerificationView(verifyAuditLog(db));
  } finally {
    db.close();
  }
}
