import { createHash } from 'node:crypto';
import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';

/** Tables that only ever grow (the audit log): their old rows must stay as they were, and new rows are reported. */
const APPEND_ONLY = /^audit_log$/;
/**
 * Search-index state derived from `search_docs` (which is compared) and maintained in the background, such as the
 * embedding queue a worker drains at its own pace: it may change between any two requests, so it is left out.
 */
const DERIVED = /^(embedding_|search_signatures$|search_embeddings$|search_scopes$)/;

export interface AppendedRows {
  table: string;
  rows: Record<string, unknown>[];
}

export interface Changes {
  /** Ordinary tables whose content differs from the baseline, and append-only tables whose old rows do. */
  changed: string[];
  /** Rows added to append-only tables since the baseline. */
  appended: AppendedRows[];
}

interface AppendOnlyState {
  lastRowid: number;
  count: number;
  /** Running hash over every row ever seen appended, to compare with the whole table at the end. */
  seen: string[];
}

function json(value: unknown): string {
  return JSON.stringify(value, (_key, item) => (typeof item === 'bigint' ? String(item) : item));
}

function rowHash(row: unknown[]): string {
  return createHash('sha256').update(json(row)).digest('base64url');
}

/** One hash over a whole table read in rowid order: cheap enough to take twice per fuzz case. */
function tableHash(rows: unknown[][]): string {
  return createHash('sha256').update(json(rows)).digest('base64url');
}

/**
 * A second, read-only connection to a core's SQLite file that tells what changed since a baseline. Every ordinary
 * table is hashed whole; FTS and vector tables and the embedding queue are left out (they derive from `search_docs`,
 * which is hashed, and some change in the background). The
 * append-only audit log is followed by rowid: new rows are reported, and `verifyAppendOnly` checks at the end that
 * no earlier row was changed or removed.
 */
export class DbObserver {
  private readonly db: Database;
  private readonly tables: string[];
  private hashes = new Map<string, string>();
  /** The hashes `changes` computed, reused by the `advance` that follows it. */
  private latest: Map<string, string> | null = null;
  private readonly statements = new Map<string, Statement>();
  private readonly appendOnly = new Map<string, AppendOnlyState>();

  constructor(file: string) {
    this.db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    this.tables = this.listTables();
    this.hashes = this.hashAll();
    for (const table of this.appendOnlyTables()) {
      const rows = this.appendedSince(table, 0);
      this.appendOnly.set(table, { lastRowid: lastRowid(rows, 0), count: rows.length, seen: rows.map((row) => rowHash(row)) });
    }
  }

  private prepared(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private listTables(): string[] {
    const rows = this.db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as {
      name: string;
      sql: string | null;
    }[];
    const virtual = rows.filter((row) => /CREATE VIRTUAL TABLE/i.test(row.sql ?? '')).map((row) => row.name);
    return rows
      .map((row) => row.name)
      .filter((name) => !virtual.some((v) => name === v || name.startsWith(`${v}_`)) && !DERIVED.test(name));
  }

  /** The names of the append-only (audit) tables this database has. */
  appendOnlyTables(): string[] {
    return this.tables.filter((name) => APPEND_ONLY.test(name));
  }

  private hashAll(): Map<string, string> {
    const hashes = new Map<string, string>();
    this.db.transaction(() => {
      for (const table of this.tables.filter((name) => !APPEND_ONLY.test(name))) {
        hashes.set(table, tableHash(this.prepared(`SELECT * FROM "${table}" ORDER BY rowid`).raw().all() as unknown[][]));
      }
    })();
    return hashes;
  }

  private appendedSince(table: string, rowid: number): unknown[][] {
    return this.prepared(`SELECT rowid, * FROM "${table}" WHERE rowid > ? ORDER BY rowid`).raw().all(rowid) as unknown[][];
  }

  /** What changed since the baseline (the construction or the last `advance`), without moving the baseline. */
  changes(): Changes {
    const now = this.hashAll();
    this.latest = now;
    const changed = [...now].filter(([table, hash]) => this.hashes.get(table) !== hash).map(([table]) => table);
    const appended: AppendedRows[] = [];
    for (const [table, state] of this.appendOnly) {
      const old = this.prepared(`SELECT count(*) AS n FROM "${table}" WHERE rowid <= ?`).get(state.lastRowid) as { n: number };
      if (old.n !== state.count) changed.push(table);
      const columns = this.prepared(`SELECT * FROM "${table}" LIMIT 0`).columns().map((column) => column.name);
      const rows = this.appendedSince(table, state.lastRowid);
      if (rows.length > 0) {
        appended.push({ table, rows: rows.map((row) => Object.fromEntries(columns.map((name, index) => [name, row[index + 1]]))) });
      }
    }
    return { changed, appended };
  }

  /** Makes now the baseline: ordinary tables rehashed, append-only tables followed to their end. */
  advance(): void {
    this.hashes = this.latest ?? this.hashAll();
    this.latest = null;
    for (const [table, state] of this.appendOnly) {
      const rows = this.appendedSince(table, state.lastRowid);
      state.lastRowid = lastRowid(rows, state.lastRowid);
      state.count += rows.length;
      state.seen.push(...rows.map((row) => rowHash(row)));
    }
  }

  /** Tables whose rows are no longer exactly the rows seen appended to them (an edit or delete of history). */
  verifyAppendOnly(): string[] {
    this.advance();
    return [...this.appendOnly]
      .filter(([table, state]) => {
        const rows = this.appendedSince(table, 0);
        return rows.length !== state.seen.length || rows.some((row, index) => rowHash(row) !== state.seen[index]);
      })
      .map(([table]) => table);
  }

  close(): void {
    this.db.close();
  }
}

function lastRowid(rows: unknown[][], fallback: number): number {
  return rows.length === 0 ? fallback : Number(rows[rows.length - 1]![0]);
}
