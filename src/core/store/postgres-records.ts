import type { Meeting } from '../../contract/index.js';
import type { ListKind, ListQuery, RecordOf, Scope } from './store.js';
import { numbered, type Tx } from './postgres-db.js';
import { attribution, text, type Row } from './sqlite-db.js';
import { buildListSql, mapRecord, recordSql, toMeeting, toTopicMeetings } from './sqlite-records.js';

const TOPIC_MEETINGS_SQL = `SELECT tm.topic_id, m.id, m.title, m.started_at FROM topic_meetings tm
  JOIN meetings m ON m.tenant_id = tm.tenant_id AND m.deployment_id = tm.deployment_id AND m.id = tm.meeting_id
  WHERE tm.tenant_id = $1 AND tm.deployment_id = $2 AND tm.topic_id = ANY($3::text[])
  ORDER BY m.started_at DESC, m.id DESC`;

/** Maps rows of one kind to records; the meetings of all topics among them come in one query, not one per topic. */
export async function toRecords<K extends ListKind>(tx: Tx, kind: K, scope: Scope, rows: Row[]): Promise<RecordOf<K>[]> {
  const meetings = new Map<string, Row[]>();
  if (kind === 'topic' && rows.length > 0) {
    const ids = rows.map((row) => text(row, 'id'));
    for (const row of await tx.rows(TOPIC_MEETINGS_SQL, [scope.tenantId, scope.deploymentId, ids])) {
      const topicId = text(row, 'topic_id');
      meetings.set(topicId, [...(meetings.get(topicId) ?? []), row]);
    }
  }
  return rows.map((row) => mapRecord(kind, row, (topic) => toTopicMeetings(meetings.get(text(topic, 'id')) ?? [])));
}

/**
 * One keyset page: the very query builder the SQLite store uses, with numbered placeholders, so the two engines
 * cannot disagree on filters, order or cursor semantics.
 */
export async function listRecords<K extends ListKind>(tx: Tx, kind: K, scope: Scope, query: ListQuery): Promise<RecordOf<K>[]> {
  const { sql, params } = buildListSql(kind, scope, query);
  return toRecords(tx, kind, scope, await tx.rows(numbered(sql), params));
}

/** One record of the kind inside the scope, or null. */
export async function loadRecord<K extends ListKind>(tx: Tx, kind: K, scope: Scope, id: string): Promise<RecordOf<K> | null> {
  const row = await tx.row(numbered(recordSql(kind)), [scope.tenantId, scope.deploymentId, id]);
  return row ? ((await toRecords(tx, kind, scope, [row]))[0] ?? null) : null;
}

/** One record of the kind inside the scope, locked against concurrent writers until the transaction ends. */
export function recordForUpdateSql(kind: ListKind): string {
  return `${numbered(recordSql(kind))} FOR UPDATE`;
}

const IN_MEETING = 'tenant_id = $1 AND deployment_id = $2 AND meeting_id = $3';
const MEMORY_COUNT_SQL = `SELECT
  (SELECT count(*)::int FROM decisions WHERE ${IN_MEETING}) AS decision,
  (SELECT count(*)::int FROM open_questions WHERE ${IN_MEETING}) AS open_question,
  (SELECT count(*)::int FROM action_items WHERE ${IN_MEETING}) AS action_item,
  (SELECT count(*)::int FROM statements WHERE ${IN_MEETING}) AS statement,
  (SELECT count(*)::int FROM topic_meetings WHERE ${IN_MEETING}) AS topic`;

/** One meeting with its participants (in the order ingested) and a count of each kind of memory from it. */
export async function loadMeeting(tx: Tx, scope: Scope, id: string): Promise<Meeting | null> {
  const keys = [scope.tenantId, scope.deploymentId, id];
  const row = await tx.row('SELECT * FROM meetings WHERE tenant_id = $1 AND deployment_id = $2 AND id = $3', keys);
  if (!row) return null;
  const participantRows = await tx.rows(
    `SELECT * FROM meeting_participants WHERE tenant_id = $1 AND deployment_id = $2 AND meeting_id = $3
      ORDER BY position`,
    keys,
  );
  const participants = participantRows.map((p) => attribution(p, 'participant'));
  return toMeeting(row, participants, (await tx.row(MEMORY_COUNT_SQL, keys)) ?? {});
}
