import { randomUUID } from 'node:crypto';
import type { Attribution } from '../../contract/index.js';
import type { MeetingDocument, Scope } from './store.js';
import { attributionValues, maybeText, normalizeTimestamp, nowTimestamp, text, type Sql } from './sqlite-db.js';
import { indexText, retimeTopic } from './sqlite-fts.js';
import { KINDS } from './sqlite-records.js';

/** An action item as it is written, whether ingested or created through the API. */
export interface ActionItemInsert {
  id: string;
  meetingId: string | null;
  text: string;
  status: 'open' | 'done';
  dueDate: string | null;
  assignee: Attribution | null;
  attribution: Attribution;
  createdAt: string;
}

/** The action_items columns an insert fills, on both engines, in the order of actionItemValues. */
export const ACTION_ITEM_COLUMNS = [
  'tenant_id', 'deployment_id', 'id', 'meeting_id', 'text', 'status', 'due_date',
  'assignee_kind', 'assignee_display_name', 'assignee_idp_id',
  'attribution_kind', 'attribution_display_name', 'attribution_idp_id', 'created_at',
] as const;

/** An action item's row, in the order of ACTION_ITEM_COLUMNS. */
export function actionItemValues(scope: Scope, item: ActionItemInsert): unknown[] {
  return [
    scope.tenantId,
    scope.deploymentId,
    item.id,
    item.meetingId,
    item.text,
    item.status,
    item.dueDate,
    ...attributionValues(item.assignee),
    ...attributionValues(item.attribution),
    item.createdAt,
  ];
}

const INSERT_ACTION_ITEM_SQL = `INSERT INTO action_items (${ACTION_ITEM_COLUMNS.join(', ')})
  VALUES (${ACTION_ITEM_COLUMNS.map(() => '?').join(', ')})`;

/** Writes an action item and indexes its text (immutable from here on, so it is indexed once). */
export function insertActionItem(sql: Sql, scope: Scope, item: ActionItemInsert): void {
  sql.run(INSERT_ACTION_ITEM_SQL, ...actionItemValues(scope, item));
  indexText(sql, scope, 'action_item', item.id, item.createdAt, item.text, [item.attribution, item.assignee]);
}

/** The attribution of a person known by identity-provider id; the name comes from the directory when known. */
export function personAttribution(sql: Sql, tenantId: string, idpId: string): Attribution {
  const row = sql.row('SELECT display_name FROM people WHERE tenant_id = ? AND idp_id = ?', tenantId, idpId);
  const name = row ? maybeText(row, 'display_name') : null;
  return name === null
    ? { kind: 'platform_identity', idp_id: idpId }
    : { kind: 'platform_identity', display_name: name, idp_id: idpId };
}

/** Feeds the people directory, so an assignee_idp_id given later resolves to a name. The latest name wins. */
function rememberPeople(sql: Sql, tenantId: string, attributions: (Attribution | null)[]): void {
  for (const person of attributions) {
    if (person?.kind !== 'platform_identity' || person.idp_id === undefined) continue;
    sql.run(
      `INSERT INTO people (tenant_id, idp_id, display_name) VALUES (?, ?, ?)
       ON CONFLICT (tenant_id, idp_id)
       DO UPDATE SET display_name = coalesce(excluded.display_name, people.display_name)`,
      tenantId,
      person.idp_id,
      person.display_name ?? null,
    );
  }
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

function insertMeeting(sql: Sql, scope: Scope, id: string, doc: MeetingDocument, now: string): void {
  const { meeting } = doc;
  sql.run(
    `INSERT INTO meetings (tenant_id, deployment_id, id, external_id, title, platform, started_at, ended_at,
      organizer_kind, organizer_display_name, organizer_idp_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
  );
  doc.participants.forEach((participant, position) => {
    sql.run(
      `INSERT INTO meeting_participants (tenant_id, deployment_id, meeting_id, position,
        participant_kind, participant_display_name, participant_idp_id) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      scope.tenantId,
      scope.deploymentId,
      id,
      position,
      ...attributionValues(participant),
    );
  });
}

interface MeetingRecordEntry {
  /** Given by ingest so that statements of the same second keep transcript order; random otherwise. */
  id?: string;
  attribution: Attribution;
  text: string;
  at: string;
  /** Null for statements, which have no workflow state. */
  status: string | null;
}

/** Writes one statement, decision or open question of the meeting and indexes its text. */
function insertMeetingRecord(
  sql: Sql,
  scope: Scope,
  kind: 'statement' | 'decision' | 'open_question',
  meetingId: string,
  entry: MeetingRecordEntry,
  now: string,
): void {
  const { table, ts } = KINDS[kind];
  const id = entry.id ?? randomUUID();
  const at = normalizeTimestamp(entry.at);
  const withStatus = entry.status === null ? [] : [entry.status];
  sql.run(
    `INSERT INTO ${table} (tenant_id, deployment_id, id, meeting_id, text, ${ts}, ${withStatus.length ? 'status, ' : ''}
      attribution_kind, attribution_display_name, attribution_idp_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ${withStatus.length ? '?, ' : ''}?, ?, ?, ?)`,
    scope.tenantId,
    scope.deploymentId,
    id,
    meetingId,
    entry.text,
    at,
    ...withStatus,
    ...attributionValues(entry.attribution),
    now,
  );
  indexText(sql, scope, kind, id, at, entry.text, [entry.attribution]);
}

function insertMeetingRecords(sql: Sql, scope: Scope, meetingId: string, doc: MeetingDocument, now: string): void {
  for (const s of doc.statements) {
    insertMeetingRecord(sql, scope, 'statement', meetingId, { ...s, at: s.spokenAt, status: null }, now);
  }
  for (const d of doc.decisions) {
    const entry = { ...d, at: d.decidedAt, status: d.status ?? 'confirmed' };
    insertMeetingRecord(sql, scope, 'decision', meetingId, entry, now);
  }
  for (const q of doc.openQuestions) {
    const entry = { ...q, at: q.raisedAt, status: q.status ?? 'open' };
    insertMeetingRecord(sql, scope, 'open_question', meetingId, entry, now);
  }
  for (const item of doc.actionItems) {
    insertActionItem(sql, scope, {
      id: randomUUID(),
      meetingId,
      text: item.text,
      status: item.status ?? 'open',
      dueDate: item.dueDate,
      assignee: item.assignee,
      attribution: item.attribution,
      createdAt: normalizeTimestamp(item.createdAt),
    });
  }
}

/** Case-insensitive and Unicode-aware, so "ACME", "Acme" and "acme" are one topic (on both engines). */
export function topicKey(name: string): string {
  return name.normalize('NFC').trim().toLowerCase();
}

/**
 * Links the meeting to the deployment's topic of that name, creating the topic on first mention. The first
 * mention keeps its name, kind and attribution; last_discussed_at follows the latest linked meeting.
 */
function linkTopic(
  sql: Sql,
  scope: Scope,
  meeting: { id: string; startedAt: string },
  topic: MeetingDocument['topics'][number],
  now: string,
): void {
  const { startedAt } = meeting;
  const existing = sql.row(
    'SELECT id, last_discussed_at FROM topics WHERE tenant_id = ? AND deployment_id = ? AND name_key = ?',
    scope.tenantId,
    scope.deploymentId,
    topicKey(topic.name),
  );
  let topicId: string;
  if (existing) {
    topicId = text(existing, 'id');
    if (startedAt > text(existing, 'last_discussed_at')) {
      sql.run(
        'UPDATE topics SET last_discussed_at = ? WHERE tenant_id = ? AND deployment_id = ? AND id = ?',
        startedAt,
        scope.tenantId,
        scope.deploymentId,
        topicId,
      );
      retimeTopic(sql, scope, topicId, startedAt);
    }
  } else {
    topicId = randomUUID();
    sql.run(
      `INSERT INTO topics (tenant_id, deployment_id, id, name, name_key, kind,
        attribution_kind, attribution_display_name, attribution_idp_id, created_at, last_discussed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      scope.tenantId,
      scope.deploymentId,
      topicId,
      topic.name,
      topicKey(topic.name),
      topic.kind,
      ...attributionValues(topic.attribution),
      now,
      startedAt,
    );
    indexText(sql, scope, 'topic', topicId, startedAt, topic.name, [topic.attribution]);
  }
  sql.run(
    'INSERT OR IGNORE INTO topic_meetings (tenant_id, deployment_id, topic_id, meeting_id) VALUES (?, ?, ?, ?)',
    scope.tenantId,
    scope.deploymentId,
    topicId,
    meeting.id,
  );
}

/**
 * Writes a whole meeting and everything recorded in it in one transaction. The (tenant, deployment, externalId)
 * key makes it idempotent: a meeting imported before is returned as it is, and nothing is written. `staged` yields
 * further statements (a streamed import's), read only once the meeting is known to be new.
 */
export function importMeetingDocument(
  sql: Sql,
  scope: Scope,
  doc: MeetingDocument,
  staged: () => Iterable<MeetingDocument['statements'][number]> = () => [],
): { meetingId: string; created: boolean } {
  return sql.transaction(() => {
    const existing = sql.row(
      'SELECT id FROM meetings WHERE tenant_id = ? AND deployment_id = ? AND external_id = ?',
      scope.tenantId,
      scope.deploymentId,
      doc.meeting.externalId,
    );
    if (existing) return { meetingId: text(existing, 'id'), created: false };
    const now = nowTimestamp();
    const meetingId = doc.meeting.id ?? randomUUID();
    rememberPeople(sql, scope.tenantId, everyone(doc));
    insertMeeting(sql, scope, meetingId, doc, now);
    insertMeetingRecords(sql, scope, meetingId, doc, now);
    for (const s of staged()) {
      insertMeetingRecord(sql, scope, 'statement', meetingId, { ...s, at: s.spokenAt, status: null }, now);
    }
    const startedAt = normalizeTimestamp(doc.meeting.startedAt);
    for (const topic of doc.topics) linkTopic(sql, scope, { id: meetingId, startedAt }, topic, now);
    return { meetingId, created: true };
  });
}
