import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SEARCHABLE_TYPES, type SearchableType } from '../../../src/contract/index.js';
import { openSqliteStore } from '../../../src/core/store/index.js';
import { KEYWORD_WINDOW } from '../../../src/core/store/sqlite-fts.js';
import { MAX_EMBEDDING_ATTEMPTS } from '../../../src/core/store/sqlite-vector.js';
import type { MeetingDocument, Scope, SearchIndex, Store } from '../../../src/core/store/store.js';

const anon = { kind: 'anonymous' as const };
const ALL = { docs: Number.MAX_SAFE_INTEGER, vectors: Number.MAX_SAFE_INTEGER };

function meeting(externalId: string, day: string, statements: string[], extra: Partial<MeetingDocument> = {}): MeetingDocument {
  return {
    meeting: { externalId, title: externalId, platform: 'teams', startedAt: `${day}T09:00:00Z`, endedAt: null, organizer: anon },
    participants: [],
    statements: statements.map((text, i) => ({ attribution: anon, text, spokenAt: `${day}T09:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z` })),
    decisions: [],
    openQuestions: [],
    actionItems: [],
    topics: [],
    ...extra,
  };
}

let dir: string;
let file: string;
let store: Store;
let index: SearchIndex;
let scope: Scope;

async function open(): Promise<void> {
  store = await openSqliteStore(file);
  index = store.searchIndex!;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mm-search-index-'));
  file = join(dir, 'memory.db');
  await open();
  const tenant = await store.createTenant({ name: 'T', region: 'us' });
  const deployment = await store.createDeployment(tenant.id, { name: 'D', platform: 'teams', voice: 'v' });
  scope = { tenantId: tenant.id, deploymentId: deployment.id };
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function texts(text: string, filter: { types?: readonly SearchableType[]; since?: string; until?: string } = {}, cap = 50) {
  const { docs, capped } = await index.keyword(scope, { text, types: filter.types ?? SEARCHABLE_TYPES, since: filter.since, until: filter.until, cap, snapshot: ALL });
  const records = await index.load(scope, docs);
  return { texts: records.map((r) => (r && 'text' in r ? r.text : r?.type === 'topic' ? r.name : '')), capped };
}

describe('the keyword leg', () => {
  it('finds the records that hold every term however many newer records hold only one', async () => {
    await store.importMeeting(scope, meeting('old', '2024-01-02', ['The alpha beta gamma plan is final']));
    const noise = Array.from({ length: KEYWORD_WINDOW + 200 }, (_, i) => `alpha update number ${i}`);
    await store.importMeeting(scope, meeting('new', '2024-06-03', noise));
    const { texts: found, capped } = await texts('alpha beta gamma');
    expect(found[0]).toBe('The alpha beta gamma plan is final');
    expect(capped).toBe(true);
  });

  it('ranks on content words, and still searches a question made only of stopwords', async () => {
    await store.importMeeting(scope, meeting('m', '2024-01-02', ['what is it about', 'the budget review is on Monday']));
    expect((await texts('what did we say about the budget')).texts).toEqual(['the budget review is on Monday']);
    expect((await texts('what is it')).texts).toContain('what is it about');
  });

  it('treats since and until as inclusive UTC days through the key range', async () => {
    await store.importMeeting(scope, meeting('a', '2024-03-01', ['rollout day one']));
    await store.importMeeting(scope, meeting('b', '2024-03-02', ['rollout day two']));
    await store.importMeeting(scope, meeting('c', '2024-03-03', ['rollout day three']));
    expect((await texts('rollout', { since: '2024-03-02', until: '2024-03-02' })).texts).toEqual(['rollout day two']);
    expect((await texts('rollout', { since: '2024-03-02' })).texts.sort()).toEqual(['rollout day three', 'rollout day two']);
    expect((await texts('rollout', { until: '2024-03-01' })).texts).toEqual(['rollout day one']);
  });

  it('moves a topic to its last-discussed day, and finds names in the who column', async () => {
    const ada = { kind: 'platform_identity' as const, display_name: 'Ada Quill', idp_id: 'ada' };
    const topics = [{ name: 'Zephyr account', kind: 'account' as const, attribution: ada }];
    await store.importMeeting(scope, meeting('t1', '2024-03-01', ['kickoff'], { topics }));
    await store.importMeeting(scope, meeting('t2', '2024-03-09', ['follow up'], { topics }));
    expect((await texts('zephyr', { types: ['topic'], since: '2024-03-05' })).texts).toEqual(['Zephyr account']);
    expect((await texts('zephyr', { types: ['topic'], until: '2024-03-05' })).texts).toEqual([]);
    await store.importMeeting(scope, { ...meeting('t3', '2024-03-10', []), decisions: [{ attribution: ada, text: 'Ship it', decidedAt: '2024-03-10T10:00:00Z' }] });
    expect((await texts('quill', { types: ['decision'] })).texts).toEqual(['Ship it']);
  });

  it('leaves out documents written after the snapshot a cursor carries', async () => {
    await store.importMeeting(scope, meeting('a', '2024-03-01', ['snapshot test one']));
    const snapshot = await index.snapshot();
    await store.importMeeting(scope, meeting('b', '2024-03-02', ['snapshot test two']));
    const { docs } = await index.keyword(scope, { text: 'snapshot', types: SEARCHABLE_TYPES, cap: 10, snapshot });
    expect(docs).toHaveLength(1);
  });

  it('rebuilds the per-deployment index of documents written before it existed', async () => {
    await store.importMeeting(scope, meeting('a', '2024-03-01', ['legacy layout text']));
    await store.close();
    const db = new BetterSqlite3(file);
    const { id } = db.prepare('SELECT id FROM search_scopes').get() as { id: number };
    db.exec(`DROP TABLE search_fts_${id}; DELETE FROM search_scopes; UPDATE search_docs SET fts_key = NULL;`);
    db.close();
    await open();
    expect((await texts('legacy layout')).texts).toEqual(['legacy layout text']);
  });
});

describe('the embedding queue', () => {
  const vector = (x: number) => Float32Array.from([x, 1 - x, 0.5]);

  it('queues every new record in its own transaction, leases claims and stores vectors', async () => {
    await store.importMeeting(scope, meeting('a', '2024-03-01', ['one', 'two', 'three']));
    expect(await index.embeddingBacklog()).toEqual({ pending: 3, failed: 0, embedded: 0 });
    const claimed = await index.claimEmbeddingTasks(2, 60_000);
    expect(claimed.map((t) => t.text).sort()).toEqual(['three', 'two']);
    expect((await index.claimEmbeddingTasks(10, 60_000)).map((t) => t.text)).toEqual(['one']);
    await index.useEmbeddingSpace('m@3');
    await index.saveEmbeddings('m@3', claimed.map((t, i) => ({ docId: t.docId, embedding: vector(i / 2) })));
    expect(await index.embeddingBacklog()).toEqual({ pending: 1, failed: 0, embedded: 2 });
  });

  it('gives up on a record after repeated refusals, but not for provider outages', async () => {
    await store.importMeeting(scope, meeting('a', '2024-03-01', ['refused']));
    const [task] = await index.claimEmbeddingTasks(1, 0);
    for (let i = 0; i < 10; i += 1) await index.deferEmbeddingTasks([task!.docId], 'provider down', 0, false);
    expect(await index.embeddingBacklog()).toMatchObject({ pending: 1, failed: 0 });
    for (let i = 0; i < MAX_EMBEDDING_ATTEMPTS; i += 1) await index.deferEmbeddingTasks([task!.docId], 'input refused', 0, true);
    expect(await index.embeddingBacklog()).toMatchObject({ pending: 0, failed: 1 });
    expect(await index.claimEmbeddingTasks(5, 0)).toEqual([]);
    expect(await index.requeueEmbeddings(scope.tenantId)).toBe(1);
    expect(await index.embeddingBacklog()).toMatchObject({ pending: 1, failed: 0 });
  });

  it('queues everything again when the space changes, and the vector leg only compares vectors of its space', async () => {
    await store.importMeeting(scope, meeting('a', '2024-03-01', ['north', 'south']));
    await index.useEmbeddingSpace('m@3');
    const tasks = await index.claimEmbeddingTasks(10, 60_000);
    await index.saveEmbeddings('m@3', tasks.map((t, i) => ({ docId: t.docId, embedding: vector(i) })));
    const query = { types: SEARCHABLE_TYPES, embedding: vector(0), neighbours: 5, snapshot: await index.snapshot() };
    expect(await index.vector(scope, { ...query, space: 'm@3' })).toHaveLength(2);
    expect(await index.useEmbeddingSpace('m@3')).toEqual({ requeued: 0 });
    expect(await index.useEmbeddingSpace('other@3')).toEqual({ requeued: 2 });
    expect(await index.vector(scope, { ...query, space: 'other@3' })).toEqual([]);
    const nearest = await index.vector(scope, { ...query, space: 'm@3' });
    expect(nearest[0]!.score).toBeCloseTo(1, 5);
  });
});
