import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GENESIS_HASH } from '../../../src/core/audit/chain.js';
import type { Attribution } from '../../../src/contract/index.js';
import type { AuditEntry, AuditKind, MeetingDocument, Scope, Store } from '../../../src/core/store/index.js';
import type { OpenedStore } from './store-contract.js';

const NOW = new Date('2030-06-01T12:00:00Z');
const DAY = 24 * 60 * 60 * 1000;
const anonymous: Attribution = { kind: 'anonymous' };

function daysBefore(days: number): string {
  return new Date(NOW.getTime() - days * DAY).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function doc(externalId: string, statements: string[]): MeetingDocument {
  return {
    meeting: { externalId, title: externalId, platform: 'zoom', startedAt: '2024-05-01T10:00:00Z', endedAt: null, organizer: anonymous },
    participants: [],
    statements: statements.map((text, i) => ({ attribution: anonymous, text, spokenAt: `2024-05-01T10:00:0${i}Z` })),
    decisions: [],
    openQuestions: [],
    actionItems: [],
    topics: [],
  };
}

/**
 * The admin surface, staged imports and the audit log, as every Store engine must keep them: the methods the
 * operating issues added, held to one behaviour on SQLite and PostgreSQL. `open` gives a fresh, empty store per test.
 */
export function describeAdminAuditContract(engineName: string, open: () => Promise<OpenedStore>): void {
  describe(`Store contract (admin, ingest staging, audit): ${engineName}`, () => {
    let opened: OpenedStore;
    let store: Store;
    let t1: string;
    let t2: string;
    let s1: Scope;
    let s1b: Scope;
    let s2: Scope;

    beforeEach(async () => {
      opened = await open();
      store = opened.store;
      t1 = (await store.createTenant({ name: 'One', region: 'us' })).id;
      t2 = (await store.createTenant({ name: 'Two', region: 'ca' })).id;
      s1 = { tenantId: t1, deploymentId: (await store.createDeployment(t1, { name: 'Zed', platform: 'teams', voice: 'v' })).id };
      s1b = { tenantId: t1, deploymentId: (await store.createDeployment(t1, { name: 'Amy', platform: 'zoom', voice: 'v' })).id };
      s2 = { tenantId: t2, deploymentId: (await store.createDeployment(t2, { name: 'Bo', platform: 'meet', voice: 'v' })).id };
    });

    afterEach(async () => {
      await opened.cleanup();
    });

    function auditEntry(kind: AuditKind, ageDays: number, overrides: Partial<AuditEntry> = {}): AuditEntry {
      return {
        id: randomUUID(),
        at: daysBefore(ageDays),
        surface: 'rest',
        tenantId: t1,
        principalOid: randomUUID(),
        remoteAddress: null,
        operation: kind === 'read' ? 'listDecisions' : 'createActionItem',
        kind,
        deploymentId: s1.deploymentId,
        recordIds: kind === 'read' ? [] : [randomUUID(), randomUUID()],
        status: 200,
        durationMs: 3,
        ...overrides,
      };
    }

    async function append(...entries: AuditEntry[]): Promise<AuditEntry[]> {
      for (const entry of entries) await store.appendAudit(entry);
      return entries;
    }

    describe('settings', () => {
      it('replaces a setting, removes it with null, and lets initSetting store it again', async () => {
        await store.setSetting('audit.retention', 'a');
        await store.setSetting('audit.retention', 'b');
        expect(await store.getSetting('audit.retention')).toBe('b');
        await store.setSetting('audit.retention', null);
        expect(await store.getSetting('audit.retention')).toBeNull();
        expect(await store.initSetting('audit.retention', 'c')).toBe('c');
      });
    });

    describe('admin surface', () => {
      it('updates a tenant field by field and answers null for an unknown one', async () => {
        expect(await store.updateTenant(t1, { name: 'Renamed' })).toMatchObject({ id: t1, name: 'Renamed', region: 'us' });
        expect(await store.updateTenant(t1, { region: 'ca' })).toMatchObject({ name: 'Renamed', region: 'ca' });
        expect(await store.updateTenant(randomUUID(), { name: 'x' })).toBeNull();
        expect(await store.getTenant(t2)).toMatchObject({ name: 'Two', region: 'ca' });
      });

      it('lists and reads deployments within their tenant only', async () => {
        expect((await store.listTenantDeployments(t1)).map((d) => d.name)).toEqual(['Amy', 'Zed']);
        expect(await store.getDeployment(t1, s1.deploymentId)).toMatchObject({ id: s1.deploymentId, name: 'Zed' });
        expect(await store.getDeployment(t1, s2.deploymentId)).toBeNull();
        expect(await store.getDeployment(t2, s1.deploymentId)).toBeNull();
      });

      it('lists principals and grants, filters grants, and revokes one', async () => {
        const [a, b] = [randomUUID(), randomUUID()];
        const clientIds = ['cid-b', 'cid-a'];
        for (const [i, oid] of [a, b].entries()) {
          await store.createPrincipal({ tenantId: t1, oid, clientId: clientIds[i]!, displayName: `P${i}`, secretHash: 'h', isAdmin: i === 1 });
        }
        await store.createPrincipal({ tenantId: t2, oid: randomUUID(), clientId: 'cid-c', displayName: 'Other', secretHash: 'h', isAdmin: false });
        expect((await store.listPrincipals(t1)).map((p) => [p.displayName, p.isAdmin])).toEqual([['P0', false], ['P1', true]]);
        await store.setGrant(t1, a, s1.deploymentId, 'read');
        await store.setGrant(t1, a, s1b.deploymentId, 'read_write');
        await store.setGrant(t1, b, s1.deploymentId, 'read_write');
        const all = await store.listGrants(t1, {});
        const ofA = [
          [a, 'cid-b', s1.deploymentId, 'read'],
          [a, 'cid-b', s1b.deploymentId, 'read_write'],
        ].sort((x, y) => (x[2]! < y[2]! ? -1 : 1));
        // By client id, then deployment id, byte order.
        expect(all.map((g) => [g.oid, g.clientId, g.deploymentId, g.access])).toEqual([[b, 'cid-a', s1.deploymentId, 'read_write'], ...ofA]);
        expect(await store.listGrants(t1, { oid: a, deploymentId: s1b.deploymentId })).toEqual([
          { oid: a, clientId: 'cid-b', deploymentId: s1b.deploymentId, access: 'read_write' },
        ]);
        expect(await store.listGrants(t2, {})).toEqual([]);
        expect(await store.revokeGrant(t1, a, s1.deploymentId)).toBe(true);
        expect(await store.revokeGrant(t1, a, s1.deploymentId)).toBe(false);
        expect(await store.revokeGrant(t2, b, s1.deploymentId)).toBe(false);
        expect(await store.getAccess(t1, a, s1.deploymentId)).toBeNull();
        expect(await store.getAccess(t1, b, s1.deploymentId)).toBe('read_write');
      });

      it('registers and replaces a deployment’s agent backend, visible in that scope only', async () => {
        expect(await store.getAgentBackend(s1)).toBeNull();
        const backend = { url: 'https://agent.example/hook', secretRef: 'env:AGENT_SECRET', timeoutMs: 8000, fallbackLine: 'One moment.', systemPrompt: null, updatedBy: 'cid-admin' };
        const stored = await store.setAgentBackend(s1, backend);
        expect(stored).toMatchObject(backend);
        expect(stored.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
        const replaced = await store.setAgentBackend(s1, { ...backend, timeoutMs: 12000, systemPrompt: 'Be brief.' });
        expect(await store.getAgentBackend(s1)).toEqual(replaced);
        expect(replaced).toMatchObject({ timeoutMs: 12000, systemPrompt: 'Be brief.' });
        expect(await store.getAgentBackend(s1b)).toBeNull();
        expect(await store.getAgentBackend({ tenantId: t2, deploymentId: s1.deploymentId })).toBeNull();
      });

      it('maps speaker names without regard to case and spacing, last mapping winning, and names assignees by them', async () => {
        const [ana, bob] = [randomUUID(), randomUUID()];
        await store.setPersonNames(t1, [
          { idpId: ana, displayName: 'Ana  Silva' },
          { idpId: bob, displayName: 'Bob Stone' },
          { idpId: bob, displayName: 'bob stone' },
        ]);
        expect(await store.findPersonName(t1, ' ANA silva ')).toBe(ana);
        expect(await store.findPersonName(t1, 'Bob Stone')).toBe(bob);
        expect(await store.findPersonName(t2, 'Ana Silva')).toBeNull();
        expect(await store.listPersonNames(t1)).toEqual([
          { idpId: ana, displayName: 'Ana  Silva' },
          { idpId: bob, displayName: 'bob stone' },
        ]);
        const item = await store.createActionItem(s1, { text: 'x', assigneeIdpId: ana }, anonymous);
        expect(item.assignee).toEqual({ kind: 'platform_identity', display_name: 'Ana  Silva', idp_id: ana });
      });
    });

    describe('staged meeting imports', () => {
      it('commits the meeting with its own statements first, then the staged ones in order, all searchable', async () => {
        const staging = await store.stageMeeting(s1);
        await staging.add([
          { id: randomUUID(), attribution: anonymous, text: 'Staged Oakmoor line one', spokenAt: '2024-05-01T10:01:00Z' },
          { id: randomUUID(), attribution: anonymous, text: 'Staged line two', spokenAt: '2024-05-01T10:02:00.500Z' },
        ]);
        await staging.add([{ id: randomUUID(), attribution: anonymous, text: 'Staged line three', spokenAt: '2024-05-01T10:03:00Z' }]);
        const { meetingId, created } = await staging.commit(doc('streamed', ['Own line']));
        expect(created).toBe(true);
        const transcript = await store.list('statement', s1, { meetingId, order: 'asc', limit: 10 });
        expect(transcript.map((s) => [s.text, s.spoken_at])).toEqual([
          ['Own line', '2024-05-01T10:00:00Z'],
          ['Staged Oakmoor line one', '2024-05-01T10:01:00Z'],
          ['Staged line two', '2024-05-01T10:02:00Z'],
          ['Staged line three', '2024-05-01T10:03:00Z'],
        ]);
        expect((await store.getMeeting(s1, meetingId))?.memory.statement).toBe(4);
        const { hits } = await store.search(s1, { text: 'oakmoor', types: ['statement'], candidateCap: 5 });
        expect(hits.map((h) => h.record.id)).toEqual([transcript[1]!.id]);
        await expect(staging.add([])).rejects.toThrow(/already been committed/);
      });

      it('writes nothing new when the meeting was imported before, and nothing at all when discarded', async () => {
        const first = await store.importMeeting(s1, doc('again', ['Original']));
        const staging = await store.stageMeeting(s1);
        await staging.add([{ id: randomUUID(), attribution: anonymous, text: 'Late line', spokenAt: '2024-05-01T11:00:00Z' }]);
        expect(await staging.commit(doc('again', ['Changed']))).toEqual({ meetingId: first.meetingId, created: false });
        expect((await store.list('statement', s1, { order: 'asc', limit: 10 })).map((s) => s.text)).toEqual(['Original']);
        const dropped = await store.stageMeeting(s1);
        await dropped.add([{ id: randomUUID(), attribution: anonymous, text: 'Never kept', spokenAt: '2024-05-01T11:00:00Z' }]);
        await dropped.discard();
        await dropped.discard();
        expect((await store.search(s1, { text: 'never kept', types: ['statement'], candidateCap: 5 })).hits).toEqual([]);
      });
    });

    describe('audit log', () => {
      it('keeps each tenant’s entries apart from the others and from calls without a tenant, newest first', async () => {
        const [older, newer] = await append(auditEntry('read', 2), auditEntry('action', 1));
        const anonymousCall = auditEntry('read', 1, { tenantId: null, principalOid: null, remoteAddress: '203.0.113.9', status: 401 });
        await append(anonymousCall, auditEntry('read', 1, { tenantId: t2 }));
        expect((await store.queryAudit(t1, { limit: 10 })).entries).toEqual([newer, older]);
        expect((await store.queryAudit(null, { limit: 10 })).entries).toEqual([anonymousCall]);
        expect((await store.queryAudit(t2, { limit: 10 })).entries).toHaveLength(1);
      });

      it('filters and pages the log', async () => {
        const entries = await append(
          auditEntry('read', 5),
          auditEntry('action', 4, { status: 403, surface: 'mcp' }),
          auditEntry('read', 3, { operation: 'search' }),
          auditEntry('read', 2),
          auditEntry('action', 1),
        );
        const ids = async (query: Parameters<Store['queryAudit']>[1]) =>
          (await store.queryAudit(t1, query)).entries.map((e) => entries.indexOf(entries.find((x) => x.id === e.id)!));
        expect(await ids({ limit: 10, kind: 'action' })).toEqual([4, 1]);
        expect(await ids({ limit: 10, status: 403 })).toEqual([1]);
        expect(await ids({ limit: 10, surface: 'mcp' })).toEqual([1]);
        expect(await ids({ limit: 10, operation: 'search' })).toEqual([2]);
        expect(await ids({ limit: 10, requestId: entries[3]!.id })).toEqual([3]);
        expect(await ids({ limit: 10, principalOid: entries[0]!.principalOid! })).toEqual([0]);
        const day = (age: number) => daysBefore(age).slice(0, 10);
        expect(await ids({ limit: 10, since: day(3), until: day(2) })).toEqual([3, 2]);
        const first = await store.queryAudit(t1, { limit: 2 });
        expect(first.next).not.toBeNull();
        const second = await store.queryAudit(t1, { limit: 2, after: first.next! });
        const third = await store.queryAudit(t1, { limit: 2, after: second.next! });
        expect([...first.entries, ...second.entries, ...third.entries].map((e) => e.id)).toEqual(entries.map((e) => e.id).reverse());
        expect(third.next).toBeNull();
      });

      it('appends an action’s entry in the action’s own transaction: both commit or neither', async () => {
        const written = auditEntry('action', 0, { recordIds: [] });
        const created = await store.createActionItem(s1, { text: 'Audited' }, anonymous, (id) => ({ ...written, recordIds: [id] }));
        expect((await store.queryAudit(t1, { requestId: written.id, limit: 2 })).entries).toEqual([{ ...written, recordIds: [created.id] }]);
        // A second entry under the same id cannot be written, so the change it belongs to is not applied either.
        await expect(store.createActionItem(s1, { text: 'Unaudited' }, anonymous, () => written)).rejects.toThrow();
        const items = await store.list('action_item', s1, { limit: 10, order: 'desc' });
        expect(items.map((item) => item.text)).toEqual(['Audited']);
        // A record not in the scope is neither changed nor audited: the surface writes the refusal's entry.
        const missing = auditEntry('action', 0);
        expect(await store.updateDecision(s1, randomUUID(), { status: 'confirmed' }, anonymous, () => missing)).toBeNull();
        expect((await store.queryAudit(t1, { requestId: missing.id, limit: 2 })).entries).toEqual([]);
        expect((await store.verifyAudit()).ok).toBe(true);
      });

      it('verifies the chains, reporting how many entries it checked and each chain’s head', async () => {
        expect(await store.verifyAudit()).toEqual({ ok: true, checked: 0, heads: { read: GENESIS_HASH, action: GENESIS_HASH } });
        await append(auditEntry('read', 3), auditEntry('action', 2));
        await Promise.all(Array.from({ length: 20 }, (_, i) => store.appendAudit(auditEntry(i % 2 ? 'read' : 'action', 1))));
        const verification = await store.verifyAudit();
        expect(verification).toMatchObject({ ok: true, checked: 22 });
        expect(verification.heads.read).toMatch(/^[0-9a-f]{64}$/);
        expect(verification.heads.action).not.toBe(verification.heads.read);
      });

      it('prunes each kind after its own retention, keeping late stragglers, and the chains still verify', async () => {
        const retention = { readsDays: 90, actionsDays: 2557 };
        const [, , , newAction, kept, straggler] = await append(
          auditEntry('read', 120),
          auditEntry('read', 91),
          auditEntry('action', 2600),
          auditEntry('action', 100),
          auditEntry('read', 10),
          auditEntry('read', 95),
        );
        expect(await store.pruneAudit(NOW, retention)).toEqual({ read: 2, action: 1 });
        expect((await store.queryAudit(t1, { limit: 10 })).entries.map((e) => e.id)).toEqual([straggler!.id, kept!.id, newAction!.id]);
        expect(await store.verifyAudit()).toMatchObject({ ok: true, checked: 3 });
        expect(await store.pruneAudit(NOW, retention)).toEqual({ read: 0, action: 0 });
        const head = (await store.verifyAudit()).heads.action;
        expect(await store.pruneAudit(NOW, { readsDays: 1, actionsDays: 1 })).toEqual({ read: 2, action: 1 });
        expect(await store.verifyAudit()).toMatchObject({ ok: true, checked: 0, heads: { action: head } });
        await append(auditEntry('action', 0));
        expect(await store.verifyAudit()).toMatchObject({ ok: true, checked: 1 });
      });
    });
  });
}
