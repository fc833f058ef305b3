import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDemoFixture, type DemoFixture } from '../../../bench/search/demo-fixture.js';
import { startEmbeddingServer, type EmbeddingServer } from '../../../bench/search/embedding-server.js';
import { SEARCHABLE_TYPES } from '../../../src/contract/index.js';
import { createEmbeddingWorker } from '../../../src/core/search/embedding-worker.js';
import { createOpenAiEmbeddings } from '../../../src/core/search/openai-embeddings.js';
import { createSearchService, SearchUnavailableError } from '../../../src/core/search/search-service.js';

let fixture: DemoFixture;
let server: EmbeddingServer;

beforeAll(async () => {
  [fixture, server] = await Promise.all([openDemoFixture(), startEmbeddingServer()]);
  const provider = createOpenAiEmbeddings({ url: server.url, model: server.model });
  await createEmbeddingWorker({ index: fixture.store.searchIndex!, provider }).drain();
  await provider.close();
});
afterAll(async () => {
  await fixture?.close();
  await server?.close();
});

const request = { text: 'who talks to the privacy officer', types: SEARCHABLE_TYPES, limit: 5 };

describe('the search service when the embedding provider fails', () => {
  it('answers a first page by keywords alone and says so; a later hybrid page is unavailable, not silently different', async () => {
    const scope = fixture.scopes.get('atlas')!;
    const provider = createOpenAiEmbeddings({ url: server.url, model: server.model, maxRetries: 0 });
    const first = await createSearchService({ store: fixture.store, provider }).search(scope, request);
    expect(first.next).toMatchObject({ offset: 5, hybrid: true });

    server.options.failures = Array.from({ length: 20 }, () => 500);
    const fallbacks: string[] = [];
    const restarted = createSearchService({ store: fixture.store, provider, onFallback: (reason) => fallbacks.push(reason) });
    await expect(restarted.search(scope, request, first.next!)).rejects.toBeInstanceOf(SearchUnavailableError);
    const keywordOnly = await restarted.search(scope, { ...request, text: 'data protection officer' });
    expect(keywordOnly.results.length).toBeGreaterThan(0);
    expect(keywordOnly.next).toMatchObject({ hybrid: false });
    expect(fallbacks).toHaveLength(1);
    server.options.failures = [];
    await provider.close();
  });
});
