import type { Store } from '../store/store.js';
import type { SearchService } from './search-service.js';

/** What getSearchStatus answers. */
export interface SearchStatus {
  mode: SearchService['mode'];
  model: string | null;
  pending: number;
  failed: number;
  embedded: number;
}

/** How search runs and how far embedding of the tenant's records has come. */
export async function searchStatus(store: Store, search: SearchService, tenantId: string): Promise<SearchStatus> {
  const backlog = (await store.searchIndex?.embeddingBacklog(tenantId)) ?? { pending: 0, failed: 0, embedded: 0 };
  return { mode: search.mode, model: search.model, ...backlog };
}

/**
 * Drops the tenant's vectors (or one deployment's) and queues its records to be embedded again; the core's worker
 * does the embedding. On an engine without a search index nothing is queued.
 */
export async function reindexSearch(
  store: Store,
  search: SearchService,
  tenantId: string,
  deploymentId?: string,
): Promise<SearchStatus & { queued: number }> {
  const queued = (await store.searchIndex?.requeueEmbeddings(tenantId, deploymentId)) ?? 0;
  return { queued, ...(await searchStatus(store, search, tenantId)) };
}
