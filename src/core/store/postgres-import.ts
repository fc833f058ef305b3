import type { Attribution } from '../../contract/index.js';
import { createOrderedIds } from '../ingest/ordered-ids.js';
import type { MeetingDocument, Scope } from './store.js';
import type { Tx } from './postgres-db.js';
import { indexTexts, retimeTopic, type IndexEntry } from './postgres-search.js';
import { attributionValues, maybeText, normalizeTimestamp, nowTimestamp, text } from './sqlite-db.js';
import { whoText } from './sqlite-fts.js';
import { ACTION_ITEM_COLUMNS, actionItemValues, topicKey, type ActionItemInsert } from './sqlite-import.js';

/**
 * Ids of the records the store creates: UUIDv7 (time-ordered, still unguessable), so the indexes keyed by id grow
 * at their right edge. With random ids every insert lands on a cold page of each such index, which at a million
 * statements dominates the cost of an import.
 */
export const newRecordId = createOrderedIds();

/** The columns insertMany sends as integers; every other one is text (or a domain over text). */
const INTEGER_COLUMNS = new Set(['position', 'seq']);

/**
 * Inserts many rows in one statement: each column travels as one array and unnest() zips them back into rows, so
 * a meeting of thousands of statements costs a handful of round trips, not one per row.
 */
export async function insertMany(tx: Tx, table: string, columns: string[], rows: unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  const arrays = columns.map((_, i) => rows.map((row) => row[i] ?? null));
  const unnest = columns.map((column, i) => `$${i + 1}::${INTEGER_COLUMNS.has(column) ? 'integer' : 'text'}[]`);
  await tx.run(`INSERT INTO ${table} (${columns.join(', ')}) SELECT * FROM unnest(${unnest.join(', ')})`, arrays);
}

const ATTRIBUTION = (prefix: string) => [`${prefix}_kind`, `${prefix}_display_name`, `${prefix}_idp_id`];

/** Writes action items and indexes their texts (immutable from here on, so each is indexed once). */
export async function insertActionItems(tx: Tx, scope: Scope, items: ActionItemInsert[]): Promise<void> {
  await insertMany(
    tx,
    'action_items',
    [...ACTION_ITEM_COLUMNS],
    items.map((item) => actionItemValues(scope, item)),
  );
  await indexTexts(
    tx,
    scope,
    items.map((item) => ({
      kind: 'action_item',
      id: item.id,
      ts: item.createdAt,
      body: item.text,
      who: whoText([item.attribution, item.assignee]),
    })),
  );
}

/** The attribution of a person known by identity-provider id; the name comes from the directory when known. */
export async function personAttribution(tx: Tx, tenantId: string, idpId: string): Promise<Attribution> {
  const row = await tx.row('SELECT display_name FROM people WHERE tenant_id = $1 AND idp_id = $2', [tenantId, idpId]);
  const name = row ? maybeText(row, 'display_name') : null;
  return name === null
    ? { kind: 'platform_identity', idp_id: idpId }
    : { kind: 'platform_identity', display_name: name, idp_id: idpId };
}

function everyone(doc: MeetingDocument): (Attribution | null)[] {
  return [
    doc.meeting.organizer,
    ...doc.participants,
    ...doc.statements.map((s) => s.attribution),
    ...doc.decisions.map((d) => d.attribution),
    ...doc.openQuestions.map((q) => q.attribution),
    ...doc.actionItems.flatMap((a) => [a.attribution, a.assignee]),
    ...doc.topics.map((t) => t.attribution),
  ];
}

/**
 * Feeds the people directory in one upsert. Upserting row by row would let each later mention overwrite the name
 * unless it has none; folding the mentions first gives the same result (the last name given wins) without asking
 * PostgreSQL to touch a row twice in one statement. Ids go in sorted order, so two imports naming the same people
 * lock their rows in the same order and cannot deadlock.
 */
async function rememberPeople(tx: Tx, tenantId: string, attributions: (Attribution | null)[]): Promise<void> {
  const names = new Map<string, string | null>();
  for (const person of attributions) {
    if (person?.kind !== 'platform_identity' || person.idp_id === undefined) continue;
    names.set(person.idp_id, person.display_name ?? names.get(person.idp_id) ?? null);
  }
  const ids = [...names.keys()].sort();
  if (ids.length === 0) return;
  await tx.run(
    `INSERT INTO people (tenant_id, idp_id, display_name)
     SELECT $1, p.idp_id, p.display_name FROM unnest($2::text[], $3::text[]) AS p (idp_id, display_name)
     ON CONFLICT (tenant_id, idp_id) DO UPDATE SET display_name = coalesce(excluded.display_name, people.display_name)`,
    [tenantId, ids, ids.map((id) => names.get(id) ?? null)],
  );
}

/**
 * Claims the (tenant, deployment, externalId) key by inserting the meeting. A concurrent import of the same key
 * waits on the unique index and then finds the row: the meeting is created exactly once whichever replica wins.
 */
async function claimMeeting(tx: Tx, scope: Scope, id: string, doc: MeetingDocument, now: string): Promise<string | null> {
  const { meeting } = doc;
  const claimed = await tx.row(
    `INSERT INTO meetings (tenant_id, deployment_id, id, external_id, title, platform, started_at, ended_at,
      organizer_kind, organizer_display_name, organizer_idp_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (tenant_id, deployment_id, external_id) DO NOTHING RETURNING id`,
    [
      scope.tenantId,
      scope.deploymentId,
      id,
      meeting.externalId,
      meeting.title,
      meeting.platform,
      normalizeTimestamp(meeting.startedAt),
      meeting.endedAt === null ? null : normalizeTimestamp(meeting.endedAt),
      ...attributionValues(meeting.organizer),
      now,
    ],
  );
  return claimed ? null : text((await existingMeeting(tx, scope, meeting.externalId)) ?? {}, 'id');
}

function existingMeeting(tx: Tx, scope: Scope, externalId: string) {
  return tx.row('SELECT id FROM meetings WHERE tenant_id = $1 AND deployment_id = $2 AND external_id = $3', [
    scope.tenantId,
    scope.deploymentId,
    externalId,
  ]);
}

type Kept = 'statement' | 'decision' | 'open_question';

interface RecordRow {
  kind: Kept;
  id: string;
  text: string;
  at: string;
  status: string | null;
  attribution: Attribution;
}

const TABLES: Record<Kept, { table: string; ts: string; status: boolean }> = {
  statement: { table: 'statements', ts: 'spoken_at', status: false },
  decision: { table: 'decisions', ts: 'decided_at', status: true },
  open_question: { table: 'open_questions', ts: 'raised_at', status: true },
};

/** Writes the meeting's statements, decisions and open questions, one statement per table, and indexes them. */
async function insertRecords(tx: Tx, scope: Scope, meetingId: string, records: RecordRow[], now: string): Promise<void> {
  for (const [kind, spec] of Object.entries(TABLES) as [Kept, (typeof TABLES)[Kept]][]) {
    const rows = records.filter((r) => r.kind === kind);
    const columns = ['tenant_id', 'deployment_id', 'id', 'meeting_id', 'text', spec.ts, ...(spec.status ? ['status'] : [])];
    await insertMany(
      tx,
      spec.table,
      [...columns, ...ATTRIBUTION('attribution'), 'created_at'],
      rows.map((r) => [
        scope.tenantId,
        scope.deploymentId,
        r.id,
        meetingId,
        r.text,
        r.at,
        ...(spec.status ? [r.status] : []),
        ...attributionValues(r.attribution),
        now,
      ]),
    );
  }
  await indexTexts(
    tx,
    scope,
    records.map((r): IndexEntry => ({ kind: r.kind, id: r.id, ts: r.at, body: r.text, who: whoText([r.attribution]) })),
  );
}

function recordRows(doc: MeetingDocument): RecordRow[] {
  const row = (kind: Kept, entry: { id?: string; attribution: Attribution; text: string }, at: string, status: string | null) => ({
    kind,
    id: entry.id ?? newRecordId(),
    text: entry.text,
    at: normalizeTimestamp(at),
    status,
    attribution: entry.attribution,
  });
  return [
    ...doc.statements.map((s) => row('statement', s, s.spokenAt, null)),
    ...doc.decisions.map((d) => row('decision', d, d.decidedAt, d.status ?? 'confirmed')),
    ...doc.openQuestions.map((q) => row('open_question', q, q.raisedAt, q.status ?? 'open')),
  ];
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Links the meeting to the deployment's topic of that name, creating the topic on first mention. The first
 * mention keeps its name, kind and attribution; last_discussed_at follows the latest linked meeting. The topic row
 * is locked while it is read, so concurrent imports move its date one after the other.
 */
async function linkTopic(
  tx: Tx,
  scope: Scope,
  meeting: { id: string; startedAt: string },
  topic: MeetingDocument['topics'][number],
  now: string,
): Promise<void> {
  const keys = [scope.tenantId, scope.deploymentId, topicKey(topic.name)];
  let topicId: string | undefined;
  while (topicId === undefined) {
    const existing = await tx.row(
      `SELECT id, last_discussed_at FROM topics WHERE tenant_id = $1 AND deployment_id = $2 AND name_key = $3
       FOR UPDATE`,
      keys,
    );
    if (existing) {
      topicId = text(existing, 'id');
      if (meeting.startedAt > text(existing, 'last_discussed_at')) {
        await tx.run('UPDATE topics SET last_discussed_at = $1 WHERE tenant_id = $2 AND deployment_id = $3 AND id = $4', [
          meeting.startedAt,
          scope.tenantId,
          scope.deploymentId,
          topicId,
        ]);
        await retimeTopic(tx, scope, topicId, meeting.startedAt);
      }
      break;
    }
    // Another import may create the same topic between the read and this insert: then nothing is inserted and the
    // loop reads the row that import committed.
    const created = await tx.row(
      `INSERT INTO topics (tenant_id, deployment_id, id, name, name_key, kind,
        attribution_kind, attribution_display_name, attribution_idp_id, created_at, last_discussed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (tenant_id, deployment_id, name_key) DO NOTHING RETURNING id`,
      [...keys.slice(0, 2), newRecordId(), topic.name, keys[2], topic.kind, ...attributionValues(topic.attribution), now, meeting.startedAt],
    );
    if (created) {
      topicId = text(created, 'id');
      const who = whoText([topic.attribution]);
      await indexTexts(tx, scope, [{ kind: 'topic', id: topicId, ts: meeting.startedAt, body: topic.name, who }]);
    }
  }
  await tx.run(
    `INSERT INTO topic_meetings (tenant_id, deployment_id, topic_id, meeting_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT DO NOTHING`,
    [scope.tenantId, scope.deploymentId, topicId, meeting.id],
  );
}

/**
 * Writes a whole meeting and everything recorded in it inside the caller's transaction. The (tenant, deployment,
 * externalId) key makes it idempotent: a meeting imported before is returned as it is, and nothing is written.
 * `more` writes further records (a streamed import's staged statements), only once the meeting is known to be new.
 */
export async function importMeetingDocument(
  tx: Tx,
  scope: Scope,
  doc: MeetingDocument,
  more: (tx: Tx, meetingId: string, now: string) => Promise<void> = async () => {},
): Promise<{ meetingId: string; created: boolean }> {
  const now = nowTimestamp();
  const meetingId = doc.meeting.id ?? newRecordId();
  const existing = await claimMeeting(tx, scope, meetingId, doc, now);
  if (existing !== null) return { meetingId: existing, created: false };
  await rememberPeople(tx, scope.tenantId, everyone(doc));
  await insertMany(
    tx,
    'meeting_participants',
    ['tenant_id', 'deployment_id', 'meeting_id', 'position', ...ATTRIBUTION('participant')],
    doc.participants.map((p, position) => [scope.tenantId, scope.deploymentId, meetingId, position, ...attributionValues(p)]),
  );
  await insertRecords(tx, scope, meetingId, recordRows(doc), now);
  await insertActionItems(
    tx,
    scope,
    doc.actionItems.map((item) => ({
      id: newRecordId(),
      meetingId,
      text: item.text,
      status: item.status ?? 'open',
      dueDate: item.dueDate,
      assignee: item.assignee,
      attribution: item.attribution,
      createdAt: normalizeTimestamp(item.createdAt),
    })),
  );
  await more(tx, meetingId, now);
  const startedAt = normalizeTimestamp(doc.meeting.startedAt);
  // Sorted (stably, so the first mention of a name still comes first) so imports lock topics in one order.
  const topics = [...doc.topics].sort((a, b) => compareText(topicKey(a.name), topicKey(b.name)));
  for (const topic of topics) await linkTopic(tx, scope, { id: meetingId, startedAt }, topic, now);
  return { meetingId, created: true };
}
