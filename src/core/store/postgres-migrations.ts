import type pg from 'pg';
import { APP_ROLE } from './postgres-db.js';
import { ADMIN_SCHEMA } from './postgres-admin.js';
import { auditSchema } from './postgres-audit.js';
import { RATE_LIMIT_SCHEMA, V1 } from './postgres-schema.js';
import { vectorSchema } from './postgres-vector.js';

/** One schema step. Versions are dense and only ever appended: a shipped step is never edited. */
interface Migration {
  version: number;
  /** The step's SQL; `owner` is the migrating role, quoted, for the few policies that name it. */
  sql: (owner: string) => string;
}

/** The schema history of the PostgreSQL store, oldest first. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, sql: V1 },
  { version: 2, sql: auditSchema },
  { version: 3, sql: () => ADMIN_SCHEMA },
  { version: 4, sql: () => RATE_LIMIT_SCHEMA },
];

/** The schema version this code expects. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * The advisory lock every replica takes before looking at the schema, so that of several replicas starting at once
 * exactly one migrates and the others wait, then find the schema current. One key per database: schemas of one
 * database migrate one after another, which costs nothing and spares a key per schema.
 */
export const MIGRATION_LOCK = 0x6d656d6f7279; // "memory"

/**
 * The app role, created when missing (NOLOGIN: operators give a login role its rights with `GRANT memory_app TO`),
 * with USAGE on the schema. Roles are per cluster, so two databases migrating at once may race to create it: the
 * loser finds it made.
 */
const ENSURE_APP_ROLE = `
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${APP_ROLE}') THEN
    BEGIN
      CREATE ROLE ${APP_ROLE} NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
  END IF;
  IF NOT has_schema_privilege('${APP_ROLE}', current_schema(), 'USAGE') THEN
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO ${APP_ROLE}', current_schema());
  END IF;
END $$;
`;

/** In the one-URL setup the owner's connections switch to the app role, which needs the owner to be a member. */
const OWNER_MAY_SWITCH = `
DO $$
BEGIN
  IF NOT pg_has_role(current_user, '${APP_ROLE}', 'MEMBER') THEN
    EXECUTE format('GRANT ${APP_ROLE} TO %I', current_user);
  END IF;
END $$;
`;

async function appliedVersion(client: pg.PoolClient): Promise<number> {
  await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const { rows } = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
  return rows[0]?.version ?? 0;
}

/** An optional step that needs an extension the server may lack; applied once, as soon as the extension can be had. */
interface Feature {
  name: string;
  extension: string;
  /** `extensionSchema`: where the extension's types and operators live, quoted. */
  sql: (owner: string, extensionSchema: string) => string;
}

/** pgvector: the semantic leg of hybrid search. */
export const FEATURES: readonly Feature[] = [{ name: 'vector', extension: 'vector', sql: vectorSchema }];

/** What migrate() leaves: the versioned steps it applied, and the features the schema has, with why others are missing. */
export interface MigrationOutcome {
  applied: number[];
  /** Feature name to the schema its extension lives in (quoted). */
  features: Map<string, string>;
  /** Feature name to why it is not there. */
  missing: Map<string, string>;
}

async function extensionSchema(client: pg.PoolClient, extension: string): Promise<string | null> {
  const { rows } = await client.query<{ schema: string }>(
    'SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = $1',
    [extension],
  );
  return rows[0] ? client.escapeIdentifier(rows[0].schema) : null;
}

/**
 * Applies each feature not applied yet whose extension the server offers, inside a savepoint: a server that offers
 * the extension but will not let this role install it leaves the feature missing, with the reason, and the rest of
 * the migration stands. The extension goes into public, so a schema dropped with CASCADE never takes it along.
 */
async function applyFeatures(client: pg.PoolClient, owner: string): Promise<Pick<MigrationOutcome, 'features' | 'missing'>> {
  await client.query(`CREATE TABLE IF NOT EXISTS schema_features (
    name text PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const { rows } = await client.query<{ name: string }>('SELECT name FROM schema_features');
  const done = new Set(rows.map((row) => row.name));
  const features = new Map<string, string>();
  const missing = new Map<string, string>();
  for (const feature of FEATURES) {
    const offered = await client.query('SELECT 1 FROM pg_available_extensions WHERE name = $1', [feature.extension]);
    if (!done.has(feature.name) && offered.rows.length === 0) {
      missing.set(feature.name, `PostgreSQL offers no ${feature.extension} extension`);
      continue;
    }
    if (!done.has(feature.name)) {
      await client.query('SAVEPOINT feature');
      try {
        await client.query(`CREATE EXTENSION IF NOT EXISTS ${client.escapeIdentifier(feature.extension)} SCHEMA public`);
        await client.query(feature.sql(owner, (await extensionSchema(client, feature.extension)) ?? 'public'));
        await client.query('INSERT INTO schema_features (name) VALUES ($1)', [feature.name]);
        await client.query('RELEASE SAVEPOINT feature');
      } catch (error) {
        await client.query('ROLLBACK TO SAVEPOINT feature');
        missing.set(feature.name, `the ${feature.extension} extension could not be installed: ${(error as Error).message}`);
        continue;
      }
    }
    features.set(feature.name, (await extensionSchema(client, feature.extension)) ?? 'public');
  }
  return { features, missing };
}

/**
 * Brings the schema to SCHEMA_VERSION in one transaction under the migration lock, so a crash mid-way leaves the
 * previous schema intact and concurrent replicas never run a step twice, then adds the features the server now
 * allows. Refuses a schema written by a newer release. Runs as the owner: the tables it creates belong to that
 * role, and the app role gets only grants. `ownerSwitches`: the owner's own connections will serve as the app role
 * (the one-URL setup).
 */
export async function migrate(client: pg.PoolClient, options: { schema?: string; ownerSwitches: boolean }): Promise<MigrationOutcome> {
  const { schema } = options;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    if (schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS ${client.escapeIdentifier(schema)}`);
    const current = await appliedVersion(client);
    if (current > SCHEMA_VERSION) {
      throw new Error(
        `The database schema is version ${current}, newer than this release knows (${SCHEMA_VERSION}): ` +
          'upgrade meeting-memory.',
      );
    }
    const applied: number[] = [];
    if (current < SCHEMA_VERSION) {
      await client.query(ENSURE_APP_ROLE);
      await client.query(`GRANT SELECT ON schema_migrations TO ${APP_ROLE}`);
    }
    if (options.ownerSwitches) await client.query(OWNER_MAY_SWITCH);
    const { rows } = await client.query<{ owner: string }>('SELECT current_user AS owner');
    const owner = client.escapeIdentifier(rows[0]?.owner ?? '');
    for (const step of MIGRATIONS) {
      if (step.version <= current) continue;
      await client.query(step.sql(owner));
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [step.version]);
      applied.push(step.version);
    }
    const outcome = { applied, ...(await applyFeatures(client, owner)) };
    await client.query('COMMIT');
    return outcome;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}
