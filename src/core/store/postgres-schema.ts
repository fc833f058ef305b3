import { APP_ROLE, TENANT_SETTING } from './postgres-db.js';
import { ATTRIBUTED, attributionColumns, MEETING_IDENTITY, PROVENANCE } from './sqlite-migrations.js';

/*
 * The PostgreSQL schema mirrors the SQLite one column for column, so one contract suite holds both. Ids and
 * timestamps are text in the "C" collation: the contract's fixed-width UTC form orders like the instants, ids order
 * byte-wise exactly as on SQLite whatever the database's locale, and the domain's CHECK keeps any other form out.
 */

/** The value every tenant policy matches: the tenant the current transaction was opened for. */
export const CURRENT_TENANT = `current_setting('${TENANT_SETTING}', true)`;

/**
 * Row-level security on a tenant table, ENABLEd and FORCEd so that the owner is held to it too: a row is seen,
 * written or changed only inside a transaction opened for its tenant.
 */
export function tenantPolicy(table: string, column = 'tenant_id'): string {
  return `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE ${table} FORCE ROW LEVEL SECURITY;
CREATE POLICY ${table}_tenant ON ${table} USING (${column} = ${CURRENT_TENANT}) WITH CHECK (${column} = ${CURRENT_TENANT});`;
}

/** The app role's rights on a table: only what the store's own statements need, column by column for updates. */
export function grant(table: string, privileges: string[], updatable: string[] = []): string {
  const update = updatable.length > 0 ? [`UPDATE (${updatable.join(', ')})`] : [];
  return `GRANT ${[...privileges, ...update].join(', ')} ON ${table} TO ${APP_ROLE};`;
}

/** A trigger that refuses an UPDATE (of the given columns), a DELETE or a TRUNCATE, whoever issues it. */
export function refuse(table: string, event: 'DELETE' | 'UPDATE' | 'TRUNCATE', columns?: string[]): string {
  const of = columns ? ` OF ${columns.join(', ')}` : '';
  const each = event === 'TRUNCATE' ? 'STATEMENT' : 'ROW';
  return `CREATE TRIGGER ${table}_no_${event.toLowerCase()} BEFORE ${event}${of} ON ${table}
  FOR EACH ${each} EXECUTE FUNCTION memory_refuse();`;
}

/** Every way of losing a table's rows, refused. */
function refuseRemoval(table: string): string {
  return `${refuse(table, 'DELETE')}\n${refuse(table, 'TRUNCATE')}`;
}

const SCOPE = 'tenant_id memory_id NOT NULL, deployment_id memory_id NOT NULL';
const SCOPE_FK = 'FOREIGN KEY (tenant_id, deployment_id) REFERENCES deployments (tenant_id, id)';
const MEETING_FK =
  'FOREIGN KEY (tenant_id, deployment_id, meeting_id) REFERENCES meetings (tenant_id, deployment_id, id)';
const WORKFLOW_TAIL = `${attributionColumns('attribution', false)},
  created_at memory_ts NOT NULL,
  updated_at memory_ts,
  ${attributionColumns('updated_by', true)},
  UNIQUE (tenant_id, deployment_id, id),
  ${MEETING_FK}`;
const UPDATED_BY = ['updated_at', 'updated_by_kind', 'updated_by_display_name', 'updated_by_idp_id'];

function workflowTable(table: string, ts: string, states: [string, string]): string {
  return `CREATE TABLE ${table} (
  ${SCOPE},
  id memory_id NOT NULL,
  meeting_id memory_id NOT NULL,
  text text NOT NULL,
  ${ts} memory_ts NOT NULL,
  status text NOT NULL CHECK (status IN ('${states[0]}', '${states[1]}')),
  note text,
  ${WORKFLOW_TAIL}
);
CREATE INDEX ${table}_by_time ON ${table} (tenant_id, deployment_id, ${ts}, id);
CREATE INDEX ${table}_by_meeting ON ${table} (tenant_id, deployment_id, meeting_id, ${ts}, id);
${tenantPolicy(table)}
${grant(table, ['SELECT', 'INSERT'], ['status', 'note', ...UPDATED_BY])}
${refuse(table, 'UPDATE', [...PROVENANCE, ts, ...ATTRIBUTED])}
${refuseRemoval(table)}`;
}

/**
 * The text search configuration of keyword search: Snowball's original Porter stemmer, the one SQLite's porter
 * tokenizer implements (Snowball's newer "english" stems some words differently, "Ines" for one), without a
 * stop-word list (FTS5 has none, so "the" and "not" stay searchable), and accent folding through the unaccent
 * dictionary when the database offers it, as SQLite's unicode61 folds diacritics.
 */
const TEXT_SEARCH = `
CREATE TEXT SEARCH DICTIONARY memory_stem (TEMPLATE = snowball, Language = porter);
CREATE TEXT SEARCH CONFIGURATION memory_text (COPY = english);
DO $$
DECLARE
  words CONSTANT text := 'asciiword, word, numword, asciihword, hword, numhword, hword_asciipart, hword_part, hword_numpart';
  folding text;
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public;
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'unaccent is not available (%): search keeps accents significant', SQLERRM;
  END;
  SELECT format('%I.%I', n.nspname, d.dictname) INTO folding
    FROM pg_ts_dict d JOIN pg_namespace n ON n.oid = d.dictnamespace WHERE d.dictname = 'unaccent' LIMIT 1;
  EXECUTE format('ALTER TEXT SEARCH CONFIGURATION memory_text ALTER MAPPING FOR %s WITH %s memory_stem',
    words, coalesce(folding || ', ', ''));
END $$;

-- OR and AND over tsqueries, the two connectives of the keyword tiers.
CREATE AGGREGATE memory_any (tsquery) (SFUNC = tsquery_or, STYPE = tsquery);
CREATE AGGREGATE memory_all (tsquery) (SFUNC = tsquery_and, STYPE = tsquery);

-- The user's terms as one tsquery, any of them or every one. Phrases (a single word is a one-word phrase) go
-- through phraseto_tsquery and prefixes are quoted lexemes, so no user text ever reaches tsquery syntax. NULL, never
-- an empty tsquery, when the parser finds no word in them (a letter JavaScript knows and PostgreSQL does not):
-- ANDed with the facets, an empty query would match the whole scope. IMMUTABLE (the configuration is fixed by this
-- schema) so that the planner evaluates it once per query and estimates the match with the real lexemes, which
-- lets it choose the GIN index.
CREATE FUNCTION memory_terms(phrases text[], prefixes text[], every boolean) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
  SELECT CASE WHEN numnode(q) > 0 THEN q END FROM (
    SELECT CASE WHEN every THEN memory_all(t) ELSE memory_any(t) END AS q FROM (
      SELECT phraseto_tsquery('memory_text', p) FROM unnest(phrases) AS p
      UNION ALL
      SELECT to_tsquery('memory_text', '''' || replace(replace(p, '\\', '\\\\'), '''', '''''') || ''':*')
        FROM unnest(prefixes) AS p
    ) AS terms (t)
  ) AS combined
$$;
`;

/**
 * The keyword search, in the SQLite store's two tiers: the newest `p_window` records holding every term and the
 * newest holding any, ranked together with ts_rank_cd (the record's own words count 1, the names of who said or owns
 * it 0.5, the facet lexeme nothing), ties newest first, so records holding all the terms are found however many hold
 * one. A SECURITY DEFINER function because under row-level security the planner evaluates the tenant policy before
 * any operator that is not LEAKPROOF, and the full-text match (ts_match_vq) is not: a query the app role runs on
 * search_docs could never use the GIN index, and every search would read the whole tenant. The function runs as the
 * owner, whose one extra policy lets it read the index, and takes the tenant from the same transaction setting the
 * policies compare with, so it searches exactly what the app role could see and no more. Each tier is planned per
 * call (EXECUTE) with its tsquery known, so the lexeme statistics decide between the GIN index and a walk of the
 * scope newest first; the facet lexemes keep the index lookup inside the scope and kinds. Row addresses pass from
 * the tiers to the ranking, so callers run it in one snapshot (REPEATABLE READ).
 */
export function keywordSearchSql(name: string, withDocs: boolean): string {
  const args =
    'p_deployment text, p_phrases text[], p_prefixes text[], p_facets tsquery, p_kinds text[], p_since text, p_until text, ' +
    `p_window integer, p_limit integer${withDocs ? ', p_max_doc bigint' : ''}`;
  const tierArgs = `p_deployment, p_facets, %TERM%, p_kinds, p_since, p_until, p_window${withDocs ? ', p_max_doc' : ''}`;
  return `CREATE FUNCTION ${name}(${args})
RETURNS TABLE (${withDocs ? 'doc_id bigint, ' : ''}kind text, record_id text, relevance real)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $fn$
DECLARE
  -- One tier: the newest p_window matches of a tsquery in the scope, kinds and dates, as row addresses.
  tier CONSTANT text := $q$SELECT coalesce(array_agg(t.ctid), '{}') FROM (
      SELECT d.ctid FROM search_docs d
      WHERE d.tenant_id = ${CURRENT_TENANT} AND d.deployment_id = $1
        AND d.document @@ ($2 && $3) AND d.kind = ANY($4) AND ($5 IS NULL OR d.ts >= $5) AND ($6 IS NULL OR d.ts <= $6)${withDocs ? ' AND d.doc_id <= $8' : ''}
      ORDER BY d.ts DESC, d.record_id DESC LIMIT $7) AS t$q$;
  every_term tsquery := memory_terms(p_phrases, p_prefixes, true);
  one_term tsquery;
  found tid[];
  part tid[];
  any_term tid[] := '{}';
BEGIN
  IF every_term IS NULL THEN RETURN; END IF;
  EXECUTE tier INTO found USING ${tierArgs.replace('%TERM%', 'every_term')};
  -- The newest records holding any term are the newest of each term's newest: one tier per term, so that the planner
  -- judges each term by its own frequency (the index for a rare one, a walk newest first for a common one).
  IF cardinality(p_phrases) + cardinality(p_prefixes) > 1 THEN
    FOR one_term IN
      SELECT q FROM (SELECT memory_terms(ARRAY[p], '{}', false) FROM unnest(p_phrases) AS p
                     UNION ALL SELECT memory_terms('{}', ARRAY[p], false) FROM unnest(p_prefixes) AS p) AS terms (q)
      WHERE q IS NOT NULL
    LOOP
      EXECUTE tier INTO part USING ${tierArgs.replace('%TERM%', 'one_term')};
      any_term := any_term || part;
    END LOOP;
    any_term := ARRAY(SELECT d.ctid FROM search_docs d WHERE d.ctid = ANY (any_term)
                      ORDER BY d.ts DESC, d.record_id DESC LIMIT p_window);
  END IF;
  RETURN QUERY
    SELECT ${withDocs ? 'd.doc_id, ' : ''}d.kind::text, d.record_id::text,
      ts_rank_cd('{0, 0, 0.5, 1}', d.document, memory_terms(p_phrases, p_prefixes, false))
    FROM search_docs d WHERE d.ctid = ANY (found || any_term)
    ORDER BY ${withDocs ? 4 : 3} DESC, d.ts DESC, d.record_id DESC LIMIT p_limit;
END $fn$;`;
}

const KEYWORD_SEARCH = (owner: string) => `CREATE POLICY search_docs_owner_read ON search_docs FOR SELECT TO ${owner} USING (true);
${keywordSearchSql('memory_keyword_search', false)}
REVOKE ALL ON FUNCTION memory_keyword_search(text, text[], text[], tsquery, text[], text, text, integer, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION memory_keyword_search(text, text[], text[], tsquery, text[], text, text, integer, integer) TO ${APP_ROLE};`;

/** Version 1: tenants, access, memory and its keyword index, as in SQLite's first migration. */
export const V1 = (owner: string): string => `
CREATE DOMAIN memory_id AS text COLLATE "C" CHECK (VALUE <> '');
CREATE DOMAIN memory_ts AS text COLLATE "C"
  CHECK (VALUE ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$');

CREATE FUNCTION memory_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '%: % refused, memory provenance is immutable', TG_TABLE_NAME, lower(TG_OP)
    USING ERRCODE = 'insufficient_privilege';
END $$;

${TEXT_SEARCH}

CREATE TABLE settings (key text COLLATE "C" PRIMARY KEY, value text NOT NULL);
${grant('settings', ['SELECT', 'INSERT', 'DELETE'], ['value'])}

CREATE TABLE tenants (
  id memory_id PRIMARY KEY,
  name text NOT NULL,
  region text NOT NULL CHECK (region IN ('us', 'ca')),
  created_at memory_ts NOT NULL
);
${tenantPolicy('tenants', 'id')}
${grant('tenants', ['SELECT', 'INSERT'], ['name', 'region'])}

CREATE TABLE deployments (
  tenant_id memory_id NOT NULL REFERENCES tenants (id),
  id memory_id NOT NULL,
  name text NOT NULL,
  platform text NOT NULL CHECK (platform IN ('teams', 'zoom', 'meet', 'webex')),
  voice text NOT NULL,
  avatar_url text,
  created_at memory_ts NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
${tenantPolicy('deployments')}
${grant('deployments', ['SELECT', 'INSERT'])}

CREATE TABLE principals (
  tenant_id memory_id NOT NULL REFERENCES tenants (id),
  oid memory_id NOT NULL,
  client_id memory_id NOT NULL,
  display_name text NOT NULL,
  secret_hash text NOT NULL,
  is_admin integer NOT NULL CHECK (is_admin IN (0, 1)),
  created_at memory_ts NOT NULL,
  PRIMARY KEY (tenant_id, oid),
  UNIQUE (tenant_id, client_id)
);
${tenantPolicy('principals')}
${grant('principals', ['SELECT', 'INSERT'], ['secret_hash'])}

CREATE TABLE grants (
  tenant_id memory_id NOT NULL,
  oid memory_id NOT NULL,
  deployment_id memory_id NOT NULL,
  access text NOT NULL CHECK (access IN ('read', 'read_write')),
  PRIMARY KEY (tenant_id, oid, deployment_id),
  FOREIGN KEY (tenant_id, oid) REFERENCES principals (tenant_id, oid),
  ${SCOPE_FK}
);
${tenantPolicy('grants')}
${grant('grants', ['SELECT', 'INSERT', 'DELETE'], ['access'])}

CREATE TABLE people (
  tenant_id memory_id NOT NULL REFERENCES tenants (id),
  idp_id memory_id NOT NULL,
  display_name text,
  PRIMARY KEY (tenant_id, idp_id)
);
${tenantPolicy('people')}
${grant('people', ['SELECT', 'INSERT'], ['display_name'])}

CREATE TABLE meetings (
  ${SCOPE},
  id memory_id NOT NULL,
  external_id text COLLATE "C" NOT NULL,
  title text NOT NULL,
  platform text NOT NULL CHECK (platform IN ('teams', 'zoom', 'meet', 'webex')),
  started_at memory_ts NOT NULL,
  ended_at memory_ts,
  ${attributionColumns('organizer', false)},
  created_at memory_ts NOT NULL,
  UNIQUE (tenant_id, deployment_id, id),
  UNIQUE (tenant_id, deployment_id, external_id),
  ${SCOPE_FK}
);
${tenantPolicy('meetings')}
${grant('meetings', ['SELECT', 'INSERT'], ['ended_at'])}
${refuse('meetings', 'UPDATE', MEETING_IDENTITY)}
${refuseRemoval('meetings')}

CREATE TABLE meeting_participants (
  ${SCOPE},
  meeting_id memory_id NOT NULL,
  position integer NOT NULL,
  ${attributionColumns('participant', false)},
  PRIMARY KEY (tenant_id, deployment_id, meeting_id, position),
  ${MEETING_FK}
);
${tenantPolicy('meeting_participants')}
${grant('meeting_participants', ['SELECT', 'INSERT'])}
${refuse('meeting_participants', 'UPDATE')}
${refuseRemoval('meeting_participants')}

CREATE TABLE statements (
  ${SCOPE},
  id memory_id NOT NULL,
  meeting_id memory_id NOT NULL,
  text text NOT NULL,
  spoken_at memory_ts NOT NULL,
  ${attributionColumns('attribution', false)},
  created_at memory_ts NOT NULL,
  UNIQUE (tenant_id, deployment_id, id),
  ${MEETING_FK}
);
CREATE INDEX statements_by_time ON statements (tenant_id, deployment_id, spoken_at, id);
CREATE INDEX statements_by_meeting ON statements (tenant_id, deployment_id, meeting_id, spoken_at, id);
${tenantPolicy('statements')}
${grant('statements', ['SELECT', 'INSERT'])}
${refuse('statements', 'UPDATE')}
${refuseRemoval('statements')}

${workflowTable('decisions', 'decided_at', ['confirmed', 'superseded'])}

${workflowTable('open_questions', 'raised_at', ['open', 'resolved'])}

CREATE TABLE action_items (
  ${SCOPE},
  id memory_id NOT NULL,
  meeting_id memory_id,
  text text NOT NULL,
  status text NOT NULL CHECK (status IN ('open', 'done')),
  due_date text,
  ${attributionColumns('assignee', true)},
  ${WORKFLOW_TAIL}
);
CREATE INDEX action_items_by_time ON action_items (tenant_id, deployment_id, created_at, id);
CREATE INDEX action_items_by_meeting ON action_items (tenant_id, deployment_id, meeting_id, created_at, id);
CREATE INDEX action_items_by_status ON action_items (tenant_id, deployment_id, status, created_at, id);
CREATE INDEX action_items_by_assignee ON action_items (tenant_id, deployment_id, assignee_idp_id, created_at, id);
${tenantPolicy('action_items')}
${grant('action_items', ['SELECT', 'INSERT'], [
  'status',
  'due_date',
  'assignee_kind',
  'assignee_display_name',
  'assignee_idp_id',
  ...UPDATED_BY,
])}
${refuse('action_items', 'UPDATE', [...PROVENANCE, ...ATTRIBUTED])}
${refuseRemoval('action_items')}

CREATE TABLE topics (
  ${SCOPE},
  id memory_id NOT NULL,
  name text NOT NULL,
  name_key text COLLATE "C" NOT NULL,
  kind text NOT NULL CHECK (kind IN ('account', 'project', 'theme')),
  ${attributionColumns('attribution', false)},
  created_at memory_ts NOT NULL,
  last_discussed_at memory_ts NOT NULL,
  UNIQUE (tenant_id, deployment_id, id),
  UNIQUE (tenant_id, deployment_id, name_key),
  ${SCOPE_FK}
);
CREATE INDEX topics_by_time ON topics (tenant_id, deployment_id, last_discussed_at, id);
${tenantPolicy('topics')}
${grant('topics', ['SELECT', 'INSERT'], ['last_discussed_at'])}
${refuse('topics', 'UPDATE', ['tenant_id', 'deployment_id', 'id', 'name', 'name_key', 'created_at', ...ATTRIBUTED])}
${refuseRemoval('topics')}

CREATE TABLE topic_meetings (
  ${SCOPE},
  topic_id memory_id NOT NULL,
  meeting_id memory_id NOT NULL,
  PRIMARY KEY (tenant_id, deployment_id, topic_id, meeting_id),
  FOREIGN KEY (tenant_id, deployment_id, topic_id) REFERENCES topics (tenant_id, deployment_id, id),
  ${MEETING_FK}
);
CREATE INDEX topic_meetings_by_meeting ON topic_meetings (tenant_id, deployment_id, meeting_id);
${tenantPolicy('topic_meetings')}
${grant('topic_meetings', ['SELECT', 'INSERT'])}
${refuseRemoval('topic_meetings')}

-- One row per searchable record. The tsvector holds the record's text plus one facet lexeme for its (tenant,
-- deployment, kind), a token no text can produce, so the GIN lookup itself is confined to the caller's scope.
CREATE TABLE search_docs (
  ${SCOPE},
  kind text NOT NULL CHECK (kind IN ('decision', 'open_question', 'action_item', 'statement', 'topic')),
  record_id memory_id NOT NULL,
  ts memory_ts NOT NULL,
  document tsvector NOT NULL,
  PRIMARY KEY (tenant_id, deployment_id, kind, record_id),
  ${SCOPE_FK}
);
CREATE INDEX search_docs_document ON search_docs USING gin (document);
-- For a term in many records the planner may rather walk the scope's documents newest first and stop at the window.
CREATE INDEX search_docs_by_time ON search_docs (tenant_id, deployment_id, ts, record_id);
${tenantPolicy('search_docs')}
${grant('search_docs', ['SELECT', 'INSERT'], ['ts'])}
${refuseRemoval('search_docs')}
${KEYWORD_SEARCH(owner)}
`;

/**
 * Version 4: the rate limiter every replica shares. One row per key holds the times (ms since the epoch) of its
 * last accepted calls, oldest first, at most `limit` of them. memory_rate_take() locks the key's row, drops what
 * left the window and counts the call only if the window has room, in one statement: the count is exact across
 * replicas because a key's takes run one after the other on that row lock.
 */
export const RATE_LIMIT_SCHEMA = `
CREATE TABLE rate_windows (
  key text COLLATE "C" PRIMARY KEY,
  times bigint[] NOT NULL
);
${grant('rate_windows', ['SELECT', 'INSERT', 'DELETE'], ['times'])}

CREATE FUNCTION memory_rate_take(p_key text, p_now bigint, p_limit integer, p_window bigint, p_cost integer)
RETURNS TABLE (used integer, kept integer, oldest bigint)
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE times_now bigint[];
BEGIN
  IF p_cost > 0 THEN
    -- Creates the row or locks the one there in a single step, so a concurrent sweep cannot remove it between.
    INSERT INTO rate_windows AS w (key, times) VALUES (p_key, '{}')
      ON CONFLICT (key) DO UPDATE SET times = w.times
      RETURNING w.times INTO times_now;
  ELSE
    SELECT w.times INTO times_now FROM rate_windows w WHERE w.key = p_key;
  END IF;
  times_now := ARRAY(SELECT t FROM unnest(coalesce(times_now, '{}')) AS t WHERE t > p_now - p_window ORDER BY t);
  used := cardinality(times_now);
  IF p_cost > 0 AND used < p_limit THEN
    -- Replica clocks may differ by a little: keep the times sorted so the oldest is always first.
    times_now := ARRAY(SELECT t FROM unnest(times_now || p_now) AS t ORDER BY t);
    UPDATE rate_windows w SET times = times_now WHERE w.key = p_key;
  END IF;
  kept := cardinality(times_now);
  oldest := times_now[1];
  RETURN NEXT;
END $$;
`;
