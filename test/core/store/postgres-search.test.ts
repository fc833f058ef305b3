import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresStore, Scope } from '../../../src/core/store/index.js';
import { facetQuery, searchRecords, searchTerms } from '../../../src/core/store/postgres-search.js';
import { asOwner, openTestPostgresStore } from '../../helpers/postgres.js';

const anonymous = { kind: 'anonymous' as const };
let store: PostgresStore;
let schema: string;
let cleanup: () => Promise<void>;
let scope: Scope;

beforeAll(async () => {
  ({ store, schema, cleanup } = await openTestPostgresStore());
  const tenant = await store.createTenant({ name: 'T', region: 'us' });
  const deployment = await store.createDeployment(tenant.id, { name: 'D', platform: 'teams', voice: 'v' });
  scope = { tenantId: tenant.id, deploymentId: deployment.id };
  const filler = Array.from({ length: 3000 }, (_, i) => ({
    attribution: anonymous,
    text: `Weekly status number ${i} about the budget and the roadmap`,
    spokenAt: '2024-03-01T09:00:00Z',
  }));
  await store.importMeeting(scope, {
    meeting: {
      externalId: 'many',
      title: 'Status',
      platform: 'teams',
      startedAt: '2024-03-01T09:00:00Z',
      endedAt: null,
      organizer: anonymous,
    },
    participants: [],
    statements: [...filler, { attribution: anonymous, text: 'Le café crème at Oakmoor', spokenAt: '2024-03-01T09:30:00Z' }],
    decisions: [],
    openQuestions: [],
    actionItems: [],
    topics: [],
  });
  // Autovacuum's job on a live database (it is off on some clusters): merge the GIN pending list, gather statistics.
  await asOwner(`VACUUM ANALYZE ${schema}.search_docs`);
});

afterAll(async () => {
  await cleanup();
});

/** How many times the transaction scanned the GIN index, as PostgreSQL counts it for the current transaction. */
const INDEX_SCANS = `SELECT pg_stat_get_xact_numscans('search_docs_document'::regclass)::int AS n`;

describe('PostgreSQL keyword search', () => {
  it('reaches the GIN index under row-level security, which a plain query as the app role cannot', async () => {
    const plain = await store.db.read(scope.tenantId, async (tx) => {
      await tx.rows(
        `SELECT record_id FROM search_docs WHERE tenant_id = $1 AND deployment_id = $2
          AND document @@ ($3::tsquery && memory_terms(ARRAY['oakmoor'], '{}', false))`,
        [scope.tenantId, scope.deploymentId, facetQuery(scope, ['statement'])],
      );
      return tx.rows(INDEX_SCANS);
    });
    expect(plain).toEqual([{ n: 0 }]);
    const viaStore = await store.db.read(scope.tenantId, async (tx) => {
      const outcome = await searchRecords(tx, scope, { text: 'Oakmoor', types: ['statement'], candidateCap: 10 });
      expect(outcome.hits).toHaveLength(1);
      return tx.rows(INDEX_SCANS);
    });
    expect(viaStore[0]?.n).toBeGreaterThan(0);
  });

  it('folds accents as SQLite does when the database offers unaccent', async () => {
    const [row] = await asOwner<{ n: number }>("SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'unaccent'");
    const hits = async (text: string) => (await store.search(scope, { text, types: ['statement'], candidateCap: 5 })).hits.length;
    expect(await hits('café crème')).toBe(1);
    expect(await hits('cafe creme')).toBe(row?.n === 1 ? 1 : 0);
  });

  it('ranks on the SQLite store’s terms: phrases, prefixes of three letters or more, words but the stopwords', () => {
    expect(searchTerms('budget "hiring freeze" acme* ( ) AND 🙂 "a""b" ac*')).toEqual({
      phrases: ['budget', 'hiring freeze', 'a', 'b', 'ac'],
      prefixes: ['acme'],
    });
    expect(searchTerms('what is it')).toEqual({ phrases: ['what', 'is', 'it'], prefixes: [] });
    expect(searchTerms('\u0000"\u0000x"')).toEqual({ phrases: ['x'], prefixes: [] });
    expect(searchTerms('🙂 ()')).toBeNull();
  });

  it('never fails on arbitrary text, and every hit stays in the scope with a positive rank', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 30 })), async (text) => {
        const { hits } = await store.search(scope, { text, types: ['statement', 'topic'], candidateCap: 3 });
        expect(hits.every((hit) => hit.record.deployment_id === scope.deploymentId && hit.rank > 0)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
