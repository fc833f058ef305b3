import type {
  ActionItem,
  Decision,
  Meeting,
  OpenQuestion,
  Statement,
  Topic,
} from '../../contract/index.js';
import { SEARCHABLE_TYPES } from '../../contract/index.js';
import type { ListKind, ListQuery, RecordOf, Scope } from './store.js';
import { attribution, integer, maybeAttribution, maybeText, text, type Row, type Sql } from './sqlite-db.js';

interface KindSpec {
  table: string;
  /** The column lists are ordered and date-filtered by (TIMESTAMP_FIELD of the contract). */
  ts: string;
  /** Whether the kind belongs to one meeting, so the meetingId filter applies. */
  inMeeting: boolean;
}

/** Where each listable kind lives. */
export const KINDS: Record<ListKind, KindSpec> = {
  decision: { table: 'decisions', ts: 'decided_at', inMeeting: true },
  open_question: { table: 'open_questions', ts: 'raised_at', inMeeting: true },
  action_item: { table: 'action_items', ts: 'created_at', inMeeting: true },
  statement: { table: 'statements', ts: 'spoken_at', inMeeting: true },
  topic: { table: 'topics', ts: 'last_discussed_at', inMeeting: false },
};

/** Inclusive UTC day bounds as timestamps that compare correctly as text. */
export function dayStart(day: string): string {
  return `${day}T00:00:00Z`;
}

export function dayEnd(day: string): string {
  return `${day}T23:59:59Z`;
}

/**
 * The SQL and parameters of one keyset page. Scope columns come first and the remaining equality filters next, so
 * that one of the (tenant, deployment, [filter,] ts, id) indexes serves the range and the order without a sort.
 */
export function buildListSql(kind: ListKind, scope: Scope, query: ListQuery): { sql: string; params: unknown[] } {
  const spec = KINDS[kind];
  const where = ['tenant_id = ?', 'deployment_id = ?'];
  const params: unknown[] = [scope.tenantId, scope.deploymentId];
  const filter = (condition: string, value: unknown) => {
    where.push(condition);
    params.push(value);
  };
  if (spec.inMeeting && query.meetingId !== undefined) filter('meeting_id = ?', query.meetingId);
  if (kind === 'action_item' && query.status !== undefined) filter('status = ?', query.status);
  if (kind === 'action_item' && query.assigneeIdpId !== undefined) filter('assignee_idp_id = ?', query.assigneeIdpId);
  if (query.since !== undefined) filter(`${spec.ts} >= ?`, dayStart(query.since));
  if (query.until !== undefined) filter(`${spec.ts} <= ?`, dayEnd(query.until));
  const direction = query.order === 'asc' ? 'ASC' : 'DESC';
  if (query.after) {
    where.push(`(${spec.ts}, id) ${direction === 'ASC' ? '>' : '<'} (?, ?)`);
    params.push(query.after.ts, query.after.id);
  }
  params.push(query.limit);
  const sql = `SELECT * FROM ${spec.table} WHERE ${where.join(' AND ')}
    ORDER BY ${spec.ts} ${direction}, id ${direction} LIMIT ?`;
  return { sql, params };
}

/** One record by id inside the scope. */
export function recordSql(kind: ListKind): string {
  return `SELECT * FROM ${KINDS[kind].table} WHERE tenant_id = ? AND deployment_id = ? AND id = ?`;
}

function workflowFields(row: Row) {
  return {
    note: maybeText(row, 'note'),
    updated_at: maybeText(row, 'updated_at'),
    updated_by: maybeAttribution(row, 'updated_by'),
  };
}

function common(row: Row) {
  return {
    id: text(row, 'id'),
    deployment_id: text(row, 'deployment_id'),
    attribution: attribution(row, 'attribution'),
    created_at: text(row, 'created_at'),
  };
}

function toDecision(row: Row): Decision {
  return {
    ...common(row),
    type: 'decision',
    meeting_id: text(row, 'meeting_id'),
    text: text(row, 'text'),
    decided_at: text(row, 'decided_at'),
    status: text(row, 'status') as Decision['status'],
    ...workflowFields(row),
  };
}

function toOpenQuestion(row: Row): OpenQuestion {
  return {
    ...common(row),
    type: 'open_question',
    meeting_id: text(row, 'meeting_id'),
    text: text(row, 'text'),
    raised_at: text(row, 'raised_at'),
    status: text(row, 'status') as OpenQuestion['status'],
    ...workflowFields(row),
  };
}

function toActionItem(row: Row): ActionItem {
  return {
    ...common(row),
    type: 'action_item',
    meeting_id: maybeText(row, 'meeting_id'),
    text: text(row, 'text'),
    status: text(row, 'status') as ActionItem['status'],
    assignee: maybeAttribution(row, 'assignee'),
    due_date: maybeText(row, 'due_date'),
    updated_at: maybeText(row, 'updated_at'),
    updated_by: maybeAttribution(row, 'updated_by'),
  };
}

function toStatement(row: Row): Statement {
  return {
    ...common(row),
    type: 'statement',
    meeting_id: text(row, 'meeting_id'),
    text: text(row, 'text'),
    spoken_at: text(row, 'spoken_at'),
  };
}

const TOPIC_MEETINGS_SQL = `SELECT m.id, m.title, m.started_at FROM topic_meetings tm
  JOIN meetings m ON m.tenant_id = tm.tenant_id AND m.deployment_id = tm.deployment_id AND m.id = tm.meeting_id
  WHERE tm.tenant_id = ? AND tm.deployment_id = ? AND tm.topic_id = ?
  ORDER BY m.started_at DESC, m.id DESC`;

/** A topic's meetings as the record lists them, from rows of (id, title, started_at). */
export function toTopicMeetings(rows: Row[]): Topic['meetings'] {
  return rows.map((m) => ({ meeting_id: text(m, 'id'), title: text(m, 'title'), started_at: text(m, 'started_at') }));
}

function toTopic(row: Row, meetings: Topic['meetings']): Topic {
  return {
    ...common(row),
    type: 'topic',
    name: text(row, 'name'),
    kind: text(row, 'kind') as Topic['kind'],
    last_discussed_at: text(row, 'last_discussed_at'),
    meetings,
  };
}

/**
 * Maps a row of the kind's table to its contract record. Engine-neutral: a topic takes its meetings (newest
 * first) from `meetingsOf`, so each engine fetches them its own way.
 */
export function mapRecord<K extends ListKind>(kind: K, row: Row, meetingsOf: (topic: Row) => Topic['meetings']): RecordOf<K> {
  const mappers: { [P in ListKind]: (row: Row) => RecordOf<P> } = {
    decision: toDecision,
    open_question: toOpenQuestion,
    action_item: toActionItem,
    statement: toStatement,
    topic: (topicRow) => toTopic(topicRow, meetingsOf(topicRow)),
  };
  return mappers[kind](row);
}

/** Maps a row of the kind's table to its contract record (topics fetch their meetings, newest first). */
export function toRecord<K extends ListKind>(sql: Sql, kind: K, row: Row): RecordOf<K> {
  return mapRecord(kind, row, (topic) =>
    toTopicMeetings(sql.rows(TOPIC_MEETINGS_SQL, text(topic, 'tenant_id'), text(topic, 'deployment_id'), text(topic, 'id'))),
  );
}

/** One record of the kind inside the scope, or null. */
export function loadRecord<K extends ListKind>(sql: Sql, kind: K, scope: Scope, id: string): RecordOf<K> | null {
  const row = sql.row(recordSql(kind), scope.tenantId, scope.deploymentId, id);
  return row ? toRecord(sql, kind, row) : null;
}

const IN_MEETING = 'tenant_id = @tenant AND deployment_id = @deployment AND meeting_id = @meeting';
const MEMORY_COUNT_SQL = `SELECT
  (SELECT count(*) FROM decisions WHERE ${IN_MEETING}) AS decision,
  (SELECT count(*) FROM open_questions WHERE ${IN_MEETING}) AS open_question,
  (SELECT count(*) FROM action_items WHERE ${IN_MEETING}) AS action_item,
  (SELECT count(*) FROM statements WHERE ${IN_MEETING}) AS statement,
  (SELECT count(*) FROM topic_meetings WHERE ${IN_MEETING}) AS topic`;

/** One meeting with its participants (in the order ingested) and a count of each kind of memory from it. */
export function loadMeeting(sql: Sql, scope: Scope, id: string): Meeting | null {
  const row = sql.row(
    'SELECT * FROM meetings WHERE tenant_id = ? AND deployment_id = ? AND id = ?',
    scope.tenantId,
    scope.deploymentId,
    id,
  );
  if (!row) return null;
  const participants = sql
    .rows(
      `SELECT * FROM meeting_participants WHERE tenant_id = ? AND deployment_id = ? AND meeting_id = ?
        ORDER BY position`,
      scope.tenantId,
      scope.deploymentId,
      id,
    )
    .map((p) => attribution(p, 'participant'));
  const keys = { tenant: scope.tenantId, deployment: scope.deploymentId, meeting: id };
  return toMeeting(row, participants, sql.row(MEMORY_COUNT_SQL, keys) ?? {});
}

/** A meeting's row, its participants in order and its per-kind memory counts as the contract's Meeting. */
export function toMeeting(row: Row, participants: Meeting['participants'], counts: Row): Meeting {
  const memory = Object.fromEntries(SEARCHABLE_TYPES.map((kind) => [kind, integer(counts, kind)])) as Meeting['memory'];
  return {
    id: text(row, 'id'),
    type: 'meeting',
    deployment_id: text(row, 'deployment_id'),
    title: text(row, 'title'),
    platform: text(row, 'platform') as Meeting['platform'],
    started_at: text(row, 'started_at'),
    ended_at: maybeText(row, 'ended_at'),
    attribution: attribution(row, 'organizer'),
    created_at: text(row, 'created_at'),
    participants,
    memory,
  };
}
