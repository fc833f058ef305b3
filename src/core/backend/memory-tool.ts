import { SEARCHABLE_TYPES } from '../../contract/index.js';
import type { SearchService } from '../search/search-service.js';
import type { MemorySearch } from './invoker.js';

/** How many records one searchMemory call hands the backend: enough to answer from, small enough to speak from. */
export const TOOL_RESULT_LIMIT = 10;

/**
 * The `searchMemory` tool: the core's search (hybrid when it has an embedding provider) in the invoking
 * deployment's scope (never one the backend names), shaped as the memory API's search answers, the best
 * TOOL_RESULT_LIMIT records.
 */
export function memorySearchTool(search: SearchService): MemorySearch {
  return async (scope, query) => {
    const page = await search.search(scope, { text: query, types: SEARCHABLE_TYPES, limit: TOOL_RESULT_LIMIT });
    return { results: page.results, was_capped: page.capped };
  };
}
