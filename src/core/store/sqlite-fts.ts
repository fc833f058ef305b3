import { createHash } from 'node:crypto';
import type { Attribution, SearchableType } from '../../contract/index.js';
import { isStopword } from '../search/stopwords.js';
import type { KeywordQuery, RankedDoc, RankedDocs, Scope, SearchDoc, SearchFilter } from './store.js';
import { integer, text, type Row, type Sql } from './sqlite-db.js';
import { KINDS } from './sqlite-records.js';

/** Bounds the work one free-text query can cause; 64 distinct terms is far beyond a question people type. */
const MAX_TERMS = 64;
/** Terms a query is ranked on; the rest of a pasted paragraph adds cost and little ranking. */
const MAX_RANKED_TERMS = 16;
/** A prefix shorter than this would expand to a large part of the vocabulary: it is searched as a whole word. */
const MIN_PREFIX = 3;

/**
 * How many matches one tier of the keyword leg ranks at most: the newest ones (by the record's own timestamp).
 * FTS5 computes BM25 per row it returns, so this, not the number of matches, bounds the cost of a query.
 */
export const KEYWORD_WINDOW = 1000;

/** Column weights of BM25: the record's own words count fully, the names of who said or owns it half. */
const TEXT_WEIGHT = 1.0;
const WHO_WEIGHT = 0.5;

const WORD_CHARACTER = /[\p{L}\p{N}]/u;

/** Runs of word characters outside quotes; a `*` right after a run makes it a prefix term. */
const WORD_RUN = /([\p{L}\p{N}\p{M}\p{Co}]+)(\*)?/gu;

/**
 * A key of the scope's full-text table orders its rows by the record's day, then kind: day * 2^33 + kind * 2^30 +
 * sequence. A date window is then a rowid range, and `ORDER BY rowid DESC` is newest first, both of which FTS5
 * evaluates inside its own scan. Keys stay below 2^53 until the year 4840, so JavaScript numbers hold them exactly.
 */
const DAY_FACTOR = 2 ** 33;
const KIND_FACTOR = 2 ** 30;
const KIND_SHIFT = 30;
const MAX_KEY = Number.MAX_SAFE_INTEGER;
const DAY_MS = 86_400_000;

/** The kind's code inside a key (and in the vector leg's signature rows). */
export const KIND_CODES: Record<SearchableType, number> = {
  statement: 0,
  decision: 1,
  open_question: 2,
  action_item: 3,
  topic: 4,
};

/**
 * The facet token of a scope and kind: digits only, so neither a tokenizer nor a stemmer changes it, and a hash, so
 * an index reveals no ids. The PostgreSQL engine confines its text search with it.
 */
export function facetToken(scope: Scope, kind: SearchableType): string {
  const hex = createHash('sha256')
    .update(`${scope.tenantId}\u0000${scope.deploymentId}\u0000${kind}`)
    .digest('hex')
    .slice(0, 26);
  return BigInt(`0x${hex}`).toString(10);
}

/** An FTS5 string literal: the only syntax user text ever reaches, so no input can be read as an operator. */
function quote(value: string): string {
  return `"${value.replaceAll('"', '""')}"`;
}

/** One term of the user's text, in the order typed: a quoted phrase, or a word (a prefix when it ends in `*`). */
interface QueryPart {
  value: string;
  phrase: boolean;
  prefix: boolean;
}

function parseQuery(input: string): QueryPart[] {
  const parts: QueryPart[] = [];
  for (const [, phrase, loose] of input.matchAll(/"([^"]*)"|([^"]+)/gu)) {
    if (phrase !== undefined && WORD_CHARACTER.test(phrase)) parts.push({ value: phrase, phrase: true, prefix: false });
    for (const [, word, star] of (loose ?? '').matchAll(WORD_RUN)) {
      if (word !== undefined && WORD_CHARACTER.test(word)) parts.push({ value: word, phrase: false, prefix: star !== undefined });
    }
  }
  return parts;
}

function term(part: QueryPart, minPrefix = 1): string {
  return part.prefix && [...part.value].length >= minPrefix ? `${quote(part.value)}*` : quote(part.value);
}

/**
 * The user's free text as FTS5 terms. "Quoted phrases" stay phrases; elsewhere every run of letters and digits is
 * a term, and `word*` a prefix term, so operators, parentheses, stray quotes and emoji are never syntax.
 * Returns an empty array when nothing searchable is left.
 */
export function queryTerms(input: string): string[] {
  return [...new Set(parseQuery(input).map((part) => term(part)))].slice(0, MAX_TERMS);
}

/** The two MATCH expressions of a keyword search: every term (the best matches), and any term. */
export interface KeywordPlan {
  all: string;
  /** Null when the query has one term, so `all` is the whole search. */
  any: string | null;
}

/**
 * The terms a query is ranked on: its phrases and prefixes, and its words but the stopwords (all of its words
 * when nothing else is left, so "what is it" still searches). Null when the text holds nothing searchable.
 */
export function keywordPlan(input: string): KeywordPlan | null {
  const parts = parseQuery(input);
  const content = parts.filter((part) => part.phrase || part.prefix || !isStopword(part.value));
  const chosen = content.length > 0 ? content : parts;
  const ranked = [...new Set(chosen.map((part) => term(part, MIN_PREFIX)))].slice(0, MAX_RANKED_TERMS);
  if (ranked.length === 0) return null;
  return { all: ranked.join(' AND '), any: ranked.length > 1 ? ranked.join(' OR ') : null };
}

/** The scope's full-text table; its name comes from an integer id the store assigned, never from input. */
function ftsTable(scopeId: number): string {
  return `search_fts_${scopeId}`;
}

/** The scope's number, or null when nothing was ever indexed in it. */
export function scopeId(sql: Sql, scope: Scope): number | null {
  const row = sql.row(
    'SELECT id FROM search_scopes WHERE tenant_id = ? AND deployment_id = ?',
    scope.tenantId,
    scope.deploymentId,
  );
  return row ? integer(row, 'id') : null;
}

/** The scope's number, creating its full-text table on first use (inside the caller's transaction). */
function ensureScope(sql: Sql, scope: Scope): number {
  const existing = scopeId(sql, scope);
  if (existing !== null) return existing;
  sql.run('INSERT INTO search_scopes (tenant_id, deployment_id) VALUES (?, ?)', scope.tenantId, scope.deploymentId);
  const id = scopeId(sql, scope);
  if (id === null) throw new Error('search scope vanished inside its own transaction');
  sql.db.exec(
    `CREATE VIRTUAL TABLE ${ftsTable(id)} USING fts5(text, who, content='', contentless_delete=1, tokenize='porter unicode61')`,
  );
  return id;
}

/** Days since the epoch of a timestamp (0 for anything before 1970, which no meeting is). */
export function dayOf(ts: string): number {
  return Math.max(0, Math.floor(Date.parse(ts) / DAY_MS));
}

function dayOfDate(date: string): number {
  return dayOf(`${date}T00:00:00Z`);
}

/** The next free key of the kind on the record's day. */
function nextKey(sql: Sql, scope: Scope, kind: SearchableType, ts: string): number {
  const base = dayOf(ts) * DAY_FACTOR + KIND_CODES[kind] * KIND_FACTOR;
  const row = sql.row(
    `SELECT max(fts_key) AS top FROM search_docs
      WHERE tenant_id = ? AND deployment_id = ? AND fts_key BETWEEN ? AND ?`,
    scope.tenantId,
    scope.deploymentId,
    base,
    base + KIND_FACTOR - 1,
  );
  const top = row?.top;
  return typeof top === 'number' ? top + 1 : base;
}

/** The names a record is found by besides its text: who said or raised it, and for an action item its assignee. */
export function whoText(people: readonly (Attribution | null)[]): string {
  return people.flatMap((person) => (person?.display_name ? [person.display_name] : [])).join(' ');
}

function writeFts(sql: Sql, id: number, key: number, body: string, who: string): void {
  sql.run(`INSERT INTO ${ftsTable(id)} (rowid, text, who) VALUES (?, ?, ?)`, key, body, who);
}

/**
 * Adds a record to the search index (inside the caller's transaction): its document, its text in the scope's
 * full-text table, and a task in the durable embedding queue, so its vector is made even after a restart.
 */
export function indexText(
  sql: Sql,
  scope: Scope,
  kind: SearchableType,
  recordId: string,
  ts: string,
  body: string,
  people: readonly (Attribution | null)[] = [],
): void {
  const id = ensureScope(sql, scope);
  const key = nextKey(sql, scope, kind, ts);
  const { lastInsertRowid } = sql
    .prepared(
      'INSERT INTO search_docs (tenant_id, deployment_id, kind, record_id, ts, fts_key) VALUES (?, ?, ?, ?, ?, ?)',
    )
    .run(scope.tenantId, scope.deploymentId, kind, recordId, ts, key);
  writeFts(sql, id, key, body, whoText(people));
  sql.run('INSERT INTO embedding_queue (doc_id) VALUES (?)', lastInsertRowid);
}

/** A topic's name and the names it is found by. */
function topicText(sql: Sql, scope: Scope, topicId: string): { body: string; who: string } {
  const row = sql.row(
    'SELECT name, attribution_display_name FROM topics WHERE tenant_id = ? AND deployment_id = ? AND id = ?',
    scope.tenantId,
    scope.deploymentId,
    topicId,
  );
  if (!row) throw new Error(`topic ${topicId} is not in its scope`);
  return { body: text(row, 'name'), who: typeof row.attribution_display_name === 'string' ? row.attribution_display_name : '' };
}

/**
 * Moves a topic to its new last-discussed day when a later meeting discusses it: its key encodes the day, so the
 * full-text row moves to a new key, and since/until see the new date.
 */
export function retimeTopic(sql: Sql, scope: Scope, topicId: string, ts: string): void {
  const doc = sql.row(
    `SELECT rowid AS doc_id, fts_key FROM search_docs
      WHERE tenant_id = ? AND deployment_id = ? AND kind = 'topic' AND record_id = ?`,
    scope.tenantId,
    scope.deploymentId,
    topicId,
  );
  const id = scopeId(sql, scope);
  if (!doc || id === null) throw new Error(`topic ${topicId} is not indexed`);
  const key = nextKey(sql, scope, 'topic', ts);
  const { body, who } = topicText(sql, scope, topicId);
  sql.run(`DELETE FROM ${ftsTable(id)} WHERE rowid = ?`, integer(doc, 'fts_key'));
  writeFts(sql, id, key, body, who);
  sql.run('UPDATE search_docs SET ts = ?, fts_key = ? WHERE rowid = ?', ts, key, integer(doc, 'doc_id'));
}

/** The rowid bounds of a date window: inclusive UTC days. */
export function keyRange(filter: SearchFilter): [number, number] {
  const low = filter.since === undefined ? 0 : dayOfDate(filter.since) * DAY_FACTOR;
  const high = filter.until === undefined ? MAX_KEY : (dayOfDate(filter.until) + 1) * DAY_FACTOR - 1;
  return [low, high];
}

/** The condition on the key's kind bits, empty when every kind is wanted. */
function kindCondition(types: readonly SearchableType[]): string {
  const codes = [...new Set(types.map((kind) => KIND_CODES[kind]))].sort();
  if (codes.length === Object.keys(KIND_CODES).length) return '';
  return ` AND ((rowid >> ${KIND_SHIFT}) & 7) IN (${codes.join(', ')})`;
}

/**
 * The SQL of one tier: the newest `window` matches inside the date window and kinds, each with its BM25 (FTS5's
 * bm25() is lower for better matches). The filters are rowid conditions, so FTS5 applies them in its own scan and
 * LIMIT stops it early; nothing joins before the limit.
 */
export function keywordTierSql(scopeNumber: number, types: readonly SearchableType[]): string {
  const table = ftsTable(scopeNumber);
  return `SELECT rowid AS key, bm25(${table}, ${TEXT_WEIGHT}, ${WHO_WEIGHT}) AS bm25 FROM ${table}
    WHERE ${table} MATCH ? AND rowid BETWEEN ? AND ?${kindCondition(types)}
    ORDER BY rowid DESC LIMIT ?`;
}

interface KeyHit {
  key: number;
  bm25: number;
}

function runTier(sql: Sql, scopeNumber: number, query: KeywordQuery, match: string, window: number): KeyHit[] {
  const [low, high] = keyRange(query);
  return sql
    .rows(keywordTierSql(scopeNumber, query.types), match, low, high, window)
    .map((row) => ({ key: Number(row.key), bm25: Number(row.bm25) }));
}

/** Best first; equal scores newest first, so the order is total and pages are stable. */
function byRelevance(a: KeyHit, b: KeyHit): number {
  return a.bm25 - b.bm25 || b.key - a.key;
}

function docsByKey(sql: Sql, scope: Scope, keys: number[], maxDoc: number): Map<number, SearchDoc> {
  const rows = sql.rows(
    `SELECT d.rowid AS doc_id, d.kind, d.record_id, d.fts_key FROM json_each(?) k
      CROSS JOIN search_docs d ON d.tenant_id = ? AND d.deployment_id = ? AND d.fts_key = k.value
      WHERE d.rowid <= ?`,
    JSON.stringify(keys),
    scope.tenantId,
    scope.deploymentId,
    maxDoc,
  );
  return new Map(rows.map((row: Row) => [integer(row, 'fts_key'), toSearchDoc(row)]));
}

/** A search_docs row as the search legs know it. */
export function toSearchDoc(row: Row): SearchDoc {
  return { docId: integer(row, 'doc_id'), kind: text(row, 'kind') as SearchableType, recordId: text(row, 'record_id') };
}

/**
 * The best `depth` of the ranked keys as documents, best first, leaving out documents written after the snapshot
 * (the next keys stand in for them).
 */
function topDocs(sql: Sql, scope: Scope, ranked: KeyHit[], depth: number, maxDoc: number): RankedDoc[] {
  const found: RankedDoc[] = [];
  for (let next = 0; found.length < depth && next < ranked.length; ) {
    const chunk = ranked.slice(next, next + depth - found.length);
    next += chunk.length;
    const docs = docsByKey(sql, scope, chunk.map((hit) => hit.key), maxDoc);
    for (const hit of chunk) {
      const doc = docs.get(hit.key);
      if (doc) found.push({ ...doc, score: -hit.bm25 });
    }
  }
  return found;
}

/**
 * The keyword leg: BM25 over the scope's full-text table in two tiers. The first ranks the newest KEYWORD_WINDOW
 * records holding every term, the second the newest holding any; both are ranked together, so the records that
 * hold all the terms are found however many hold only one. `capped` is set when more records matched than `cap`.
 * Only the best `depth` are mapped to documents: a keyword-only page needs no more than its own end.
 */
export function keywordSearch(sql: Sql, scope: Scope, query: KeywordQuery): RankedDocs {
  const plan = keywordPlan(query.text);
  const id = scopeId(sql, scope);
  if (plan === null || id === null || query.types.length === 0) return { docs: [], capped: false, total: 0 };
  const window = Math.max(KEYWORD_WINDOW, query.cap + 1);
  const hits = new Map<number, KeyHit>();
  for (const match of plan.any === null ? [plan.all] : [plan.all, plan.any]) {
    for (const hit of runTier(sql, id, query, match, window)) hits.set(hit.key, hit);
  }
  const ranked = [...hits.values()].sort(byRelevance);
  const total = Math.min(ranked.length, query.cap);
  const docs = topDocs(sql, scope, ranked.slice(0, query.cap), Math.min(total, query.depth ?? query.cap), query.snapshot.docs);
  return { docs, capped: ranked.length > query.cap, total };
}

/** The searchable text of a record and the people it is found by, read back from its table (for a rebuild). */
function recordText(sql: Sql, scope: Scope, kind: SearchableType, recordId: string): { body: string; who: string } {
  if (kind === 'topic') return topicText(sql, scope, recordId);
  const row = sql.row(
    `SELECT * FROM ${KINDS[kind].table} WHERE tenant_id = ? AND deployment_id = ? AND id = ?`,
    scope.tenantId,
    scope.deploymentId,
    recordId,
  );
  if (!row) throw new Error(`${kind} ${recordId} is indexed but missing`);
  const names = [row.attribution_display_name, row.assignee_display_name].filter((n) => typeof n === 'string');
  return { body: text(row, 'text'), who: names.join(' ') };
}

/**
 * Gives every document without a key (written before the per-deployment index existed) its key and full-text
 * row. Runs when the store opens; a database that is up to date costs one indexed lookup.
 */
export function rebuildUnkeyedDocs(sql: Sql): number {
  const pending = sql.rows(
    'SELECT rowid AS doc_id, tenant_id, deployment_id, kind, record_id, ts FROM search_docs WHERE fts_key IS NULL',
  );
  if (pending.length === 0) return 0;
  sql.transaction(() => {
    for (const row of pending) {
      const scope = { tenantId: text(row, 'tenant_id'), deploymentId: text(row, 'deployment_id') };
      const kind = text(row, 'kind') as SearchableType;
      const id = ensureScope(sql, scope);
      const key = nextKey(sql, scope, kind, text(row, 'ts'));
      const { body, who } = recordText(sql, scope, kind, text(row, 'record_id'));
      writeFts(sql, id, key, body, who);
      sql.run('UPDATE search_docs SET fts_key = ? WHERE rowid = ?', key, integer(row, 'doc_id'));
    }
  });
  return pending.length;
}
