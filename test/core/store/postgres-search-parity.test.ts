import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCHABLE_TYPES, type ListableRecord } from '../../../src/contract/index.js';
import { openSqliteStore, type Scope, type Store } from '../../../src/core/store/index.js';
import { generateMeetings } from '../../../bench/generate.js';
import { openTestPostgresStore } from '../../helpers/postgres.js';

/** A generated deployment of realistic meetings, the same on both engines. */
const SPEC = { seed: 7, statements: 3000 };

/**
 * Queries of every shape: common and rare words, two words, a phrase, a prefix, a short prefix (a whole word),
 * stopwords among content words, only stopwords, a speaker's name, punctuation and operators.
 */
const QUERIES = [
  'invoice',
  'Frankfurt',
  'kill switch',
  '"kill switch"',
  'migrat*',
  'in*',
  'what did we decide about the invoice',
  'what is it',
  'Ines',
  'Priya',
  'budget OR (NOT) "unclosed',
];

interface Engine {
  store: Store;
  scope: Scope;
  cleanup: () => Promise<void>;
}

async function seeded(open: () => Promise<{ store: Store; cleanup: () => Promise<void> }>): Promise<Engine> {
  const { store, cleanup } = await open();
  const tenant = await store.createTenant({ name: 'Parity', region: 'us' });
  const deployment = await store.createDeployment(tenant.id, { name: 'D', platform: 'teams', voice: 'v' });
  const scope = { tenantId: tenant.id, deploymentId: deployment.id };
  for (const doc of generateMeetings(SPEC)) await store.importMeeting(scope, doc);
  return { store, scope, cleanup };
}

/** What a hit shows a person: its kind and text (ids differ between engines). */
function shown(record: ListableRecord): string {
  return `${record.type}: ${'text' in record ? record.text : record.name}`;
}

let sqlite: Engine;
let postgres: Engine;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mm-parity-'));
  sqlite = await seeded(async () => {
    const store = await openSqliteStore(join(dir, 'memory.db'));
    return { store, cleanup: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }); } };
  });
  postgres = await seeded(openTestPostgresStore);
}, 120_000);

afterAll(async () => {
  await sqlite?.cleanup();
  await postgres?.cleanup();
});

describe('keyword search on PostgreSQL and SQLite', () => {
  it.each(QUERIES)('finds the same records for %s', async (text) => {
    const query = { text, types: SEARCHABLE_TYPES, candidateCap: 500 };
    const [a, b] = await Promise.all([sqlite.store.search(sqlite.scope, query), postgres.store.search(postgres.scope, query)]);
    expect(b.capped).toBe(a.capped);
    expect(b.hits.length).toBe(a.hits.length);
    // Below the cap every match is returned, so the sets must agree; at the cap, which 500 of the matches make the
    // cut depends on the ranking function (BM25 on SQLite, cover density on PostgreSQL).
    if (!a.capped) expect(b.hits.map((hit) => shown(hit.record)).sort()).toEqual(a.hits.map((hit) => shown(hit.record)).sort());
  });
});
