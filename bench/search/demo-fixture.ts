import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_DEPLOYMENTS, demoDocuments, type DemoDeploymentContent } from '../../src/core/demo/index.js';
import { openSqliteStore } from '../../src/core/store/index.js';
import type { Scope, Store } from '../../src/core/store/store.js';
import { SEARCHABLE_TYPES, type ListableRecord } from '../../src/contract/index.js';

/** The demo memory in a fresh SQLite store, with a map from stored record ids to the demo's stable keys. */
export interface DemoFixture {
  store: Store;
  /** Scope of each demo deployment by its lowercase name (`atlas`, `juniper`). */
  scopes: Map<string, Scope>;
  /** Demo key of a stored record id (topics: `<deployment>.topic.<key>`). */
  keyOf: Map<string, string>;
  close(): Promise<void>;
}

/** What a record's text is in the demo content, by kind, mapped to its key. */
function keysByText(content: DemoDeploymentContent): Map<string, string> {
  const keys = new Map<string, string>();
  const prefix = content.name.toLowerCase();
  for (const meeting of content.meetings) {
    for (const decision of meeting.decisions) keys.set(`decision:${decision.text}`, decision.key);
    for (const question of meeting.openQuestions) keys.set(`open_question:${question.text}`, question.key);
    for (const item of meeting.actionItems) keys.set(`action_item:${item.text}`, item.key);
  }
  for (const [key, topic] of Object.entries(content.topics)) keys.set(`topic:${topic.name}`, `${prefix}.topic.${key}`);
  return keys;
}

function textOf(record: ListableRecord): string {
  return record.type === 'topic' ? record.name : record.text;
}

async function allRecords(store: Store, scope: Scope): Promise<ListableRecord[]> {
  const records: ListableRecord[] = [];
  for (const kind of SEARCHABLE_TYPES) {
    if (kind === 'statement') continue;
    records.push(...(await store.list(kind, scope, { order: 'asc', limit: 10_000 })));
  }
  return records;
}

/** Writes both demo deployments into a new store in a temp dir (removed by close). */
export async function openDemoFixture(): Promise<DemoFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'mm-search-eval-'));
  const store = await openSqliteStore(join(dir, 'memory.db'));
  const tenant = await store.createTenant({ name: 'Demo Co', region: 'us' });
  const scopes = new Map<string, Scope>();
  const keyOf = new Map<string, string>();
  for (const content of DEMO_DEPLOYMENTS) {
    const deployment = await store.createDeployment(tenant.id, { name: content.name, platform: content.platform, voice: content.voice });
    const scope = { tenantId: tenant.id, deploymentId: deployment.id };
    scopes.set(content.name.toLowerCase(), scope);
    for (const doc of demoDocuments(content)) await store.importMeeting(scope, doc);
    const keys = keysByText(content);
    for (const record of await allRecords(store, scope)) {
      const key = keys.get(`${record.type}:${textOf(record)}`);
      if (key) keyOf.set(record.id, key);
    }
  }
  return {
    store,
    scopes,
    keyOf,
    async close() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
