import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Row } from './sqlite-db.js';

/** The role the core serves as: it owns nothing and does not bypass row-level security. */
export const APP_ROLE = 'memory_app';

/** The transaction-local setting every tenant policy compares `tenant_id` with. */
export const TENANT_SETTING = 'memory.tenant_id';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * How one pool connects: the URL, with the search_path and, for the app pool, the role to act as added to its
 * `options` (the driver lets the URL's own settings win over separate ones, so they must go into the URL).
 */
export function poolConfig(url: string, extra: { schema?: string; role?: string; max?: number }): pg.PoolConfig {
  const parsed = new URL(url);
  const options = [parsed.searchParams.get('options') ?? ''];
  if (extra.schema !== undefined) {
    if (!SCHEMA_NAME.test(extra.schema)) throw new Error(`Not a plain schema name: ${JSON.stringify(extra.schema)}`);
    options.push(`-c search_path=${extra.schema}`);
  }
  // A startup parameter rather than SET ROLE after connecting: every pooled connection is the app role from its
  // first statement, with no window in which it still holds the login role's rights.
  if (extra.role !== undefined) options.push(`-c role=${extra.role}`);
  const joined = options.filter(Boolean).join(' ');
  if (joined) parsed.searchParams.set('options', joined);
  return { connectionString: parsed.toString(), max: extra.max ?? 10 };
}

/** The name a statement is prepared under on each connection: the same text always maps to the same name. */
function statementName(sql: string): string {
  return `mm_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
}

/**
 * One transaction on one pooled connection. Fixed-shape statements are prepared once per connection (named by
 * their text), so the hot list and search paths skip parsing and planning after the first call.
 */
export class Tx {
  constructor(readonly client: pg.PoolClient) {}

  async rows(sql: string, params: unknown[] = []): Promise<Row[]> {
    const result = await this.client.query({ name: statementName(sql), text: sql, values: params });
    return result.rows as Row[];
  }

  /** The first row, or undefined. */
  async row(sql: string, params: unknown[] = []): Promise<Row | undefined> {
    return (await this.rows(sql, params))[0];
  }

  /** Runs a statement and returns how many rows it touched. */
  async run(sql: string, params: unknown[] = []): Promise<number> {
    const result = await this.client.query({ name: statementName(sql), text: sql, values: params });
    return result.rowCount ?? 0;
  }
}

/** The tenant a transaction runs for; null for the few tables that belong to no tenant (settings, limits). */
export type TenantContext = string | null;

const BEGIN = {
  write: 'BEGIN',
  read: 'BEGIN READ ONLY',
  snapshot: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
};

/**
 * The pool with the one way the store reaches it: a transaction that first pins `memory.tenant_id` for its own
 * duration (set_config(..., true) is SET LOCAL), so every row-level policy sees the tenant the method was called
 * for and nothing else, and a pooled connection never carries one caller's tenant into the next transaction.
 */
export class Db {
  constructor(readonly pool: pg.Pool) {}

  async transaction<T>(tenant: TenantContext, fn: (tx: Tx) => Promise<T>, mode: keyof typeof BEGIN = 'write'): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    let released = false;
    try {
      // One round trip: the simple protocol runs both statements, and the literal is escaped by the driver.
      const pin = tenant === null ? '' : `; SELECT set_config('${TENANT_SETTING}', ${client.escapeLiteral(tenant)}, true)`;
      await client.query(`${BEGIN[mode]}${pin}`);
      const result = await fn(new Tx(client));
      if (mode !== 'write') {
        // Nothing to make durable: the caller has its answer now, and the connection goes back once COMMIT is done.
        client.query('COMMIT').then(() => client.release(), (error: Error) => client.release(error));
        released = true;
        return result;
      }
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    } finally {
      // A connection whose rollback failed is in an unknown state: the pool drops it instead of reusing it.
      if (!released) client.release(broken);
    }
  }

  /** A read in the tenant's context. */
  read<T>(tenant: TenantContext, fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.transaction(tenant, fn, 'read');
  }

  /** A read that sees one snapshot throughout, whatever other replicas commit meanwhile. */
  snapshot<T>(tenant: TenantContext, fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.transaction(tenant, fn, 'snapshot');
  }

  /** A write in the tenant's context. */
  write<T>(tenant: TenantContext, fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.transaction(tenant, fn);
  }
}

/** The SQLite store's `?` placeholders as PostgreSQL's `$1, $2, ...`, so both engines run one query builder. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${(n += 1)}`);
}

/** True when the error is PostgreSQL's for a unique or primary key that already holds the value. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown }).code === '23505';
}
