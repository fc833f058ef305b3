import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ActionItem,
  Decision,
  Deployment,
  Meeting,
  OpenQuestion,
  Statement,
  TIMESTAMP_FIELD,
  Timestamp,
  Topic,
  type Attribution,
  type SearchableType,
} from '../../../src/contract/index.js';
import type {
  ListKind,
  ListQuery,
  MeetingDocument,
  RecordOf,
  Scope,
  SearchQuery,
  Store,
} from '../../../src/core/store/index.js';

/** What a test run needs from an engine: a fresh, empty store and a way to dispose of it. */
export interface OpenedStore {
  store: Store;
  cleanup: () => Promise<void>;
}

const SCHEMAS = {
  decision: Decision,
  open_question: OpenQuestion,
  action_item: ActionItem,
  statement: Statement,
  topic: Topic,
};
const LIST_KINDS: ListKind[] = ['decision', 'open_question', 'action_item', 'statement', 'topic'];
const ALL_TYPES: SearchableType[] = ['decision', 'open_question', 'action_item', 'statement', 'topic'];

const ada: Attribution = { kind: 'platform_identity', display_name: 'Ada Lovelace', idp_id: randomUUID() };
const grace: Attribution = { kind: 'platform_identity', display_name: 'Grace Hopper', idp_id: randomUUID() };
const anonymous: Attribution = { kind: 'anonymous' };
const bot: Attribution = { kind: 'service_principal', display_name: 'Planner bot', idp_id: randomUUID() };
const otherBot: Attribution = { kind: 'service_principal', display_name: 'Second bot', idp_id: randomUUID() };

type DocParts = Partial<Omit<MeetingDocument, 'meeting'>> & { id?: string; title?: string; organizer?: Attribution };

function meetingDoc(externalId: string, startedAt: string, parts: DocParts = {}): MeetingDocument {
  return {
    meeting: {
      ...(parts.id === undefined ? {} : { id: parts.id }),
      externalId,
      title: parts.title ?? `Meeting ${externalId}`,
      platform: 'teams',
      startedAt,
      endedAt: null,
      organizer: parts.organizer ?? ada,
    },
    participants: parts.participants ?? [ada, grace, anonymous],
    statements: parts.statements ?? [],
    decisions: parts.decisions ?? [],
    openQuestions: parts.openQuestions ?? [],
    actionItems: parts.actionItems ?? [],
    topics: parts.topics ?? [],
  };
}

/** A meeting with a bit of everything; `marker` makes its texts distinguishable from another scope's copy. */
function richDoc(externalId: string, marker: string): MeetingDocument {
  return meetingDoc(externalId, '2024-03-01T09:00:00Z', {
    statements: [
      { attribution: ada, text: `We should review the budget for the Acme renewal ${marker}`, spokenAt: '2024-03-01T09:01:00Z' },
      { attribution: grace, text: `The hiring freeze ends in April ${marker}`, spokenAt: '2024-03-01T09:02:00Z' },
      { attribution: anonymous, text: `Can we freeze the hiring plan ${marker}`, spokenAt: '2024-03-01T09:03:00Z' },
    ],
    decisions: [
      { attribution: ada, text: `Approve the marketing budget ${marker}`, decidedAt: '2024-03-01T09:10:00Z' },
      { attribution: grace, text: `Move the offsite to May ${marker}`, decidedAt: '2024-03-01T09:11:00Z', status: 'superseded' },
    ],
    openQuestions: [{ attribution: grace, text: `Who owns the vendor contract ${marker}`, raisedAt: '2024-03-01T09:20:00Z' }],
    actionItems: [
      {
        attribution: ada,
        text: `Send the budget summary to finance ${marker}`,
        createdAt: '2024-03-01T09:30:00Z',
        assignee: grace,
        dueDate: '2024-03-08',
      },
      {
        attribution: grace,
        text: `Book the offsite venue ${marker}`,
        createdAt: '2024-03-01T09:31:00Z',
        assignee: null,
        dueDate: null,
        status: 'done',
      },
    ],
    topics: [
      { name: 'Acme Corp', kind: 'account', attribution: ada },
      { name: 'Hiring', kind: 'theme', attribution: grace },
    ],
  });
}

function principal(tenantId: string, oid: string) {
  return { tenantId, oid, clientId: randomUUID(), displayName: 'P', secretHash: 'h', isAdmin: false };
}

function query(partial: Partial<ListQuery> = {}): ListQuery {
  return { order: 'desc', limit: 200, ...partial };
}

function searchQuery(text: string, partial: Partial<SearchQuery> = {}): SearchQuery {
  return { text, types: ALL_TYPES, candidateCap: 100, ...partial };
}

function timestampOf<K extends ListKind>(kind: K, record: RecordOf<K>): string {
  return (record as unknown as Record<string, string>)[TIMESTAMP_FIELD[kind]] ?? '';
}

/** Orders like the store must: timestamp then id, both as plain text. */
function byKeyset<K extends ListKind>(kind: K, order: 'asc' | 'desc') {
  return (a: RecordOf<K>, b: RecordOf<K>): number => {
    const ka = `${timestampOf(kind, a)}|${a.id}`;
    const kb = `${timestampOf(kind, b)}|${b.id}`;
    const cmp = ka < kb ? -1 : ka > kb ? 1 : 0;
    return order === 'asc' ? cmp : -cmp;
  };
}

/**
 * Runs the behaviour every Store engine must share. `open` returns a fresh, empty store per test.
 * Isolation is checked with two tenants, two deployments in the first, and a scope that mixes them.
 */
export function describeStoreContract(engineName: string, open: () => Promise<OpenedStore>): void {
  describe(`Store contract: ${engineName}`, () => {
    let opened: OpenedStore;
    let store: Store;
    let t1: string;
    let t2: string;
    let s11: Scope;
    let s12: Scope;
    let s2: Scope;
    let mixed: Scope;

    beforeEach(async () => {
      opened = await open();
      store = opened.store;
      t1 = (await store.createTenant({ name: 'Tenant one', region: 'us' })).id;
      t2 = (await store.createTenant({ name: 'Tenant two', region: 'ca' })).id;
      const d11 = await store.createDeployment(t1, { name: 'Ava', platform: 'teams', voice: 'alloy' });
      const d12 = await store.createDeployment(t1, { name: 'Bea', platform: 'zoom', voice: 'verse', avatarUrl: 'https://x/a.png' });
      const d2 = await store.createDeployment(t2, { name: 'Cid', platform: 'meet', voice: 'sage' });
      s11 = { tenantId: t1, deploymentId: d11.id };
      s12 = { tenantId: t1, deploymentId: d12.id };
      s2 = { tenantId: t2, deploymentId: d2.id };
      mixed = { tenantId: t2, deploymentId: d11.id };
    });

    afterEach(async () => {
      await opened.cleanup();
    });

    /** Imports the rich meeting into all three scopes and returns the meeting id of each. */
    async function seedAllScopes(): Promise<{ m11: string; m12: string; m2: string }> {
      const m11 = (await store.importMeeting(s11, richDoc('rich', 'alpha'))).meetingId;
      const m12 = (await store.importMeeting(s12, richDoc('rich', 'bravo'))).meetingId;
      const m2 = (await store.importMeeting(s2, richDoc('rich', 'charlie'))).meetingId;
      return { m11, m12, m2 };
    }

    describe('settings', () => {
      it('returns null for an unknown key and keeps the first value written (first writer wins)', async () => {
        expect(await store.getSetting('cursor-secret')).toBeNull();
        expect(await store.initSetting('cursor-secret', 'first')).toBe('first');
        expect(await store.initSetting('cursor-secret', 'second')).toBe('first');
        expect(await store.getSetting('cursor-secret')).toBe('first');
      });
    });

    describe('tenants, deployments, principals and grants', () => {
      it('creates and reads tenants, refusing a region other than us or ca', async () => {
        const tenant = await store.getTenant(t2);
        expect(tenant).toMatchObject({ id: t2, name: 'Tenant two', region: 'ca' });
        expect(Timestamp.safeParse(tenant?.createdAt).success).toBe(true);
        expect(await store.getTenant(randomUUID())).toBeNull();
        const id = randomUUID();
        expect((await store.createTenant({ id, name: 'Fixed', region: 'us' })).id).toBe(id);
        await expect(store.createTenant({ name: 'Elsewhere', region: 'eu' as 'us' })).rejects.toThrow();
      });

      it('returns deployments field for field', async () => {
        const id = randomUUID();
        const deployment = await store.createDeployment(t1, { id, name: 'Dee', platform: 'webex', voice: 'echo' });
        expect(Deployment.omit({ access: true }).strict().parse(deployment)).toEqual({
          id,
          type: 'deployment',
          name: 'Dee',
          platform: 'webex',
          voice: 'echo',
          avatar_url: null,
          created_at: deployment.created_at,
        });
      });

      it('finds principals by client id within their tenant only and rotates their secret hash', async () => {
        const oid = randomUUID();
        const clientId = randomUUID();
        const created = await store.createPrincipal({
          tenantId: t1,
          oid,
          clientId,
          displayName: 'Reader',
          secretHash: 'scrypt$old',
          isAdmin: false,
        });
        expect(Timestamp.safeParse(created.createdAt).success).toBe(true);
        expect(await store.getPrincipalByClientId(t1, clientId)).toEqual(created);
        expect(await store.getPrincipalByClientId(t2, clientId)).toBeNull();
        await store.setPrincipalSecretHash(t1, oid, 'scrypt$new');
        expect((await store.getPrincipalByClientId(t1, clientId))?.secretHash).toBe('scrypt$new');
        const admin = await store.createPrincipal({
          tenantId: t2,
          oid: randomUUID(),
          clientId,
          displayName: 'Admin',
          secretHash: 'scrypt$x',
          isAdmin: true,
        });
        expect((await store.getPrincipalByClientId(t2, clientId))?.isAdmin).toBe(admin.isAdmin);
      });

      it('answers access per grant and null for no grant, a missing deployment or one of another tenant', async () => {
        const oid = randomUUID();
        await store.createPrincipal(principal(t1, oid));
        expect(await store.getAccess(t1, oid, s11.deploymentId)).toBeNull();
        await store.setGrant(t1, oid, s11.deploymentId, 'read');
        expect(await store.getAccess(t1, oid, s11.deploymentId)).toBe('read');
        await store.setGrant(t1, oid, s11.deploymentId, 'read_write');
        expect(await store.getAccess(t1, oid, s11.deploymentId)).toBe('read_write');
        expect(await store.getAccess(t1, oid, s12.deploymentId)).toBeNull();
        expect(await store.getAccess(t1, oid, s2.deploymentId)).toBeNull();
        expect(await store.getAccess(t1, oid, randomUUID())).toBeNull();
        expect(await store.getAccess(t2, oid, s11.deploymentId)).toBeNull();
        await expect(store.setGrant(t1, oid, s2.deploymentId, 'read')).rejects.toThrow();
        await expect(store.setGrant(t1, oid, randomUUID(), 'read')).rejects.toThrow();
        expect(await store.getAccess(t1, oid, s2.deploymentId)).toBeNull();
      });

      it('lists the deployments a principal holds grants for, by name, with the access of each', async () => {
        const oid = randomUUID();
        const bystander = randomUUID();
        for (const who of [oid, bystander]) {
          await store.createPrincipal(principal(t1, who));
        }
        await store.setGrant(t1, oid, s11.deploymentId, 'read');
        await store.setGrant(t1, oid, s12.deploymentId, 'read_write');
        const listed = await store.listDeploymentsFor(t1, oid);
        listed.forEach((deployment) => Deployment.strict().parse(deployment));
        expect(listed.map((d) => [d.id, d.access])).toEqual([
          [s11.deploymentId, 'read'],
          [s12.deploymentId, 'read_write'],
        ]);
        expect(await store.listDeploymentsFor(t1, bystander)).toEqual([]);
        expect(await store.listDeploymentsFor(t2, oid)).toEqual([]);
      });
    });

    describe('importMeeting', () => {
      it('is idempotent per tenant, deployment and external id', async () => {
        const first = await store.importMeeting(s11, richDoc('ext-1', 'alpha'));
        expect(first.created).toBe(true);
        const before = await store.list('statement', s11, query());
        const again = await store.importMeeting(s11, {
          ...richDoc('ext-1', 'changed'),
          statements: [{ attribution: ada, text: 'a sneaky rewrite', spokenAt: '2024-03-01T10:00:00Z' }],
        });
        expect(again).toEqual({ meetingId: first.meetingId, created: false });
        expect(await store.list('statement', s11, query())).toEqual(before);
        expect((await store.search(s11, searchQuery('sneaky rewrite'))).hits).toEqual([]);
        const elsewhere = await store.importMeeting(s12, richDoc('ext-1', 'alpha'));
        expect(elsewhere.created).toBe(true);
        expect(elsewhere.meetingId).not.toBe(first.meetingId);
        expect((await store.importMeeting(s2, richDoc('ext-1', 'alpha'))).created).toBe(true);
      });

      it('keeps a meeting id the document supplies', async () => {
        const id = randomUUID();
        expect(await store.importMeeting(s11, meetingDoc('ext-id', '2024-03-01T09:00:00Z', { id }))).toEqual({
          meetingId: id,
          created: true,
        });
      });

      it('returns the meeting with participants, organizer and memory counts', async () => {
        const { meetingId } = await store.importMeeting(s11, richDoc('ext-1', 'alpha'));
        const meeting = await store.getMeeting(s11, meetingId);
        expect(Meeting.strict().parse(meeting)).toMatchObject({
          id: meetingId,
          type: 'meeting',
          deployment_id: s11.deploymentId,
          title: 'Meeting ext-1',
          platform: 'teams',
          started_at: '2024-03-01T09:00:00Z',
          ended_at: null,
          attribution: ada,
          memory: { decision: 2, open_question: 1, action_item: 2, statement: 3, topic: 2 },
        });
        expect(meeting?.participants).toEqual([ada, grace, { kind: 'anonymous' }]);
        await store.createActionItem(s11, { text: 'Follow up', meetingId }, bot);
        expect((await store.getMeeting(s11, meetingId))?.memory.action_item).toBe(3);
      });

      it('stores anonymous attribution without a name or id, and omits absent keys', async () => {
        const { meetingId } = await store.importMeeting(
          s11,
          meetingDoc('anon', '2024-03-01T09:00:00Z', {
            participants: [{ kind: 'anonymous', display_name: 'Leaked', idp_id: 'leaked' }, { kind: 'platform_identity', idp_id: 'only-id' }],
            statements: [{ attribution: { kind: 'anonymous', display_name: 'Leaked' }, text: 'hello', spokenAt: '2024-03-01T09:00:01Z' }],
          }),
        );
        const meeting = await store.getMeeting(s11, meetingId);
        expect(meeting?.participants).toEqual([{ kind: 'anonymous' }, { kind: 'platform_identity', idp_id: 'only-id' }]);
        expect(Object.keys(meeting?.participants[0] ?? {})).toEqual(['kind']);
        const [statement] = await store.list('statement', s11, query());
        expect(statement?.attribution).toStrictEqual({ kind: 'anonymous' });
      });

      it('defaults ingested workflow states and keeps given ones', async () => {
        await store.importMeeting(s11, richDoc('ext-1', 'alpha'));
        const decisions = await store.list('decision', s11, query({ order: 'asc' }));
        expect(decisions.map((d) => d.status)).toEqual(['confirmed', 'superseded']);
        expect((await store.list('open_question', s11, query()))[0]?.status).toBe('open');
        const items = await store.list('action_item', s11, query({ order: 'asc' }));
        expect(items.map((i) => i.status)).toEqual(['open', 'done']);
      });
    });

    describe('records', () => {
      it('returns every kind field for field, with nulls rather than missing fields', async () => {
        const { m11 } = await seedAllScopes();
        for (const kind of LIST_KINDS) {
          const records = await store.list(kind, s11, query());
          expect(records.length).toBeGreaterThan(0);
          for (const record of records) SCHEMAS[kind].strict().parse(record);
        }
        const [decision] = await store.list('decision', s11, query({ order: 'asc' }));
        expect(decision).toEqual({
          id: decision?.id,
          type: 'decision',
          deployment_id: s11.deploymentId,
          meeting_id: m11,
          attribution: ada,
          created_at: decision?.created_at,
          text: 'Approve the marketing budget alpha',
          decided_at: '2024-03-01T09:10:00Z',
          status: 'confirmed',
          note: null,
          updated_at: null,
          updated_by: null,
        });
        const [item] = await store.list('action_item', s11, query({ order: 'asc' }));
        expect(item).toMatchObject({ assignee: grace, due_date: '2024-03-08', meeting_id: m11, attribution: ada });
      });

      it('isolates every read by tenant and deployment, and a foreign id reads as null', async () => {
        const { m11 } = await seedAllScopes();
        const own = new Map<ListKind, Set<string>>();
        for (const kind of LIST_KINDS) {
          own.set(kind, new Set((await store.list(kind, s11, query())).map((r) => r.id)));
          for (const scope of [s12, s2]) {
            const records = await store.list(kind, scope, query());
            expect(records.length).toBeGreaterThan(0);
            for (const record of records) {
              expect(record.deployment_id).toBe(scope.deploymentId);
              expect(own.get(kind)?.has(record.id)).toBe(false);
            }
          }
          expect(await store.list(kind, mixed, query())).toEqual([]);
        }
        for (const kind of ['decision', 'open_question', 'action_item'] as const) {
          const [id] = [...(own.get(kind) ?? [])];
          expect(await store.get(kind as 'decision', s11, id ?? '')).not.toBeNull();
          for (const scope of [s12, s2, mixed]) expect(await store.get(kind as 'decision', scope, id ?? '')).toBeNull();
        }
        for (const scope of [s12, s2, mixed]) {
          expect(await store.getMeeting(scope, m11)).toBeNull();
          expect(await store.meetingExists(scope, m11)).toBe(false);
        }
        expect(await store.meetingExists(s11, m11)).toBe(true);
        expect(await store.meetingExists(s11, randomUUID())).toBe(false);
        expect(await store.getMeeting(s11, randomUUID())).toBeNull();
      });
    });

    describe('ordering and keyset pagination', () => {
      /** 8 meetings in tied pairs; each holds one record of every kind at a tied instant and a topic of its own. */
      async function seedTimeline(): Promise<void> {
        for (let i = 0; i < 8; i += 1) {
          const day = `2024-05-0${1 + Math.floor(i / 2)}`;
          const at = `${day}T10:00:00Z`;
          await store.importMeeting(
            s11,
            meetingDoc(`tl-${i}`, at, {
              statements: [
                { attribution: ada, text: `s${i}a`, spokenAt: at },
                { attribution: ada, text: `s${i}b`, spokenAt: at },
              ],
              decisions: [{ attribution: ada, text: `d${i}`, decidedAt: at }],
              openQuestions: [{ attribution: ada, text: `q${i}`, raisedAt: at }],
              actionItems: [{ attribution: ada, text: `a${i}`, createdAt: at, assignee: null, dueDate: null }],
              topics: [{ name: `topic ${i}`, kind: 'project', attribution: ada }],
            }),
          );
        }
      }

      async function pageAll<K extends ListKind>(kind: K, order: 'asc' | 'desc', limit: number): Promise<RecordOf<K>[]> {
        const all: RecordOf<K>[] = [];
        // Bounded, so a cursor that never advances fails the test instead of hanging it.
        for (let pages = 0; pages < 50; pages += 1) {
          const last = all.at(-1);
          const after = last ? { after: { ts: timestampOf(kind, last), id: last.id } } : {};
          const page = await store.list(kind, s11, query({ order, limit, ...after }));
          expect(page.length).toBeLessThanOrEqual(limit);
          all.push(...page);
          if (page.length < limit) return all;
        }
        throw new Error('pagination did not end');
      }

      it.each(LIST_KINDS)('orders %s by its timestamp then id, and pages without gaps or repeats', async (kind) => {
        await seedTimeline();
        const full = await store.list(kind, s11, query());
        expect(full.length).toBe(kind === 'statement' ? 16 : 8);
        expect(full).toEqual([...full].sort(byKeyset(kind, 'desc')));
        const asc = await store.list(kind, s11, query({ order: 'asc' }));
        expect(asc).toEqual([...full].reverse());
        for (const limit of [1, 3]) {
          expect(await pageAll(kind, 'desc', limit)).toEqual(full);
          expect(await pageAll(kind, 'asc', limit)).toEqual(asc);
        }
        const limited = await store.list(kind, s11, query({ limit: 2 }));
        expect(limited).toEqual(full.slice(0, 2));
      });
    });

    describe('filters', () => {
      const boundaries = ['2024-02-29T23:59:59Z', '2024-03-01T00:00:00Z', '2024-03-01T23:59:59Z', '2024-03-02T00:00:00Z'];

      it.each(LIST_KINDS)('treats since and until as inclusive UTC days for %s', async (kind) => {
        for (const [i, at] of boundaries.entries()) {
          await store.importMeeting(
            s11,
            meetingDoc(`b-${i}`, at, {
              statements: [{ attribution: ada, text: `s${i}`, spokenAt: at }],
              decisions: [{ attribution: ada, text: `d${i}`, decidedAt: at }],
              openQuestions: [{ attribution: ada, text: `q${i}`, raisedAt: at }],
              actionItems: [{ attribution: ada, text: `a${i}`, createdAt: at, assignee: null, dueDate: null }],
              topics: [{ name: `t${i}`, kind: 'theme', attribution: ada }],
            }),
          );
        }
        const stamps = async (partial: Partial<ListQuery>) =>
          (await store.list(kind, s11, query({ order: 'asc', ...partial }))).map((r) => timestampOf(kind, r));
        expect(await stamps({ since: '2024-03-01', until: '2024-03-01' })).toEqual(boundaries.slice(1, 3));
        expect(await stamps({ since: '2024-03-01' })).toEqual(boundaries.slice(1));
        expect(await stamps({ until: '2024-03-01' })).toEqual(boundaries.slice(0, 3));
        expect(await stamps({ since: '2024-03-03' })).toEqual([]);
      });

      it('filters by meeting for every kind that belongs to one', async () => {
        const { meetingId: first } = await store.importMeeting(s11, richDoc('one', 'alpha'));
        const { meetingId: second } = await store.importMeeting(s11, richDoc('two', 'beta'));
        for (const kind of ['decision', 'open_question', 'action_item', 'statement'] as const) {
          const all = await store.list(kind, s11, query());
          const onlyFirst = await store.list(kind, s11, query({ meetingId: first }));
          expect(onlyFirst.length).toBeGreaterThan(0);
          expect(onlyFirst.length * 2).toBe(all.length);
          expect(onlyFirst.every((r) => r.meeting_id === first)).toBe(true);
          expect((await store.list(kind, s11, query({ meetingId: second }))).every((r) => r.meeting_id === second)).toBe(true);
          expect(await store.list(kind, s12, query({ meetingId: first }))).toEqual([]);
        }
      });

      it('filters action items by status and assignee, alone and together', async () => {
        await store.importMeeting(s11, richDoc('one', 'alpha'));
        await store.createActionItem(s11, { text: 'Ada task', assigneeIdpId: ada.idp_id ?? '' }, bot);
        const texts = async (partial: Partial<ListQuery>) =>
          (await store.list('action_item', s11, query({ order: 'asc', ...partial }))).map((i) => i.text).sort();
        expect(await texts({ status: 'done' })).toEqual(['Book the offsite venue alpha']);
        expect(await texts({ status: 'open' })).toEqual(['Ada task', 'Send the budget summary to finance alpha']);
        expect(await texts({ assigneeIdpId: grace.idp_id ?? '' })).toEqual(['Send the budget summary to finance alpha']);
        expect(await texts({ assigneeIdpId: ada.idp_id ?? '', status: 'open' })).toEqual(['Ada task']);
        expect(await texts({ assigneeIdpId: ada.idp_id ?? '', status: 'done' })).toEqual([]);
        expect(await texts({ assigneeIdpId: randomUUID() })).toEqual([]);
      });
    });

    describe('topics', () => {
      it('links one topic per deployment across meetings by case-insensitive name', async () => {
        const later = await store.importMeeting(
          s11,
          meetingDoc('later', '2024-04-02T09:00:00Z', {
            title: 'Later',
            topics: [{ name: 'Acme Corp', kind: 'account', attribution: ada }],
          }),
        );
        const earlier = await store.importMeeting(
          s11,
          meetingDoc('earlier', '2024-04-01T09:00:00Z', {
            title: 'Earlier',
            topics: [{ name: 'ACME corp', kind: 'project', attribution: grace }],
          }),
        );
        await store.importMeeting(
          s12,
          meetingDoc('other', '2024-04-03T09:00:00Z', { topics: [{ name: 'acme CORP', kind: 'account', attribution: grace }] }),
        );
        const topics = await store.list('topic', s11, query());
        expect(topics).toHaveLength(1);
        expect(Topic.strict().parse(topics[0])).toMatchObject({
          name: 'Acme Corp',
          kind: 'account',
          attribution: ada,
          last_discussed_at: '2024-04-02T09:00:00Z',
          meetings: [
            { meeting_id: later.meetingId, title: 'Later', started_at: '2024-04-02T09:00:00Z' },
            { meeting_id: earlier.meetingId, title: 'Earlier', started_at: '2024-04-01T09:00:00Z' },
          ],
        });
        const newest = await store.importMeeting(
          s11,
          meetingDoc('newest', '2024-04-05T09:00:00Z', { title: 'Newest', topics: [{ name: 'acme corp', kind: 'theme', attribution: grace }] }),
        );
        const [updated] = await store.list('topic', s11, query());
        expect(updated?.last_discussed_at).toBe('2024-04-05T09:00:00Z');
        expect(updated?.meetings.map((m) => m.meeting_id)).toEqual([newest.meetingId, later.meetingId, earlier.meetingId]);
        expect(updated?.id).toBe(topics[0]?.id);
        expect((await store.getMeeting(s11, newest.meetingId))?.memory.topic).toBe(1);
        const [other] = await store.list('topic', s12, query());
        expect(other?.id).not.toBe(updated?.id);
        expect(other?.meetings).toHaveLength(1);
      });
    });

    describe('workflow writes', () => {
      it('creates an open action item attributed to the actor', async () => {
        const { meetingId } = await store.importMeeting(s11, richDoc('one', 'alpha'));
        const item = await store.createActionItem(
          s11,
          { text: 'Draft the quarterly roadmap', assigneeIdpId: grace.idp_id ?? '', dueDate: '2024-07-01', meetingId },
          bot,
        );
        expect(ActionItem.strict().parse(item)).toEqual({
          id: item.id,
          type: 'action_item',
          deployment_id: s11.deploymentId,
          meeting_id: meetingId,
          attribution: bot,
          created_at: item.created_at,
          text: 'Draft the quarterly roadmap',
          status: 'open',
          assignee: grace,
          due_date: '2024-07-01',
          updated_at: null,
          updated_by: null,
        });
        expect(await store.get('action_item', s11, item.id)).toEqual(item);
        const bare = await store.createActionItem(s11, { text: 'Unassigned' }, bot);
        expect(bare).toMatchObject({ meeting_id: null, assignee: null, due_date: null });
        const hits = (await store.search(s11, searchQuery('quarterly roadmap'))).hits;
        expect(hits.map((h) => h.record.id)).toEqual([item.id]);
        expect(await store.get('action_item', s12, item.id)).toBeNull();
      });

      it('resolves assignees through the tenant directory; an unknown id has no name', async () => {
        await store.importMeeting(
          s2,
          meetingDoc('t2', '2024-03-01T09:00:00Z', {
            organizer: anonymous,
            participants: [{ ...grace, display_name: 'Other tenant Grace' }],
          }),
        );
        await store.importMeeting(s11, richDoc('one', 'alpha'));
        const unknown = randomUUID();
        const known = await store.createActionItem(s11, { text: 'x', assigneeIdpId: grace.idp_id ?? '' }, bot);
        expect(known.assignee).toStrictEqual(grace);
        const stranger = await store.createActionItem(s11, { text: 'y', assigneeIdpId: unknown }, bot);
        expect(stranger.assignee).toStrictEqual({ kind: 'platform_identity', idp_id: unknown });
        const inOtherTenant = await store.createActionItem(s2, { text: 'z', assigneeIdpId: ada.idp_id ?? '' }, bot);
        expect(inOtherTenant.assignee).toStrictEqual({ kind: 'platform_identity', idp_id: ada.idp_id });
        const t2Grace = await store.createActionItem(s2, { text: 'w', assigneeIdpId: grace.idp_id ?? '' }, bot);
        expect(t2Grace.assignee?.display_name).toBe('Other tenant Grace');
      });

      it('updates action items only on real change, and sets, clears or leaves the due date', async () => {
        const item = await store.createActionItem(s11, { text: 'Ship it', dueDate: '2024-06-01' }, bot);
        const noop = await store.updateActionItem(s11, item.id, { status: 'open' }, otherBot);
        expect(noop).toEqual(item);
        const done = await store.updateActionItem(s11, item.id, { status: 'done' }, bot);
        expect(done).toMatchObject({ status: 'done', due_date: '2024-06-01', updated_by: bot });
        expect(Timestamp.safeParse(done?.updated_at).success).toBe(true);
        expect(await store.updateActionItem(s11, item.id, { status: 'done', dueDate: '2024-06-01' }, otherBot)).toEqual(done);
        const moved = await store.updateActionItem(s11, item.id, { dueDate: '2024-06-15' }, otherBot);
        expect(moved).toMatchObject({ status: 'done', due_date: '2024-06-15', updated_by: otherBot });
        const cleared = await store.updateActionItem(s11, item.id, { dueDate: null }, bot);
        expect(cleared).toMatchObject({ due_date: null, updated_by: bot });
        const reopened = await store.updateActionItem(s11, item.id, { status: 'open' }, otherBot);
        expect(reopened).toMatchObject({ status: 'open', due_date: null });
        ActionItem.strict().parse(reopened);
      });

      it('reassigns action items; the same assignee again is no change', async () => {
        await store.importMeeting(s11, richDoc('one', 'alpha'));
        const item = await store.createActionItem(s11, { text: 'Call Acme' }, bot);
        const assigned = await store.updateActionItem(s11, item.id, { assigneeIdpId: grace.idp_id ?? '' }, bot);
        expect(assigned).toMatchObject({ assignee: grace, updated_by: bot });
        const same = await store.updateActionItem(s11, item.id, { assigneeIdpId: grace.idp_id ?? '' }, otherBot);
        expect(same).toEqual(assigned);
        const stranger = randomUUID();
        const reassigned = await store.updateActionItem(s11, item.id, { assigneeIdpId: stranger }, otherBot);
        expect(reassigned).toMatchObject({ assignee: { kind: 'platform_identity', idp_id: stranger }, updated_by: otherBot });
        expect(await store.list('action_item', s11, query({ assigneeIdpId: stranger }))).toEqual([reassigned]);
      });

      it('refuses to update a record outside the scope and leaves it untouched', async () => {
        await seedAllScopes();
        const [item] = await store.list('action_item', s11, query());
        const [question] = await store.list('open_question', s11, query());
        const [decision] = await store.list('decision', s11, query());
        for (const scope of [s12, s2, mixed]) {
          expect(await store.updateActionItem(scope, item?.id ?? '', { status: 'done' }, bot)).toBeNull();
          expect(await store.updateOpenQuestion(scope, question?.id ?? '', { status: 'resolved', note: 'x' }, bot)).toBeNull();
          expect(await store.updateDecision(scope, decision?.id ?? '', { status: 'superseded', note: 'x' }, bot)).toBeNull();
        }
        expect(await store.updateActionItem(s11, randomUUID(), { status: 'done' }, bot)).toBeNull();
        expect(await store.get('action_item', s11, item?.id ?? '')).toEqual(item);
        expect(await store.get('open_question', s11, question?.id ?? '')).toEqual(question);
        expect(await store.get('decision', s11, decision?.id ?? '')).toEqual(decision);
      });

      it('sets, leaves and clears notes on open questions and decisions, stamping only real changes', async () => {
        await store.importMeeting(s11, richDoc('one', 'alpha'));
        const [question] = await store.list('open_question', s11, query());
        const id = question?.id ?? '';
        expect(await store.updateOpenQuestion(s11, id, { status: 'open' }, bot)).toEqual(question);
        const resolved = await store.updateOpenQuestion(s11, id, { status: 'resolved', note: 'Legal owns it' }, bot);
        expect(resolved).toMatchObject({ status: 'resolved', note: 'Legal owns it', updated_by: bot });
        expect(await store.updateOpenQuestion(s11, id, { status: 'resolved' }, otherBot)).toEqual(resolved);
        expect(await store.updateOpenQuestion(s11, id, { status: 'resolved', note: 'Legal owns it' }, otherBot)).toEqual(resolved);
        const reopened = await store.updateOpenQuestion(s11, id, { status: 'open' }, otherBot);
        expect(reopened).toMatchObject({ status: 'open', note: 'Legal owns it', updated_by: otherBot });
        const cleared = await store.updateOpenQuestion(s11, id, { status: 'open', note: null }, bot);
        expect(cleared).toMatchObject({ status: 'open', note: null, updated_by: bot });
        OpenQuestion.strict().parse(cleared);

        const [decision] = await store.list('decision', s11, query({ order: 'asc' }));
        const did = decision?.id ?? '';
        expect(await store.updateDecision(s11, did, { status: 'confirmed', note: null }, bot)).toEqual(decision);
        const superseded = await store.updateDecision(s11, did, { status: 'superseded', note: 'See the May plan' }, bot);
        expect(superseded).toMatchObject({ status: 'superseded', note: 'See the May plan', updated_by: bot });
        const renoted = await store.updateDecision(s11, did, { status: 'superseded', note: 'See the June plan' }, otherBot);
        expect(renoted).toMatchObject({ status: 'superseded', note: 'See the June plan', updated_by: otherBot });
        const confirmed = await store.updateDecision(s11, did, { status: 'confirmed', note: null }, bot);
        expect(confirmed).toMatchObject({ status: 'confirmed', note: null, updated_by: bot });
        expect(await store.get('decision', s11, did)).toEqual(confirmed);
        Decision.strict().parse(confirmed);
      });
    });

    describe('search', () => {
      it('ranks records that hold more of the terms first, with a positive rank', async () => {
        await seedAllScopes();
        const { hits, capped } = await store.search(s11, searchQuery('review budget'));
        expect(capped).toBe(false);
        expect(hits[0]?.record).toMatchObject({ type: 'statement', text: 'We should review the budget for the Acme renewal alpha' });
        expect(hits.map((h) => h.record.type).sort()).toEqual(['action_item', 'decision', 'statement']);
        for (const [i, hit] of hits.entries()) {
          expect(hit.rank).toBeGreaterThan(0);
          if (i > 0) expect(hit.rank).toBeLessThanOrEqual(hits[i - 1]?.rank ?? 0);
          expect(hit.record.deployment_id).toBe(s11.deploymentId);
          SCHEMAS[hit.record.type].strict().parse(hit.record);
        }
      });

      it('keeps phrases and prefixes, and stems words', async () => {
        await store.importMeeting(s11, richDoc('one', 'alpha'));
        const texts = async (text: string) => {
          const { hits } = await store.search(s11, searchQuery(text, { types: ['statement'] }));
          return hits.map((h) => (h.record as Statement).text);
        };
        expect(await texts('"hiring freeze"')).toEqual(['The hiring freeze ends in April alpha']);
        expect((await texts('hiring freeze')).sort()).toEqual([
          'Can we freeze the hiring plan alpha',
          'The hiring freeze ends in April alpha',
        ]);
        expect(await texts('budg*')).toEqual(['We should review the budget for the Acme renewal alpha']);
        expect(await texts('reviewing')).toEqual(['We should review the budget for the Acme renewal alpha']);
      });

      it('honours types, and dates on each type’s own timestamp (topics: last discussed)', async () => {
        await store.importMeeting(s11, richDoc('one', 'alpha'));
        await store.importMeeting(
          s11,
          meetingDoc('april', '2024-04-10T09:00:00Z', {
            statements: [{ attribution: ada, text: 'The Acme budget again', spokenAt: '2024-04-10T09:05:00Z' }],
          }),
        );
        const only = await store.search(s11, searchQuery('budget', { types: ['decision'] }));
        expect(only.hits.map((h) => h.record.type)).toEqual(['decision']);
        const april = await store.search(s11, searchQuery('budget acme', { since: '2024-04-01' }));
        expect(april.hits.map((h) => (h.record as Statement).text)).toEqual(['The Acme budget again']);
        const march = await store.search(s11, searchQuery('budget acme', { until: '2024-03-31' }));
        expect(march.hits.length).toBeGreaterThan(1);
        expect(march.hits.some((h) => h.record.type === 'topic')).toBe(true);
        expect(march.hits.every((h) => (h.record as Statement).text !== 'The Acme budget again')).toBe(true);
        const oneDay = { since: '2024-03-01', until: '2024-03-01' };
        const topics = await store.search(s11, searchQuery('acme', { types: ['topic'], ...oneDay }));
        expect(topics.hits.map((h) => (h.record as Topic).name)).toEqual(['Acme Corp']);
        expect((await store.search(s11, searchQuery('acme', { types: ['topic'], since: '2024-03-02' }))).hits).toEqual([]);
        expect((await store.search(s11, searchQuery('budget', oneDay))).hits).toHaveLength(3);
      });

      it('returns at most candidateCap hits and says when more matched', async () => {
        await store.importMeeting(s11, richDoc('one', 'alpha'));
        const capped = await store.search(s11, searchQuery('budget', { candidateCap: 2 }));
        expect(capped.hits).toHaveLength(2);
        expect(capped.capped).toBe(true);
        const exact = await store.search(s11, searchQuery('budget', { candidateCap: 3 }));
        expect(exact.hits).toHaveLength(3);
        expect(exact.capped).toBe(false);
        expect(exact.hits.slice(0, 2)).toEqual(capped.hits);
      });

      it('stays inside the scope', async () => {
        await seedAllScopes();
        for (const scope of [s12, s2]) {
          const { hits } = await store.search(scope, searchQuery('budget alpha charlie bravo'));
          expect(hits.length).toBeGreaterThan(0);
          expect(hits.every((h) => h.record.deployment_id === scope.deploymentId)).toBe(true);
        }
        expect((await store.search(mixed, searchQuery('budget'))).hits).toEqual([]);
        expect((await store.search(s12, searchQuery('alpha'))).hits).toEqual([]);
      });

      it('returns the current workflow state of a hit', async () => {
        await store.importMeeting(s11, richDoc('one', 'alpha'));
        const [question] = await store.list('open_question', s11, query());
        await store.updateOpenQuestion(s11, question?.id ?? '', { status: 'resolved', note: 'Legal' }, bot);
        const { hits } = await store.search(s11, searchQuery('vendor contract'));
        expect(hits[0]?.record).toMatchObject({ id: question?.id, status: 'resolved', note: 'Legal' });
      });

      it('finds unicode text', async () => {
        await store.importMeeting(
          s11,
          meetingDoc('uni', '2024-03-01T09:00:00Z', {
            statements: [{ attribution: ada, text: 'Le café crème est prêt 🙂', spokenAt: '2024-03-01T09:00:01Z' }],
          }),
        );
        expect((await store.search(s11, searchQuery('café'))).hits).toHaveLength(1);
        expect((await store.search(s11, searchQuery('CAFÉ crème'))).hits).toHaveLength(1);
      });

      const hostile = [
        '"',
        '""',
        '"unbalanced budget',
        'budget"',
        '(budget',
        'budget)',
        '()',
        'AND',
        'OR budget',
        'budget AND',
        'NOT budget',
        'NEAR(budget hiring)',
        'NEAR/2',
        'budget NOT hiring',
        '*',
        '**',
        '*budget',
        'bud*get',
        'budget**',
        '^budget',
        'text:budget',
        'facet : budget',
        '{text facet}: budget',
        '-budget',
        '+',
        ':',
        '\\',
        "'; DROP TABLE statements; --",
        '🙂',
        '🙂 budget 🚀',
        '日本語のテキスト',
        'ǅemal Ⅻ ﬁ',
        '\u0000',
        '\u200b',
        'a'.repeat(1000),
        'budget '.repeat(140),
      ];

      const cases = hostile.map((text) => [JSON.stringify(text).slice(0, 40), text]);
      it.each(cases)('never throws on %s', async (_label, text) => {
        await store.importMeeting(s11, richDoc('one', 'alpha'));
        const outcome = await store.search(s11, searchQuery(text));
        expect(Array.isArray(outcome.hits)).toBe(true);
        expect(outcome.hits.every((h) => h.record.deployment_id === s11.deploymentId && h.rank > 0)).toBe(true);
        if (/budget/.test(text) && !text.startsWith('*') && !text.includes('bud*get')) {
          expect(outcome.hits.length).toBeGreaterThan(0);
        }
      });
    });
  });
}
