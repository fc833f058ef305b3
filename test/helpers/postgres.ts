import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgresStore, type PostgresStore, type PostgresStoreOptions } from '../../src/core/store/index.js';

/**
 * The database the PostgreSQL tests use: `test` on 127.0.0.1:5432 with trust auth, on this machine and in CI.
 * The user is the cluster's superuser, which plays the schema owner; the store itself serves as memory_app.
 */
export const TEST_DATABASE_URL = process.env.MEMORY_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A schema name no other run uses, so parallel test files and CI jobs never see each other's tables. */
export function uniqueSchema(prefix = 'mm_test'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** Runs one statement as the owner, outside any store (setup, inspection, cleanup). */
export async function asOwner<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

export async function dropSchema(schema: string): Promise<void> {
  await asOwner(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}

/** A store in a schema of its own; cleanup closes it and drops the schema. */
export async function openTestPostgresStore(
  options: Partial<PostgresStoreOptions> = {},
): Promise<{ store: PostgresStore; schema: string; cleanup: () => Promise<void> }> {
  const schema = options.schema ?? uniqueSchema();
  const store = await openPostgresStore({ url: TEST_DATABASE_URL, schema, maxConnections: 4, ...options });
  return {
    store,
    schema,
    cleanup: async () => {
      await store.close();
      await dropSchema(schema);
    },
  };
}
