import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TIMESTAMP_FIELD } from '../../../src/contract/index.js';
import { verifySecret } from '../../../src/core/auth/secret-hash.js';
import {
  DEMO_DEPLOYMENTS,
  provisionDemo,
  type DemoCredentials,
  type DemoDeploymentContent,
  type ProvisionDemoOptions,
} from '../../../src/core/demo/index.js';
import { openSqliteStore, type ListKind, type Scope, type Store } from '../../../src/core/store/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let dir: string;
let dbFile: string;
let options: ProvisionDemoOptions;
let store: Store | null = null;

async function open(): Promise<Store> {
  await store?.close();
  store = await openSqliteStore(dbFile);
  return store;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'demo-provision-'));
  dbFile = join(dir, 'memory.db');
  options = {
    baseUrl: 'https://127.0.0.1:8787/v1',
    mcpUrl: 'https://127.0.0.1:8787/v1/mcp',
    authority: (tenantId) => `https://127.0.0.1:8787/${tenantId}`,
    tokenUrl: (tenantId) => `https://127.0.0.1:8787/${tenantId}/oauth2/v2.0/token`,
    audience: 'api://meeting-memory',
    caFile: join(dir, 'tls', 'ca.pem'),
    credentialsFile: join(dir, 'demo-credentials.json'),
  };
});

afterEach(async () => {
  await store?.close();
  store = null;
  await rm(dir, { recursive: true, force: true });
});

/** Every record of a kind in the scope, paged the way the API pages. */
async function listAll(s: Store, kind: ListKind, scope: Scope): Promise<{ id: string }[]> {
  const field = TIMESTAMP_FIELD[kind] as string;
  const found: { id: string }[] = [];
  for (;;) {
    const last = found.at(-1) as Record<string, string> | undefined;
    const after = last ? { ts: last[field] ?? '', id: last.id ?? '' } : undefined;
    const page = await s.list(kind, scope, { order: 'desc', limit: 200, ...(after ? { after } : {}) });
    found.push(...page);
    if (page.length < 200) return found;
  }
}

function expected(content: DemoDeploymentContent) {
  const meetings = content.meetings;
  return {
    statement: meetings.flatMap((m) => m.turns).length,
    decision: meetings.flatMap((m) => m.decisions).length,
    open_question: meetings.flatMap((m) => m.openQuestions).length,
    action_item: meetings.flatMap((m) => m.actionItems).length,
    topic: Object.keys(content.topics).length,
  };
}

async function counts(s: Store, scope: Scope): Promise<Record<ListKind, number>> {
  const kinds: ListKind[] = ['statement', 'decision', 'open_question', 'action_item', 'topic'];
  const entries = await Promise.all(kinds.map(async (kind) => [kind, (await listAll(s, kind, scope)).length] as const));
  return Object.fromEntries(entries) as Record<ListKind, number>;
}

function scopes(credentials: DemoCredentials): Scope[] {
  return credentials.deployments.map((d) => ({ tenantId: credentials.tenant_id, deploymentId: d.id }));
}

describe('provisionDemo against the SQLite store', () => {
  it('writes the credentials file with exactly the documented shape, readable by the owner only', async () => {
    const credentials = await provisionDemo(await open(), options);
    const file = JSON.parse(await readFile(options.credentialsFile, 'utf8')) as DemoCredentials;
    expect(file).toEqual(credentials);
    expect((await stat(options.credentialsFile)).mode & 0o777).toBe(0o600);
    expect(Object.keys(file).sort()).toEqual(
      ['authority', 'base_url', 'ca_file', 'deployments', 'mcp_url', 'principals', 'tenant_id', 'token_url'].sort(),
    );
    expect(file.tenant_id).toMatch(UUID);
    expect(file.base_url).toBe(options.baseUrl);
    expect(file.mcp_url).toBe(options.mcpUrl);
    expect(file.authority).toBe(`https://127.0.0.1:8787/${file.tenant_id}`);
    expect(file.token_url).toBe(`https://127.0.0.1:8787/${file.tenant_id}/oauth2/v2.0/token`);
    expect(file.ca_file).toBe(options.caFile);
    expect(file.deployments.map((d) => d.name)).toEqual(['Atlas', 'Juniper']);
    const [atlas, juniper] = file.deployments.map((d) => d.id);
    expect(file.principals.map((p) => p.grants)).toEqual([
      [{ deployment_id: atlas, access: 'read' }],
      [{ deployment_id: atlas, access: 'read_write' }],
      [{ deployment_id: juniper, access: 'read' }],
    ]);
    for (const principal of file.principals) {
      expect(Object.keys(principal).sort()).toEqual(['client_id', 'client_secret', 'grants', 'scope']);
      expect(principal.client_id).toMatch(UUID);
      expect(principal.client_secret).toMatch(/^[A-Za-z0-9_-]{40}$/);
      expect(principal.scope).toBe('api://meeting-memory/.default');
    }
  });

  it('creates a us tenant and principals whose secrets verify and whose grants are exactly the listed ones', async () => {
    const s = await open();
    const credentials = await provisionDemo(s, options);
    const tenant = await s.getTenant(credentials.tenant_id);
    expect(tenant).toMatchObject({ name: 'Demo Co', region: 'us' });
    const oids = new Set<string>();
    for (const principal of credentials.principals) {
      const stored = await s.getPrincipalByClientId(credentials.tenant_id, principal.client_id);
      expect(stored).not.toBeNull();
      if (!stored) continue;
      expect(stored.oid).toMatch(UUID);
      expect(stored.isAdmin).toBe(false);
      oids.add(stored.oid);
      expect(await verifySecret(principal.client_secret, stored.secretHash)).toBe(true);
      const reachable = await s.listDeploymentsFor(credentials.tenant_id, stored.oid);
      expect(reachable.map((d) => ({ deployment_id: d.id, access: d.access }))).toEqual(principal.grants);
    }
    expect(oids.size).toBe(3);
    expect(new Set(credentials.principals.map((p) => p.client_id)).size).toBe(3);
  });

  it('imports every meeting with all its statements and records, states included', async () => {
    const s = await open();
    const credentials = await provisionDemo(s, options);
    for (const [index, scope] of scopes(credentials).entries()) {
      const content = DEMO_DEPLOYMENTS[index] as DemoDeploymentContent;
      expect(await counts(s, scope)).toEqual(expected(content));
      const decisions = await s.list('decision', scope, { order: 'desc', limit: 200 });
      const superseded = content.meetings.flatMap((m) => m.decisions).filter((d) => d.supersededBy).length;
      expect(decisions.filter((d) => d.status === 'superseded').length).toBe(superseded);
      const items = await s.list('action_item', scope, { order: 'desc', limit: 200 });
      const done = content.meetings.flatMap((m) => m.actionItems).filter((a) => a.doneBy).length;
      expect(items.filter((a) => a.status === 'done').length).toBe(done);
      expect(items.filter((a) => a.assignee !== null).length).toBe(items.length);
    }
  });

  it('links topics to the meetings that touched them, whose rollups match the content', async () => {
    const s = await open();
    const credentials = await provisionDemo(s, options);
    const [scope] = scopes(credentials) as [Scope];
    const topics = await s.list('topic', scope, { order: 'desc', limit: 200 });
    const migration = topics.find((t) => t.name === 'Billing engine migration');
    const source = DEMO_DEPLOYMENTS[0]?.meetings.filter((m) => m.topics.includes('billing-migration')) ?? [];
    expect(migration?.meetings.map((m) => m.title).sort()).toEqual(source.map((m) => m.title).sort());
    const incident = migration?.meetings.find((m) => m.title.startsWith('Incident review'));
    const meeting = incident ? await s.getMeeting(scope, incident.meeting_id) : null;
    const content = DEMO_DEPLOYMENTS[0]?.meetings.find((m) => m.title.startsWith('Incident review'));
    expect(meeting?.memory).toEqual({
      statement: content?.turns.length,
      decision: content?.decisions.length,
      open_question: content?.openQuestions.length,
      action_item: content?.actionItems.length,
      topic: content?.topics.length,
    });
    expect(meeting?.participants.length).toBe(content?.participants.length);
  });

  it('keeps all data on a second run, after a restart, and only rotates the secrets', async () => {
    const initial = await open();
    const first = await provisionDemo(initial, options);
    const before = await Promise.all(scopes(first).map((scope) => counts(initial, scope)));
    const oldHashes = await Promise.all(
      first.principals.map(async (p) => (await initial.getPrincipalByClientId(first.tenant_id, p.client_id))?.secretHash),
    );

    const s = await open();
    const second = await provisionDemo(s, options);
    expect(second.tenant_id).toBe(first.tenant_id);
    expect(second.deployments).toEqual(first.deployments);
    expect(second.principals.map(({ client_id, grants }) => ({ client_id, grants }))).toEqual(
      first.principals.map(({ client_id, grants }) => ({ client_id, grants })),
    );
    for (const [index, scope] of scopes(second).entries()) expect(await counts(s, scope)).toEqual(before[index]);

    for (const [index, principal] of second.principals.entries()) {
      const previous = first.principals[index];
      expect(principal.client_secret).not.toBe(previous?.client_secret);
      const stored = await s.getPrincipalByClientId(second.tenant_id, principal.client_id);
      expect(stored?.secretHash).not.toBe(oldHashes[index]);
      expect(await verifySecret(principal.client_secret, stored?.secretHash ?? '')).toBe(true);
      expect(await verifySecret(previous?.client_secret ?? '', stored?.secretHash ?? '')).toBe(false);
    }
    expect(JSON.parse(await readFile(options.credentialsFile, 'utf8'))).toEqual(second);
  });

  it('replaces a credentials file that was readable by others with an owner-only one', async () => {
    await writeFile(options.credentialsFile, '{}', { mode: 0o644 });
    await provisionDemo(await open(), options);
    expect((await stat(options.credentialsFile)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(options.credentialsFile, 'utf8'))).toHaveProperty('tenant_id');
  });
});
