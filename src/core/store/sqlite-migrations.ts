import type { Database } from 'better-sqlite3';
import { ADMIN_SCHEMA_SQL } from './sqlite-admin-schema.js';
import { AUDIT_SCHEMA_SQL } from './sqlite-audit-schema.js';
import { SEARCH_SCHEMA_SQL } from './sqlite-search-schema.js';

/** One schema step. Versions are dense and only ever appended: a shipped step is never edited. */
interface Migration {
  version: number;
  sql: string;
}

/** SQL that makes an attribution three plain columns, so filters and joins can use them (valid on both engines). */
export function attributionColumns(prefix: string, nullable: boolean): string {
  const kind = nullable ? `${prefix}_kind TEXT` : `${prefix}_kind TEXT NOT NULL`;
  return `${kind} CHECK (${prefix}_kind IN ('platform_identity', 'anonymous', 'service_principal')),
    ${prefix}_display_name TEXT,
    ${prefix}_idp_id TEXT`;
}

/** A trigger that refuses an UPDATE (of the given columns) or a DELETE, whoever issues it. */
function refuse(table: string, event: 'DELETE' | 'UPDATE', columns?: string[]): string {
  const of = columns ? ` OF ${columns.join(', ')}` : '';
  const name = `${table}_no_${event.toLowerCase()}`;
  return `CREATE TRIGGER ${name} BEFORE ${event}${of} ON ${table}
    BEGIN SELECT RAISE(ABORT, '${table}: ${event.toLowerCase()} refused, memory provenance is immutable'); END;`;
}

const SCOPE = 'tenant_id TEXT NOT NULL, deployment_id TEXT NOT NULL';
const SCOPE_FK = 'FOREIGN KEY (tenant_id, deployment_id) REFERENCES deployments (tenant_id, id)';
const MEETING_FK =
  'FOREIGN KEY (tenant_id, deployment_id, meeting_id) REFERENCES meetings (tenant_id, deployment_id, id)';
/** The closing columns of every record whose workflow state can change: who made it, when, and who changed it. */
const WORKFLOW_TAIL = `${attributionColumns('attribution', false)},
  created_at TEXT NOT NULL,
  updated_at TEXT,
  ${attributionColumns('updated_by', true)},
  UNIQUE (tenant_id, deployment_id, id),
  ${MEETING_FK}`;
/** Columns no update may touch, per table family; both engines refuse them by trigger. */
export const PROVENANCE = ['tenant_id', 'deployment_id', 'id', 'meeting_id', 'text', 'created_at'];
export const ATTRIBUTED = ['attribution_kind', 'attribution_display_name', 'attribution_idp_id'];
/** ended_at stays writable: a meeting ingested while live may be closed later. */
export const MEETING_IDENTITY = [
  'tenant_id',
  'deployment_id',
  'id',
  'external_id',
  'title',
  'platform',
  'started_at',
  'organizer_kind',
  'organizer_display_name',
  'organizer_idp_id',
  'created_at',
];

/** A decision or open-question table: meeting-bound text with a workflow status, a note and a change stamp. */
function workflowTable(table: string, ts: string, states: [string, string]): string {
  return `CREATE TABLE ${table} (
  ${SCOPE},
  id TEXT NOT NULL,
  meeting_id TEXT NOT NULL,
  text TEXT NOT NULL,
  ${ts} TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('${states[0]}', '${states[1]}')),
  note TEXT,
  ${WORKFLOW_TAIL}
) STRICT;
CREATE INDEX ${table}_by_time ON ${table} (tenant_id, deployment_id, ${ts}, id);
CREATE INDEX ${table}_by_meeting ON ${table} (tenant_id, deployment_id, meeting_id, ${ts}, id);`;
}

/*
 * Every index starts with (tenant_id, deployment_id) so that no query can scan across scopes, and the list
 * indexes end in (timestamp, id) so keyset pages are index range scans without a sort.
 */
const V1 = `
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;

CREATE TABLE tenants (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  region TEXT NOT NULL CHECK (region IN ('us', 'ca')),
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE deployments (
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  platform TEXT NOT NULL CHECK (platform IN ('teams', 'zoom', 'meet', 'webex')),
  voice TEXT NOT NULL,
  avatar_url TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, id)
) STRICT;

CREATE TABLE principals (
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  oid TEXT NOT NULL,
  client_id TEXT NOT NULL,
  display_name TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  is_admin INTEGER NOT NULL CHECK (is_admin IN (0, 1)),
  created_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, oid),
  UNIQUE (tenant_id, client_id)
) STRICT;

CREATE TABLE grants (
  tenant_id TEXT NOT NULL,
  oid TEXT NOT NULL,
  deployment_id TEXT NOT NULL,
  access TEXT NOT NULL CHECK (access IN ('read', 'read_write')),
  PRIMARY KEY (tenant_id, oid, deployment_id),
  FOREIGN KEY (tenant_id, oid) REFERENCES principals (tenant_id, oid),
  ${SCOPE_FK}
) STRICT;

CREATE TABLE people (
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  idp_id TEXT NOT NULL,
  display_name TEXT,
  PRIMARY KEY (tenant_id, idp_id)
) STRICT;

CREATE TABLE meetings (
  ${SCOPE},
  id TEXT NOT NULL,
  external_id TEXT NOT NULL,
  title TEXT NOT NULL,
  platform TEXT NOT NULL CHECK (platform IN ('teams', 'zoom', 'meet', 'webex')),
  started_at TEXT NOT NULL,
  ended_at TEXT,
  ${attributionColumns('organizer', false)},
  created_at TEXT NOT NULL,
  UNIQUE (tenant_id, deployment_id, id),
  UNIQUE (tenant_id, deployment_id, external_id),
  ${SCOPE_FK}
) STRICT;

CREATE TABLE meeting_participants (
  ${SCOPE},
  meeting_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  ${attributionColumns('participant', false)},
  PRIMARY KEY (tenant_id, deployment_id, meeting_id, position),
  ${MEETING_FK}
) STRICT;

CREATE TABLE statements (
  ${SCOPE},
  id TEXT NOT NULL,
  meeting_id TEXT NOT NULL,
  text TEXT NOT NULL,
  spoken_at TEXT NOT NULL,
  ${attributionColumns('attribution', false)},
  created_at TEXT NOT NULL,
  UNIQUE (tenant_id, deployment_id, id),
  ${MEETING_FK}
) STRICT;
CREATE INDEX statements_by_time ON statements (tenant_id, deployment_id, spoken_at, id);
CREATE INDEX statements_by_meeting ON statements (tenant_id, deployment_id, meeting_id, spoken_at, id);

${workflowTable('decisions', 'decided_at', ['confirmed', 'superseded'])}

${workflowTable('open_questions', 'raised_at', ['open', 'resolved'])}

CREATE TABLE action_items (
  ${SCOPE},
  id TEXT NOT NULL,
  meeting_id TEXT,
  text TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('open', 'done')),
  due_date TEXT,
  ${attributionColumns('assignee', true)},
  ${WORKFLOW_TAIL}
) STRICT;
CREATE INDEX action_items_by_time ON action_items (tenant_id, deployment_id, created_at, id);
CREATE INDEX action_items_by_meeting ON action_items (tenant_id, deployment_id, meeting_id, created_at, id);
CREATE INDEX action_items_by_status ON action_items (tenant_id, deployment_id, status, created_at, id);
CREATE INDEX action_items_by_assignee ON action_items (tenant_id, deployment_id, assignee_idp_id, created_at, id);

CREATE TABLE topics (
  ${SCOPE},
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('account', 'project', 'theme')),
  ${attributionColumns('attribution', false)},
  created_at TEXT NOT NULL,
  last_discussed_at TEXT NOT NULL,
  UNIQUE (tenant_id, deployment_id, id),
  UNIQUE (tenant_id, deployment_id, name_key),
  ${SCOPE_FK}
) STRICT;
CREATE INDEX topics_by_time ON topics (tenant_id, deployment_id, last_discussed_at, id);

CREATE TABLE topic_meetings (
  ${SCOPE},
  topic_id TEXT NOT NULL,
  meeting_id TEXT NOT NULL,
  PRIMARY KEY (tenant_id, deployment_id, topic_id, meeting_id),
  FOREIGN KEY (tenant_id, deployment_id, topic_id) REFERENCES topics (tenant_id, deployment_id, id),
  ${MEETING_FK}
) STRICT;
CREATE INDEX topic_meetings_by_meeting ON topic_meetings (tenant_id, deployment_id, meeting_id);

-- One row per searchable record; its rowid is the rowid of the record's text in memory_fts.
CREATE TABLE search_docs (
  rowid INTEGER PRIMARY KEY,
  ${SCOPE},
  kind TEXT NOT NULL CHECK (kind IN ('decision', 'open_question', 'action_item', 'statement', 'topic')),
  record_id TEXT NOT NULL,
  ts TEXT NOT NULL,
  UNIQUE (tenant_id, deployment_id, kind, record_id)
) STRICT;

-- Contentless: the text lives in the record tables. facet holds one opaque token per (tenant, deployment, kind)
-- so the MATCH itself is confined to the caller's scope and types.
CREATE VIRTUAL TABLE memory_fts USING fts5(
  text, facet, content='', contentless_delete=1, tokenize='porter unicode61'
);

${refuse('statements', 'UPDATE')}
${refuse('statements', 'DELETE')}
${refuse('meetings', 'UPDATE', MEETING_IDENTITY)}
${refuse('meetings', 'DELETE')}
${refuse('meeting_participants', 'UPDATE')}
${refuse('meeting_participants', 'DELETE')}
${refuse('decisions', 'UPDATE', [...PROVENANCE, 'decided_at', ...ATTRIBUTED])}
${refuse('decisions', 'DELETE')}
${refuse('open_questions', 'UPDATE', [...PROVENANCE, 'raised_at', ...ATTRIBUTED])}
${refuse('open_questions', 'DELETE')}
${refuse('action_items', 'UPDATE', [...PROVENANCE, ...ATTRIBUTED])}
${refuse('action_items', 'DELETE')}
${refuse('topics', 'UPDATE', ['tenant_id', 'deployment_id', 'id', 'name', 'name_key', 'created_at', ...ATTRIBUTED])}
${refuse('topics', 'DELETE')}
${refuse('topic_meetings', 'DELETE')}
`;

/** The schema history of the SQLite store, oldest first. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, sql: V1 },
  { version: 2, sql: AUDIT_SCHEMA_SQL },
  { version: 3, sql: ADMIN_SCHEMA_SQL },
  { version: 4, sql: SEARCH_SCHEMA_SQL },
];

/** The schema version this code expects. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the database to SCHEMA_VERSION in one transaction (PRAGMA user_version records where it stands), so a
 * crash mid-way leaves the previous schema intact. Refuses a database written by a newer release.
 */
export function migrate(db: Database): void {
  const apply = db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > SCHEMA_VERSION) {
      throw new Error(
        `The database schema is version ${current}, newer than this release knows (${SCHEMA_VERSION}): ` +
          'upgrade meeting-memory.',
      );
    }
    for (const step of MIGRATIONS) {
      if (step.version <= current) continue;
      db.exec(step.sql);
      db.pragma(`user_version = ${step.version}`);
    }
  });
  apply.immediate();
}
