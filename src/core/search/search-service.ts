import type { ListableRecord, SearchResult, SearchableType } from '../../contract/index.js';
import type { RankedDoc, Scope, SearchFilter, SearchIndex, SearchSnapshot, Store } from '../store/store.js';
import { embeddingSpace, type EmbeddingProvider } from './embedding-provider.js';
import { reciprocalRankFusion } from './fusion.js';

/** How many ranked records a search considers; more matches set `was_capped`, and pages end there. */
export const SEARCH_CANDIDATE_CAP = 500;
/** How many nearest records the semantic leg adds to the fusion. */
export const SEMANTIC_NEIGHBOURS = 100;
/** A query waits this long for its embedding before the first page is answered by keywords alone. */
const QUERY_EMBEDDING_TIMEOUT_MS = 3000;
/** Query vectors kept, so every page of one search ranks with the same vector. */
const QUERY_CACHE_SIZE = 512;

export type SearchMode = 'keyword' | 'hybrid';

export interface SearchRequest extends SearchFilter {
  text: string;
  limit: number;
}

/** Where the next page starts, and what the first page saw (sealed into the cursor). */
export interface SearchPosition {
  offset: number;
  docs: number;
  vectors: number;
  hybrid: boolean;
}

export interface SearchPage {
  results: SearchResult[];
  next: SearchPosition | null;
  capped: boolean;
}

export interface SearchService {
  readonly mode: SearchMode;
  /** The embedding model of the semantic leg; null when search is keyword-only. */
  readonly model: string | null;
  /** One page; `position` comes from the previous page's `next`. */
  search(scope: Scope, request: SearchRequest, position?: SearchPosition): Promise<SearchPage>;
}

/** Thrown when a later page of a hybrid search cannot be ranked as its first page was (the provider is down). */
export class SearchUnavailableError extends Error {
  constructor(reason: string) {
    super(`the embedding provider did not answer (${reason}); retry the page`);
    this.name = 'SearchUnavailableError';
  }
}

/** Whether a decoded cursor position has the shape this service seals. */
export function isSearchPosition(value: unknown): value is SearchPosition {
  const p = value as Partial<SearchPosition> | null;
  const count = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  return typeof p === 'object' && p !== null && count(p.offset) && count(p.docs) && count(p.vectors) && typeof p.hybrid === 'boolean';
}

function roundScore(value: number): number {
  return Math.min(1, Math.max(0.0001, Math.round(value * 10000) / 10000));
}

/** Topics have a name, not a text, and span meetings: their hit carries the name as `text` and the latest meeting. */
function toSearchResult(record: ListableRecord, score: number): SearchResult {
  if (record.type === 'topic') {
    return { ...record, score, text: record.name, meeting_id: record.meetings[0]?.meeting_id ?? null };
  }
  return { ...record, score };
}

/** Relevance relative to the best hit, so keyword-only scores fall in (0, 1] with the top hit at 1. */
function relativeScores(docs: RankedDoc[]): RankedDoc[] {
  const best = docs[0]?.score ?? 1;
  return docs.map((doc) => ({ ...doc, score: best > 0 ? doc.score / best : 1 }));
}

/** A small LRU of query vectors. */
class QueryVectors {
  private readonly entries = new Map<string, Float32Array>();

  get(text: string): Float32Array | undefined {
    const vector = this.entries.get(text);
    if (vector) {
      this.entries.delete(text);
      this.entries.set(text, vector);
    }
    return vector;
  }

  set(text: string, vector: Float32Array): void {
    this.entries.set(text, vector);
    if (this.entries.size > QUERY_CACHE_SIZE) this.entries.delete(this.entries.keys().next().value as string);
  }
}

export interface SearchServiceOptions {
  store: Store;
  /** Without one, or on an engine without a search index, search is keyword-only. */
  provider?: EmbeddingProvider;
  queryTimeoutMs?: number;
  /** Told when a first page falls back to keywords because the query could not be embedded. */
  onFallback?: (reason: string) => void;
}

/**
 * Search over a store: the keyword leg, and with an embedding provider the semantic leg too, fused by reciprocal
 * rank. Pages are offsets into one ranking that later pages recompute against the first page's snapshot, so
 * records written in between neither shift nor join the pages.
 */
export function createSearchService(options: SearchServiceOptions): SearchService {
  const { store, provider } = options;
  const index = store.searchIndex;
  const vectors = new QueryVectors();
  const hybrid = provider !== undefined && index !== undefined;

  async function queryVector(text: string): Promise<Float32Array> {
    const cached = vectors.get(text);
    if (cached) return cached;
    const signal = AbortSignal.timeout(options.queryTimeoutMs ?? QUERY_EMBEDDING_TIMEOUT_MS);
    const [vector] = await provider!.embed([text], { signal });
    if (!vector) throw new Error('the provider returned no vector');
    vectors.set(text, vector);
    return vector;
  }

  /** The semantic leg, or null when the first page must do without it. */
  async function semanticLeg(
    searchIndex: SearchIndex,
    scope: Scope,
    request: SearchRequest,
    snapshot: SearchSnapshot,
    vector: Promise<Float32Array | Error>,
    laterPage: boolean,
  ): Promise<RankedDoc[] | null> {
    const embedding = await vector;
    if (embedding instanceof Error) {
      if (laterPage) throw new SearchUnavailableError(embedding.message);
      options.onFallback?.(embedding.message);
      return null;
    }
    const space = embeddingSpace(provider!.model, embedding.length);
    return searchIndex.vector(scope, { ...filterOf(request), embedding, space, neighbours: SEMANTIC_NEIGHBOURS, snapshot });
  }

  async function indexed(searchIndex: SearchIndex, scope: Scope, request: SearchRequest, position?: SearchPosition) {
    const snapshot = position ?? (await searchIndex.snapshot());
    const wantsHybrid = position ? position.hybrid : hybrid;
    const offset = position?.offset ?? 0;
    // The provider embeds the query while the keyword leg runs.
    const vector = wantsHybrid
      ? queryVector(request.text.trim()).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))
      : null;
    const keyword = await searchIndex.keyword(scope, {
      ...filterOf(request),
      text: request.text,
      cap: SEARCH_CANDIDATE_CAP,
      // Fusion needs every keyword candidate; a keyword-only page only those up to its end (and the best, for scores).
      depth: wantsHybrid ? SEARCH_CANDIDATE_CAP : offset + request.limit,
      snapshot,
    });
    const semantic = vector ? await semanticLeg(searchIndex, scope, request, snapshot, vector, position !== undefined) : null;
    const ranked = semantic === null ? relativeScores(keyword.docs) : reciprocalRankFusion([keyword.docs, semantic]);
    const considered = semantic === null ? keyword.total : Math.min(ranked.length, SEARCH_CANDIDATE_CAP);
    const page = ranked.slice(offset, Math.min(offset + request.limit, considered));
    const records = await searchIndex.load(scope, page);
    const results = page.flatMap((doc, i) => (records[i] ? [toSearchResult(records[i]!, roundScore(doc.score))] : []));
    const nextOffset = offset + request.limit;
    return {
      results,
      next:
        nextOffset < considered
          ? { offset: nextOffset, docs: snapshot.docs, vectors: snapshot.vectors, hybrid: semantic !== null }
          : null,
      capped: keyword.capped || ranked.length > SEARCH_CANDIDATE_CAP,
    };
  }

  /** An engine without a search index: its keyword search, paged by offset. */
  async function keywordOnly(scope: Scope, request: SearchRequest, position?: SearchPosition): Promise<SearchPage> {
    const outcome = await store.search(scope, { ...filterOf(request), text: request.text, candidateCap: SEARCH_CANDIDATE_CAP });
    const best = outcome.hits[0]?.rank ?? 1;
    const offset = position?.offset ?? 0;
    const results = outcome.hits
      .slice(offset, offset + request.limit)
      .map(({ record, rank }) => toSearchResult(record, roundScore(rank / best)));
    const nextOffset = offset + request.limit;
    return {
      results,
      next: nextOffset < outcome.hits.length ? { offset: nextOffset, docs: 0, vectors: 0, hybrid: false } : null,
      capped: outcome.capped,
    };
  }

  return {
    mode: hybrid ? 'hybrid' : 'keyword',
    model: hybrid ? provider.model : null,
    search(scope, request, position) {
      return index ? indexed(index, scope, request, position) : keywordOnly(scope, request, position);
    },
  };
}

function filterOf(request: SearchFilter): { types: readonly SearchableType[]; since?: string; until?: string } {
  return { types: request.types, since: request.since, until: request.until };
}
