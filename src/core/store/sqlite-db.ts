import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Database, Statement } from 'better-sqlite3';
import type { Attribution } from '../../contract/index.js';
import { migrate } from './sqlite-migrations.js';

/** A row as better-sqlite3 returns it; read it through `text`/`maybeText`/`integer` so drift fails loudly. */
export type Row = Record<string, unknown>;

/**
 * Prepares each distinct SQL text once and hands back the same statement afterwards. The query builders produce a
 * small, fixed set of texts (one per filter combination), so the cache stays small.
 */
export class Sql {
  private readonly cache = new Map<string, Statement>();

  constructor(readonly db: Database) {}

  /** The prepared statement for this SQL text. */
  prepared(sql: string): Statement {
    let statement = this.cache.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.cache.set(sql, statement);
    }
    return statement;
  }

  /** The first row, or undefined. */
  row(sql: string, ...params: unknown[]): Row | undefined {
    return this.prepared(sql).get(...params) as Row | undefined;
  }

  rows(sql: string, ...params: unknown[]): Row[] {
    return this.prepared(sql).all(...params) as Row[];
  }

  run(sql: string, ...params: unknown[]): number {
    return this.prepared(sql).run(...params).changes;
  }

  /** Runs fn in one transaction (BEGIN IMMEDIATE, so concurrent writers queue on busy_timeout, not fail mid-way). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }
}

/**
 * Opens (creating when missing) the database file with the pragmas the store relies on and migrates it.
 * WAL lets readers run beside the one writer; synchronous=NORMAL is durable across application crashes in WAL
 * mode and only risks the last commits on power loss, which the audit and ingest paths accept.
 */
export function openDatabase(file: string): Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new BetterSqlite3(file);
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Now as `YYYY-MM-DDThh:mm:ssZ`. */
export function nowTimestamp(): string {
  return normalizeTimestamp(new Date().toISOString());
}

/**
 * Any ISO 8601 instant as the contract's `YYYY-MM-DDThh:mm:ssZ` (UTC, fractions dropped), so that stored timestamps
 * compare correctly as text. Throws on a value that is not an instant.
 */
export function normalizeTimestamp(value: string): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new Error(`Not a timestamp: ${JSON.stringify(value)}`);
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A required text column. */
export function text(row: Row, column: string): string {
  const value = row[column];
  if (typeof value !== 'string') throw new Error(`Column ${column} is not text`);
  return value;
}

/** A nullable text column. */
export function maybeText(row: Row, column: string): string | null {
  const value = row[column];
  return value === null || value === undefined ? null : text(row, column);
}

/** An integer column (counts, flags). */
export function integer(row: Row, column: string): number {
  const value = row[column];
  if (typeof value !== 'number' && typeof value !== 'bigint') throw new Error(`Column ${column} is not an integer`);
  return Number(value);
}

/** The attribution stored in `<prefix>_kind`, `<prefix>_display_name`, `<prefix>_idp_id`, or null when unset. */
export function maybeAttribution(row: Row, prefix: string): Attribution | null {
  const kind = maybeText(row, `${prefix}_kind`);
  if (kind === null) return null;
  const attribution: Attribution = { kind: kind as Attribution['kind'] };
  const name = maybeText(row, `${prefix}_display_name`);
  const idpId = maybeText(row, `${prefix}_idp_id`);
  if (name !== null) attribution.display_name = name;
  if (idpId !== null) attribution.idp_id = idpId;
  return attribution;
}

/** Like maybeAttribution, for columns that are never null. */
export function attribution(row: Row, prefix: string): Attribution {
  const value = maybeAttribution(row, prefix);
  if (!value) throw new Error(`Column ${prefix}_kind is null`);
  return value;
}

/** The three column values of an attribution; anonymous keeps neither name nor id, whatever the caller passed. */
export function attributionValues(value: Attribution | null): [string | null, string | null, string | null] {
  if (!value) return [null, null, null];
  if (value.kind === 'anonymous') return ['anonymous', null, null];
  return [value.kind, value.display_name ?? null, value.idp_id ?? null];
}
