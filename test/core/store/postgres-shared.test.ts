import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, type MeetingDocument, type PostgresStore, type Scope } from '../../../src/core/store/index.js';
import { SCHEMA_VERSION } from '../../../src/core/store/postgres-migrations.js';
import { asOwner, dropSchema, TEST_DATABASE_URL, uniqueSchema } from '../../helpers/postgres.js';

const anonymous = { kind: 'anonymous' as const };
const schema = uniqueSchema('mm_shared');
/** Four replicas of the core, each with its own pool, on one schema. */
let replicas: PostgresStore[] = [];
let scope: Scope;

function meeting(externalId: string, startedAt: string, topic: string): MeetingDocument {
  return {
    meeting: { externalId, title: externalId, platform: 'teams', startedAt, endedAt: null, organizer: anonymous },
    participants: [anonymous],
    statements: Array.from({ length: 50 }, (_, i) => ({ attribution: anonymous, text: `line ${i} of ${externalId}`, spokenAt: startedAt })),
    decisions: [{ attribution: anonymous, text: `decided in ${externalId}`, decidedAt: startedAt }],
    openQuestions: [],
    actionItems: [],
    topics: [{ name: topic, kind: 'project', attribution: anonymous }],
  };
}

beforeAll(async () => {
  replicas = await Promise.all(
    Array.from({ length: 4 }, () => openPostgresStore({ url: TEST_DATABASE_URL, schema, maxConnections: 3 })),
  );
  const [first] = replicas;
  const tenant = await first!.createTenant({ name: 'Shared', region: 'us' });
  const deployment = await first!.createDeployment(tenant.id, { name: 'D', platform: 'teams', voice: 'v' });
  scope = { tenantId: tenant.id, deploymentId: deployment.id };
});

afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.close()));
  await dropSchema(schema);
});

describe('PostgreSQL store shared by several replicas', () => {
  it('migrated the fresh schema once although four replicas started at the same moment', async () => {
    const versions = await asOwner<{ version: number }>(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`);
    expect(versions.map((row) => row.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    const again = await openPostgresStore({ url: TEST_DATABASE_URL, schema });
    await again.close();
    expect(await asOwner(`SELECT count(*)::int AS n FROM ${schema}.schema_migrations`)).toEqual([{ n: SCHEMA_VERSION }]);
  });

  it('refuses a schema a newer release migrated', async () => {
    const newer = uniqueSchema('mm_newer');
    try {
      await (await openPostgresStore({ url: TEST_DATABASE_URL, schema: newer })).close();
      await asOwner(`INSERT INTO ${newer}.schema_migrations (version) VALUES (${SCHEMA_VERSION + 1})`);
      await expect(openPostgresStore({ url: TEST_DATABASE_URL, schema: newer })).rejects.toThrow(/newer than this release/);
    } finally {
      await dropSchema(newer);
    }
  });

  it('keeps the first value of a setting whichever replica writes first (the issuer’s signing key)', async () => {
    const values = await Promise.all(
      Array.from({ length: 16 }, (_, i) => replicas[i % replicas.length]!.initSetting('issuer.signing-key', `key-${i}`)),
    );
    expect(new Set(values).size).toBe(1);
    expect(await replicas[3]!.getSetting('issuer.signing-key')).toBe(values[0]);
  });

  it('imports a meeting exactly once when replicas receive it at the same moment', async () => {
    const doc = meeting('race', '2024-06-03T09:00:00Z', 'Racing');
    const outcomes = await Promise.all(replicas.map((replica) => replica.importMeeting(scope, doc)));
    expect(outcomes.filter((o) => o.created)).toHaveLength(1);
    expect(new Set(outcomes.map((o) => o.meetingId)).size).toBe(1);
    const statements = await replicas[0]!.list('statement', scope, { meetingId: outcomes[0]!.meetingId, order: 'asc', limit: 200 });
    expect(statements).toHaveLength(50);
  });

  it('creates one topic for a name that several replicas mention at once, linked to every meeting', async () => {
    const docs = replicas.map((_, i) => meeting(`topic-${i}`, `2024-06-1${i}T09:00:00Z`, i % 2 ? 'NEW launch' : 'New Launch'));
    const outcomes = await Promise.all(replicas.map((replica, i) => replica.importMeeting(scope, docs[i]!)));
    const topics = (await replicas[1]!.list('topic', scope, { order: 'desc', limit: 10 })).filter((t) => t.name.toLowerCase() === 'new launch');
    expect(topics).toHaveLength(1);
    expect(topics[0]!.last_discussed_at).toBe('2024-06-13T09:00:00Z');
    expect(topics[0]!.meetings.map((m) => m.meeting_id).sort()).toEqual(outcomes.map((o) => o.meetingId).sort());
  });

  it('loses no change when replicas change different fields of one record at the same moment', async () => {
    const assignee = randomUUID();
    for (let round = 0; round < 5; round += 1) {
      const item = await replicas[0]!.createActionItem(scope, { text: `Contended ${round}` }, anonymous);
      const changes = [{ status: 'done' as const }, { dueDate: '2024-07-01' }, { assigneeIdpId: assignee }];
      await Promise.all(changes.map((change, i) => replicas[(i + round) % replicas.length]!.updateActionItem(scope, item.id, change, anonymous)));
      expect(await replicas[3]!.get('action_item', scope, item.id)).toMatchObject({
        status: 'done',
        due_date: '2024-07-01',
        assignee: { kind: 'platform_identity', idp_id: assignee },
      });
    }
  });
});
