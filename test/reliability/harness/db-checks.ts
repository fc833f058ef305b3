import BetterSqlite3 from 'better-sqlite3';

function openReadOnly(file: string): BetterSqlite3.Database {
  return new BetterSqlite3(file, { readonly: true, fileMustExist: true });
}

/**
 * SQLite's own verdict on a database file, taken read-only (so this process recovers nothing for the core):
 * `PRAGMA integrity_check` and `PRAGMA foreign_key_check`. Returns [] when both are clean.
 */
export function integrityProblems(file: string): string[] {
  const db = openReadOnly(file);
  try {
    const integrity = (db.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check);
    const foreignKeys = db.pragma('foreign_key_check') as unknown[];
    return [
      ...(integrity.length === 1 && integrity[0] === 'ok' ? [] : integrity.map((line) => `integrity_check: ${line}`)),
      ...foreignKeys.map((row) => `foreign_key_check: ${JSON.stringify(row)}`),
    ];
  } finally {
    db.close();
  }
}

/** The request ids the audit log holds, read-only. */
export function auditedRequestIds(file: string): Set<string> {
  const db = openReadOnly(file);
  try {
    return new Set((db.prepare('SELECT id FROM audit_log').pluck().all() as string[]));
  } finally {
    db.close();
  }
}

/** How many accepted (2xx) actions the audit log holds for these principals. */
export function auditedActions(file: string, oids: string[]): number {
  const db = openReadOnly(file);
  try {
    const marks = oids.map(() => '?').join(', ');
    return db
      .prepare(`SELECT count(*) FROM audit_log WHERE kind = 'action' AND status BETWEEN 200 AND 299 AND principal_oid IN (${marks})`)
      .pluck()
      .get(...oids) as number;
  } finally {
    db.close();
  }
}
