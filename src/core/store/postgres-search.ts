import type { SearchableType } from '../../contract/index.js';
import type { ListableRecord } from '../../contract/index.js';
import type { Scope, SearchOutcome, SearchQuery } from './store.js';
import type { Tx } from './postgres-db.js';
import { toRecords } from './postgres-records.js';
import { text, type Row } from './sqlite-db.js';
import { facetToken, KEYWORD_WINDOW, keywordPlan } from './sqlite-fts.js';
import { dayEnd, dayStart, KINDS } from './sqlite-records.js';

/** The terms of a keyword search, as memory_terms() takes them. */
export interface SearchTerms {
  phrases: string[];
  prefixes: string[];
}

/** One FTS5 term as keywordPlan writes it: a quoted string, `""` for a quote, and `*` after it for a prefix. */
const FTS5_TERM = /"((?:[^"]|"")*)"(\*?)/gu;

/**
 * The terms the SQLite store ranks a text on (keywordPlan: its phrases, prefixes of three letters or more, and its
 * words but the stopwords, at most 16), unquoted for memory_terms(): the same rules on both engines. A single word is
 * a one-word phrase. NUL, which PostgreSQL text cannot hold and which is never a word character, is dropped first.
 * Null when the text holds nothing searchable.
 */
export function searchTerms(input: string): SearchTerms | null {
  const plan = keywordPlan(input.replaceAll('\u0000', ''));
  if (plan === null) return null;
  const terms: SearchTerms = { phrases: [], prefixes: [] };
  for (const [, body, star] of plan.all.matchAll(FTS5_TERM)) {
    (star ? terms.prefixes : terms.phrases).push((body ?? '').replaceAll('""', '"'));
  }
  return terms;
}

/** The lexeme that marks a document as the scope's and kind's: `~` never survives the text parser, so no word can equal it. */
export function facetLexeme(scope: Scope, kind: SearchableType): string {
  return `~${facetToken(scope, kind)}`;
}

/** The facet half of a search: any of the caller's kinds in the caller's scope (digits and `~`, so no quoting issue). */
export function facetQuery(scope: Scope, types: readonly SearchableType[]): string {
  return types.map((kind) => `'${facetLexeme(scope, kind)}'`).join(' | ');
}

/** A searchable text and where it belongs, for the index; `who` are the names it is also found by. */
export interface IndexEntry {
  kind: SearchableType;
  id: string;
  ts: string;
  body: string;
  who: string;
}

/**
 * A record's document: its own words at weight A, the names of who said or owns it at weight B (ranked at half, as
 * SQLite's `who` column), and its facet lexeme (weight D, ranked at nothing). SQL over columns named as below.
 */
export const DOCUMENT_SQL = `setweight(to_tsvector('memory_text', body), 'A')
  || setweight(to_tsvector('memory_text', who), 'B') || array_to_tsvector(ARRAY[facet])`;

/** Adds records' texts to the keyword index in one statement (inside the caller's transaction). */
export async function indexTexts(tx: Tx, scope: Scope, entries: IndexEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await tx.run(
    `INSERT INTO search_docs (tenant_id, deployment_id, kind, record_id, ts, document)
     SELECT $1, $2, e.kind, e.id, e.ts, ${DOCUMENT_SQL}
     FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) AS e (kind, id, ts, body, who, facet)`,
    [
      scope.tenantId,
      scope.deploymentId,
      entries.map((e) => e.kind),
      entries.map((e) => e.id),
      entries.map((e) => e.ts),
      entries.map((e) => e.body),
      entries.map((e) => e.who),
      entries.map((e) => facetLexeme(scope, e.kind)),
    ],
  );
}

/** Moves a topic's date in the index when a later meeting discusses it, so since/until see the new date. */
export async function retimeTopic(tx: Tx, scope: Scope, topicId: string, ts: string): Promise<void> {
  await tx.run(
    `UPDATE search_docs SET ts = $1 WHERE tenant_id = $2 AND deployment_id = $3 AND kind = 'topic' AND record_id = $4`,
    [ts, scope.tenantId, scope.deploymentId, topicId],
  );
}

/** The record of a ranked hit as one JSON object, whichever table its kind lives in. */
const RECORD_OF_HIT = Object.entries(KINDS)
  .map(
    ([kind, spec]) => `SELECT to_jsonb(x) AS record FROM ${spec.table} x
      WHERE r.kind = '${kind}' AND x.tenant_id = $1 AND x.deployment_id = $2 AND x.id = r.record_id`,
  )
  .join('\n    UNION ALL ');

/**
 * The ranked hits (memory_keyword_search, see the schema for why it is a function) with their current records, in
 * one round trip. The records are read as the app role, under the tenant policies like any other read.
 */
const SEARCH_SQL = `SELECT r.kind, r.relevance, hit.record
  FROM memory_keyword_search($2, $3, $4, $5::tsquery, $6, $7, $8, $9, $10) AS r
  CROSS JOIN LATERAL (${RECORD_OF_HIT}) AS hit
  ORDER BY r.relevance DESC, r.kind, r.record_id`;

/**
 * The arguments of the keyword search functions (deployment, terms, facets, kinds, date bounds, window, limit) for a
 * query, or null when it holds nothing to search. The limit is one past the cap, to tell whether more matched.
 */
export function keywordArgs(
  scope: Scope,
  query: { text: string; types: readonly SearchableType[]; since?: string; until?: string; cap: number },
): unknown[] | null {
  const types = [...new Set(query.types)];
  const terms = searchTerms(query.text);
  if (types.length === 0 || terms === null) return null;
  return [
    scope.deploymentId,
    terms.phrases,
    terms.prefixes,
    facetQuery(scope, types),
    types,
    query.since === undefined ? null : dayStart(query.since),
    query.until === undefined ? null : dayEnd(query.until),
    Math.max(KEYWORD_WINDOW, query.cap + 1),
    query.cap + 1,
  ];
}

/**
 * Keyword search as the SQLite store answers it: two tiers (records holding every term, then any), each the newest
 * KEYWORD_WINDOW matches, ranked together, best first, at most candidateCap with their current records, and
 * whether more matched.
 */
export async function searchRecords(tx: Tx, scope: Scope, query: SearchQuery): Promise<SearchOutcome> {
  const args = keywordArgs(scope, { ...query, cap: query.candidateCap });
  if (args === null) return { hits: [], capped: false };
  const rows = await tx.rows(SEARCH_SQL, [scope.tenantId, ...args]);
  const kept = rows.slice(0, query.candidateCap);
  const records = new Map<Row, ListableRecord>();
  for (const kind of new Set(kept.map((row) => text(row, 'kind') as SearchableType))) {
    const ofKind = kept.filter((row) => row.kind === kind);
    const mapped = await toRecords(tx, kind, scope, ofKind.map((row) => row.record as Row));
    ofKind.forEach((row, i) => records.set(row, mapped[i]!));
  }
  const hits = kept.map((row) => ({ record: records.get(row)!, rank: Number(row.relevance) }));
  return { hits, capped: rows.length > query.candidateCap };
}
