import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, type PostgresStore, type Scope } from '../../../src/core/store/index.js';
import { asOwner, openTestPostgresStore, TEST_DATABASE_URL, uniqueSchema } from '../../helpers/postgres.js';

/**
 * Tables that hold no tenant's data, and so carry no tenant policy; anything else must. The rate limiter's windows
 * are keyed before a caller is known (per address) as well as per principal, so they cannot be tenant-scoped.
 */
const UNSCOPED_TABLES = ['audit_chains', 'rate_windows', 'schema_features', 'schema_migrations', 'settings'];

let store: PostgresStore;
let schema: string;
let cleanup: () => Promise<void>;
let s1: Scope;
let s2: Scope;

beforeAll(async () => {
  ({ store, schema, cleanup } = await openTestPostgresStore());
  for (const [name, region] of [['One', 'us'], ['Two', 'ca']] as const) {
    const tenant = await store.createTenant({ name, region });
    const deployment = await store.createDeployment(tenant.id, { name: `${name} bot`, platform: 'teams', voice: 'v' });
    const scope = { tenantId: tenant.id, deploymentId: deployment.id };
    await store.importMeeting(scope, {
      meeting: {
        externalId: `m-${name}`,
        title: `${name} kick-off`,
        platform: 'teams',
        startedAt: '2024-03-01T09:00:00Z',
        endedAt: null,
        organizer: { kind: 'anonymous' },
      },
      participants: [],
      statements: [{ attribution: { kind: 'anonymous' }, text: `Budget talk of ${name}`, spokenAt: '2024-03-01T09:01:00Z' }],
      decisions: [{ attribution: { kind: 'anonymous' }, text: `Budget approved by ${name}`, decidedAt: '2024-03-01T09:02:00Z' }],
      openQuestions: [],
      actionItems: [],
      topics: [{ name: 'Budget', kind: 'theme', attribution: { kind: 'anonymous' } }],
    });
    await store.appendAudit({
      id: randomUUID(),
      at: '2024-03-01T09:05:00Z',
      surface: 'rest',
      tenantId: tenant.id,
      principalOid: randomUUID(),
      remoteAddress: null,
      operation: 'listDecisions',
      kind: 'read',
      deploymentId: deployment.id,
      recordIds: [],
      status: 200,
      durationMs: 2,
    });
    if (name === 'One') s1 = scope;
    else s2 = scope;
  }
});

afterAll(async () => {
  await cleanup();
});

/** One statement on a connection of its own as the user of `url`. */
async function asOwnerAs(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/** Raw SQL through the store's own pool, in a transaction pinned to `tenant` (or none). */
function asApp(tenant: string | null, sql: string, params: unknown[] = []) {
  return store.db.write(tenant, (tx) => tx.rows(sql, params));
}

describe('PostgreSQL store: the role it serves as', () => {
  it('is memory_app, which is no superuser, does not bypass RLS and owns none of the tables', async () => {
    const [row] = await asApp(
      null,
      `SELECT current_user AS who, r.rolsuper, r.rolbypassrls,
        (SELECT count(*)::int FROM pg_tables WHERE schemaname = current_schema() AND tableowner = current_user) AS owned
       FROM pg_roles r WHERE r.rolname = current_user`,
    );
    expect(row).toEqual({ who: 'memory_app', rolsuper: false, rolbypassrls: false, owned: 0 });
  });

  it('refuses to serve as a superuser when the serving URL is given apart from the owner', async () => {
    await expect(openPostgresStore({ url: TEST_DATABASE_URL, migrateUrl: TEST_DATABASE_URL, schema })).rejects.toThrow(
      /must not serve as database role postgres: it is a superuser/,
    );
  });

  it('says what the operator can fix when the database cannot be reached or does not exist', async () => {
    const unreachable = new URL(TEST_DATABASE_URL);
    unreachable.port = '1';
    await expect(openPostgresStore({ url: unreachable.toString() })).rejects.toMatchObject({
      name: 'DatabaseSetupError',
      message: expect.stringMatching(/Cannot reach PostgreSQL at .*:1 \(ECONNREFUSED\)/),
      hint: expect.stringMatching(/host and port/),
    });
    const missing = new URL(TEST_DATABASE_URL);
    missing.pathname = '/no_such_database_here';
    await expect(openPostgresStore({ url: missing.toString() })).rejects.toMatchObject({
      name: 'DatabaseSetupError',
      hint: expect.stringMatching(/create the database/),
    });
  });

  it('runs the production setup: a non-superuser owner migrates, a login role in memory_app serves', async () => {
    const suffix = randomBytes(4).toString('hex');
    const [owner, login, fresh] = [`mm_owner_${suffix}`, `mm_core_${suffix}`, uniqueSchema()];
    const as = (user: string) => {
      const url = new URL(TEST_DATABASE_URL);
      url.username = user;
      return url.toString();
    };
    await asOwner(`CREATE ROLE ${owner} LOGIN NOSUPERUSER NOBYPASSRLS`);
    await asOwner(`CREATE ROLE ${login} LOGIN NOSUPERUSER NOBYPASSRLS`);
    try {
      await asOwner(`GRANT CREATE ON DATABASE ${new URL(TEST_DATABASE_URL).pathname.slice(1)} TO ${owner}`);
      await asOwner(`GRANT memory_app TO ${login}`);
      const separate = await openPostgresStore({ url: as(login), migrateUrl: as(owner), schema: fresh });
      try {
        const [row] = await separate.db.read(null, (tx) => tx.rows('SELECT current_user AS who'));
        expect(row).toEqual({ who: login });
        const tenant = await separate.createTenant({ name: 'Production-like', region: 'us' });
        const deployment = await separate.createDeployment(tenant.id, { name: 'D', platform: 'teams', voice: 'v' });
        const scope = { tenantId: tenant.id, deploymentId: deployment.id };
        await separate.createActionItem(scope, { text: 'Renew the Oakmoor contract' }, { kind: 'anonymous' });
        const { hits } = await separate.search(scope, { text: 'oakmoor', types: ['action_item'], candidateCap: 10 });
        expect(hits.map((h) => h.record.type)).toEqual(['action_item']);
        // The owner is held to the tenant policies too (FORCE), except for the search index it reads for the app.
        const owned = await asOwnerAs(as(owner), `SELECT count(*)::int AS n FROM ${fresh}.tenants`);
        expect(owned).toEqual([{ n: 0 }]);
      } finally {
        await separate.close();
      }
    } finally {
      await asOwner(`DROP SCHEMA IF EXISTS ${fresh} CASCADE`);
      await asOwner(`DROP OWNED BY ${owner}`);
      await asOwner(`DROP ROLE ${owner}`);
      await asOwner(`DROP ROLE ${login}`);
    }
  });
});

describe('PostgreSQL store: row-level security', () => {
  it('is enabled and forced, with a policy, on every table except the few that hold no tenant data', async () => {
    const tables = await asOwner<{ relname: string; relrowsecurity: boolean; relforcerowsecurity: boolean; policies: number }>(
      `SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity,
        (SELECT count(*)::int FROM pg_policy p WHERE p.polrelid = c.oid) AS policies
       FROM pg_class c WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r' ORDER BY c.relname`,
      [schema],
    );
    const unscoped = tables.filter((t) => !t.relrowsecurity).map((t) => t.relname);
    // With pgvector, the names of embedding spaces (models) join them.
    expect(unscoped).toEqual([...UNSCOPED_TABLES, ...(store.capabilities.vector ? ['embedding_spaces'] : [])].sort());
    for (const table of tables.filter((t) => t.relrowsecurity)) {
      expect(table, table.relname).toMatchObject({ relforcerowsecurity: true });
      expect(table.policies, table.relname).toBeGreaterThan(0);
    }
    expect(tables.length).toBeGreaterThan(15);
  });

  it('shows a transaction only the rows of the tenant it was opened for, whatever its SQL asks', async () => {
    for (const table of ['tenants', 'deployments', 'meetings', 'statements', 'decisions', 'search_docs']) {
      expect(await asApp(null, `SELECT * FROM ${table}`), table).toEqual([]);
      const own = await asApp(s1.tenantId, `SELECT * FROM ${table}`);
      expect(own.length, table).toBeGreaterThan(0);
      expect(own.every((row) => (row.tenant_id ?? row.id) === s1.tenantId), table).toBe(true);
    }
    const audit = await asApp(s2.tenantId, 'SELECT tenant_id FROM audit_log');
    expect(audit).toEqual([{ tenant_id: s2.tenantId }]);
  });

  it('refuses a write of another tenant’s row, even with the right ids in hand', async () => {
    await expect(
      asApp(s1.tenantId, `INSERT INTO deployments (tenant_id, id, name, platform, voice, created_at)
        VALUES ($1, $2, 'Intruder', 'teams', 'v', '2024-01-01T00:00:00Z')`, [s2.tenantId, randomUUID()]),
    ).rejects.toThrow(/row-level security/);
    const changed = await store.db.write(s1.tenantId, (tx) =>
      tx.run(`UPDATE decisions SET status = 'superseded' WHERE tenant_id = $1`, [s2.tenantId]),
    );
    expect(changed).toBe(0);
    expect((await store.list('decision', s2, { order: 'asc', limit: 5 }))[0]?.status).toBe('confirmed');
  });

  it('does not carry a tenant from one transaction of a pooled connection into the next', async () => {
    await Promise.all(Array.from({ length: 8 }, () => asApp(s1.tenantId, 'SELECT 1')));
    const leftovers = await Promise.all(
      Array.from({ length: 8 }, () => asApp(null, 'SELECT count(*)::int AS n FROM statements')),
    );
    for (const [row] of leftovers) expect(row?.n).toBe(0);
  });
});

describe('PostgreSQL store: what cannot be rewritten', () => {
  it('gives the app role no UPDATE of provenance, no DELETE and no TRUNCATE of memory or the audit log', async () => {
    const refused = [
      "UPDATE statements SET text = 'rewritten'",
      'DELETE FROM statements',
      "UPDATE decisions SET text = 'rewritten'",
      "UPDATE meetings SET title = 'rewritten'",
      'DELETE FROM meetings',
      'TRUNCATE statements',
      "UPDATE audit_log SET operation = 'x'",
      'DELETE FROM audit_log',
      'TRUNCATE audit_log',
      "UPDATE audit_chains SET anchor_hash = 'x'",
    ];
    for (const sql of refused) await expect(asApp(s1.tenantId, sql), sql).rejects.toThrow(/permission denied/);
    expect((await store.verifyAudit()).ok).toBe(true);
    await asApp(s1.tenantId, "UPDATE decisions SET status = 'superseded', note = 'workflow state may change'");
  });

  it('refuses the owner too, by trigger, outside the retention job', async () => {
    const refused: [string, RegExp][] = [
      [`UPDATE ${schema}.statements SET text = 'rewritten'`, /immutable/],
      [`DELETE FROM ${schema}.statements`, /immutable/],
      [`TRUNCATE ${schema}.statements CASCADE`, /immutable/],
      [`UPDATE ${schema}.topics SET name = 'x'`, /immutable/],
      [`UPDATE ${schema}.audit_log SET status = 500`, /append-only/],
      [`DELETE FROM ${schema}.audit_log`, /append-only/],
      [`UPDATE ${schema}.audit_chains SET pruned = 7`, /append-only/],
    ];
    for (const [sql, message] of refused) await expect(asOwner(sql), sql).rejects.toThrow(message);
  });

  it('shows an entry edited or removed behind the triggers in verification', async () => {
    const [entry] = await asApp(s1.tenantId, 'SELECT id FROM audit_log');
    const log = `${schema}.audit_log`;
    await asOwner(`ALTER TABLE ${log} DISABLE TRIGGER audit_log_guard`);
    try {
      await asOwner(`UPDATE ${log} SET status = 500 WHERE id = $1`, [entry?.id]);
      expect(await store.verifyAudit()).toMatchObject({ ok: false, firstBadId: entry?.id, reason: 'content changed' });
      await asOwner(`UPDATE ${log} SET status = 200 WHERE id = $1`, [entry?.id]);
      expect((await store.verifyAudit()).ok).toBe(true);
      await asOwner(`DELETE FROM ${log} WHERE id = $1`, [entry?.id]);
      expect(await store.verifyAudit()).toMatchObject({ ok: false, reason: 'link broken' });
    } finally {
      await asOwner(`ALTER TABLE ${log} ENABLE TRIGGER audit_log_guard`);
    }
  });
});
