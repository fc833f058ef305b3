import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCHABLE_TYPES } from '../../../src/contract/index.js';
import { openPostgresStore, PostgresStore, type MeetingDocument, type Scope } from '../../../src/core/store/index.js';
import { APP_ROLE, Db, poolConfig } from '../../../src/core/store/postgres-db.js';
import { vectorSchema } from '../../../src/core/store/postgres-vector.js';
import { MAX_EMBEDDING_ATTEMPTS } from '../../../src/core/store/sqlite-vector.js';
import { asOwner, dropSchema, TEST_DATABASE_URL, uniqueSchema } from '../../helpers/postgres.js';

const anon = { kind: 'anonymous' as const };
const ALL = { docs: Number.MAX_SAFE_INTEGER, vectors: Number.MAX_SAFE_INTEGER };
const SPACE = 'test-model@3';

const [offered] = await asOwner<{ n: number }>("SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'vector'");
const HAS_PGVECTOR = offered?.n === 1;
if (!HAS_PGVECTOR) {
  console.warn(
    'postgres-vector.test.ts: the pgvector suite is NOT RUN here: this PostgreSQL offers no `vector` extension. ' +
      'The same suite runs against a pure-SQL stand-in for its type and <=> operator below; install pgvector to run it for real.',
  );
}

function meeting(externalId: string, day: string, statements: string[]): MeetingDocument {
  return {
    meeting: { externalId, title: externalId, platform: 'teams', startedAt: `${day}T09:00:00Z`, endedAt: null, organizer: anon },
    participants: [],
    statements: statements.map((text, i) => ({ attribution: anon, text, spokenAt: `${day}T09:00:${String(i).padStart(2, '0')}Z` })),
    decisions: [],
    openQuestions: [],
    actionItems: [],
    topics: [],
  };
}

/** A unit vector along axis `i` of three, nudged so that neighbours have a clear order. */
function axis(i: number, nudge = 0): Float32Array {
  const v = new Float32Array(3);
  v[i] = 1;
  v[(i + 1) % 3] = nudge;
  return v;
}

interface Opened {
  /** Two replicas of the core on one schema. */
  replicas: [PostgresStore, PostgresStore];
  cleanup: () => Promise<void>;
}

/**
 * The search index with its semantic leg, as every replica uses it: the keyword leg with document numbers, the
 * durable queue drained by competing workers, and nearest neighbours by cosine distance inside the scope.
 */
function describeSearchIndex(name: string, open: () => Promise<Opened>, enabled: boolean): void {
  describe.skipIf(!enabled)(`PostgreSQL search index (${name})`, () => {
    let opened: Opened;
    let store: PostgresStore;
    let scope: Scope;
    let other: Scope;

    beforeAll(async () => {
      opened = await open();
      [store] = opened.replicas;
      const make = async (name: string) => {
        const tenant = await store.createTenant({ name, region: 'us' });
        const deployment = await store.createDeployment(tenant.id, { name, platform: 'teams', voice: 'v' });
        return { tenantId: tenant.id, deploymentId: deployment.id };
      };
      scope = await make('One');
      other = await make('Two');
      await store.searchIndex!.useEmbeddingSpace(SPACE);
      await store.importMeeting(scope, meeting('old', '2024-01-02', ['The alpha beta plan is final', 'Something about gamma']));
      await store.importMeeting(scope, meeting('new', '2024-02-02', ['alpha only here', 'beta only here', 'Budget talk']));
      await store.importMeeting(other, meeting('elsewhere', '2024-02-02', ['alpha beta of another tenant']));
    });

    afterAll(async () => {
      await opened.cleanup();
    });

    it('queues every indexed record in its own transaction', async () => {
      expect(await store.searchIndex!.embeddingBacklog()).toEqual({ pending: 6, failed: 0, embedded: 0 });
      expect(await store.searchIndex!.embeddingBacklog(scope.tenantId)).toEqual({ pending: 5, failed: 0, embedded: 0 });
    });

    it('ranks records holding every term first in the keyword leg, with document numbers a snapshot bounds', async () => {
      const index = store.searchIndex!;
      const { docs, capped, total } = await index.keyword(scope, { text: 'alpha beta', types: SEARCHABLE_TYPES, cap: 10, snapshot: ALL });
      expect(capped).toBe(false);
      expect(total).toBe(3);
      const records = await index.load(scope, docs);
      expect(records[0]).toMatchObject({ text: 'The alpha beta plan is final' });
      const before = await index.snapshot();
      await store.importMeeting(scope, meeting('later', '2024-03-02', ['alpha beta again']));
      const pinned = await index.keyword(scope, { text: 'alpha beta', types: SEARCHABLE_TYPES, cap: 10, snapshot: before });
      expect(pinned.total).toBe(3);
      expect((await index.keyword(scope, { text: 'alpha beta', types: SEARCHABLE_TYPES, cap: 10, snapshot: ALL })).total).toBe(4);
      expect(await index.load(other, docs)).toEqual([null, null, null]);
    });

    it('hands each task to one worker only, whichever replica claims, and leases it', async () => {
      const [a, b] = opened.replicas.map((replica) => replica.searchIndex!);
      const [first, second] = await Promise.all([a!.claimEmbeddingTasks(4, 60_000), b!.claimEmbeddingTasks(4, 60_000)]);
      const ids = [...first, ...second].map((task) => task.docId);
      expect(ids).toHaveLength(7);
      expect(new Set(ids).size).toBe(7);
      expect([...first, ...second].map((task) => task.text)).toContain('Budget talk');
      expect(await a!.claimEmbeddingTasks(10, 60_000)).toEqual([]);
      // Give every record a vector: "Budget talk" and the other tenant's along axis 2, the rest around axis 0 and 1.
      const all = [...first, ...second];
      await a!.saveEmbeddings(
        SPACE,
        all.map((task, i) => ({
          docId: task.docId,
          embedding: task.text === 'Budget talk' || task.text.includes('another tenant') ? axis(2) : axis(i % 2, i / 10),
        })),
      );
      expect(await a!.embeddingBacklog()).toEqual({ pending: 0, failed: 0, embedded: 7 });
    });

    it('finds nearest neighbours by cosine distance in the scope and space, honouring types and snapshot', async () => {
      const index = store.searchIndex!;
      const query = { embedding: axis(2), space: SPACE, neighbours: 3, types: SEARCHABLE_TYPES, snapshot: ALL };
      const nearest = await index.vector(scope, query);
      expect(nearest).toHaveLength(3);
      expect((await index.load(scope, nearest.slice(0, 1)))[0]).toMatchObject({ text: 'Budget talk' });
      expect(nearest[0]!.score).toBeCloseTo(1, 5);
      expect(nearest[1]!.score).toBeLessThan(nearest[0]!.score);
      expect(await index.vector(scope, { ...query, types: ['decision'] })).toEqual([]);
      expect(await index.vector(scope, { ...query, space: 'other-model@3' })).toEqual([]);
      expect(await index.vector(scope, { ...query, snapshot: { docs: ALL.docs, vectors: 0 } })).toEqual([]);
      const foreign = await index.vector(other, query);
      expect(foreign).toHaveLength(1);
      expect((await index.load(other, foreign))[0]).toMatchObject({ text: 'alpha beta of another tenant' });
    });

    it('counts refusals towards giving up but not provider outages', async () => {
      const index = store.searchIndex!;
      await store.importMeeting(scope, meeting('refused', '2024-04-02', ['A record the provider refuses']));
      const [task] = await index.claimEmbeddingTasks(5, 60_000);
      await index.deferEmbeddingTasks([task!.docId], 'provider down', 0, false);
      for (let i = 0; i < MAX_EMBEDDING_ATTEMPTS; i += 1) {
        expect(await index.claimEmbeddingTasks(5, 60_000)).toHaveLength(1);
        await index.deferEmbeddingTasks([task!.docId], 'refused: too long', 0, true);
      }
      expect(await index.claimEmbeddingTasks(5, 60_000)).toEqual([]);
      expect(await index.embeddingBacklog(scope.tenantId)).toMatchObject({ pending: 0, failed: 1 });
    });

    it('queues everything again when the space changes, and a tenant’s records on a reindex', async () => {
      const index = store.searchIndex!;
      expect(await index.useEmbeddingSpace(SPACE)).toEqual({ requeued: 0 });
      expect((await index.useEmbeddingSpace('next-model@3')).requeued).toBe(7);
      expect(await index.embeddingBacklog()).toMatchObject({ pending: 7, embedded: 0 });
      expect(await index.requeueEmbeddings(other.tenantId)).toBe(1);
      expect(await index.vector(other, { embedding: axis(2), space: SPACE, neighbours: 3, types: SEARCHABLE_TYPES, snapshot: ALL })).toEqual([]);
      expect(await index.embeddingBacklog(other.tenantId)).toEqual({ pending: 1, failed: 0, embedded: 0 });
    });
  });
}

/** Two replicas on a fresh schema where the real pgvector installed itself during migration. */
async function withPgvector(): Promise<Opened> {
  const schema = uniqueSchema('mm_vector');
  const replicas = await Promise.all([0, 1].map(() => openPostgresStore({ url: TEST_DATABASE_URL, schema }))) as [PostgresStore, PostgresStore];
  expect(replicas[0].capabilities).toEqual({ vector: true, vectorMissing: null });
  return {
    replicas,
    cleanup: async () => {
      await Promise.all(replicas.map((replica) => replica.close()));
      await dropSchema(schema);
    },
  };
}

/**
 * The same schema with a pure-SQL stand-in for pgvector (a text domain written like its literals, vector_dims and
 * a cosine <=>), installed the way the migration installs the real feature, so that the queue, the SECURITY DEFINER
 * functions, the trigger and the policies run on every machine. Only pgvector's own type and operator are not.
 */
async function withStandIn(): Promise<Opened> {
  const schema = uniqueSchema('mm_vector_standin');
  const standIn = `mm_fakevec_${randomBytes(4).toString('hex')}`;
  await (await openPostgresStore({ url: TEST_DATABASE_URL, schema })).close();
  await asOwner(`CREATE SCHEMA ${standIn};
    CREATE DOMAIN ${standIn}.vector AS text;
    CREATE FUNCTION ${standIn}.vector_dims(v ${standIn}.vector) RETURNS integer LANGUAGE sql IMMUTABLE
      AS $$ SELECT cardinality(string_to_array(btrim(v, '[]'), ',')) $$;
    CREATE FUNCTION ${standIn}.cosine_distance(a ${standIn}.vector, b ${standIn}.vector) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
      SELECT 1 - sum(x * y) / (sqrt(sum(x * x)) * sqrt(sum(y * y)))
      FROM unnest(string_to_array(btrim(a, '[]'), ',')::float8[], string_to_array(btrim(b, '[]'), ',')::float8[]) AS t (x, y) $$;
    CREATE OPERATOR ${standIn}.<=> (LEFTARG = ${standIn}.vector, RIGHTARG = ${standIn}.vector, FUNCTION = ${standIn}.cosine_distance);
    GRANT USAGE ON SCHEMA ${standIn} TO ${APP_ROLE};`);
  const client = new pg.Client(poolConfig(TEST_DATABASE_URL, { schema }));
  await client.connect();
  try {
    const [{ owner }] = (await client.query<{ owner: string }>('SELECT current_user AS owner')).rows as [{ owner: string }];
    await client.query(vectorSchema(client.escapeIdentifier(owner), standIn));
  } finally {
    await client.end();
  }
  const replicas = [0, 1].map(() => {
    const pool = new pg.Pool(poolConfig(TEST_DATABASE_URL, { schema, role: APP_ROLE, max: 4 }));
    return new PostgresStore(new Db(pool), standIn);
  }) as [PostgresStore, PostgresStore];
  return {
    replicas,
    cleanup: async () => {
      await Promise.all(replicas.map((replica) => replica.close()));
      await dropSchema(schema);
      await asOwner(`DROP SCHEMA ${standIn} CASCADE`);
    },
  };
}

describe('PostgreSQL semantic leg', () => {
  it('is there exactly when pgvector is, and says why when it is not', async () => {
    const schema = uniqueSchema();
    const store = await openPostgresStore({ url: TEST_DATABASE_URL, schema });
    try {
      expect(store.capabilities.vector).toBe(HAS_PGVECTOR);
      expect(store.searchIndex !== undefined).toBe(HAS_PGVECTOR);
      if (!HAS_PGVECTOR) expect(store.capabilities.vectorMissing).toMatch(/offers no vector extension/);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  });
});

describeSearchIndex('pgvector', withPgvector, HAS_PGVECTOR);
describeSearchIndex('a pure-SQL stand-in for pgvector', withStandIn, true);
