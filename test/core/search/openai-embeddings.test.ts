import { afterEach, describe, expect, it } from 'vitest';
import { startEmbeddingServer, type EmbeddingServer } from '../../../bench/search/embedding-server.js';
import { EmbeddingError } from '../../../src/core/search/embedding-provider.js';
import { createOpenAiEmbeddings, embeddingsUrl, retryAfterMs } from '../../../src/core/search/openai-embeddings.js';

const servers: EmbeddingServer[] = [];
async function server(options: Parameters<typeof startEmbeddingServer>[0] = {}): Promise<EmbeddingServer> {
  const started = await startEmbeddingServer(options);
  servers.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function failure(promise: Promise<unknown>): Promise<EmbeddingError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(EmbeddingError);
  return error as EmbeddingError;
}

describe('the OpenAI-compatible embeddings client', () => {
  it('embeds in batches over real HTTP, one vector per text in order, with the key as a bearer token', async () => {
    const s = await server({ apiKey: 'sk-test' });
    const provider = createOpenAiEmbeddings({ url: s.url, model: s.model, apiKey: 'sk-test', batchSize: 64 });
    const texts = Array.from({ length: 150 }, (_, i) => `record ${i}`);
    const vectors = await provider.embed(texts);
    expect(vectors).toHaveLength(150);
    expect(s.stats.requests).toBe(3);
    const [again] = await provider.embed(['record 7']);
    expect(Array.from(again!)).toEqual(Array.from(vectors[7]!));
    await provider.close();
  });

  it('asks for shorter vectors when dimensions are configured', async () => {
    const s = await server();
    const provider = createOpenAiEmbeddings({ url: s.url, model: s.model, dimensions: 32 });
    expect((await provider.embed(['short']))[0]).toHaveLength(32);
    await provider.close();
  });

  it('retries 429 and 5xx answers with backoff, then succeeds', async () => {
    const s = await server({ failures: [429, 503, 502] });
    const provider = createOpenAiEmbeddings({ url: s.url, model: s.model, backoffMs: 5 });
    expect(await provider.embed(['eventually'])).toHaveLength(1);
    expect(s.stats.requests).toBe(4);
    await provider.close();
  });

  it('gives up after its retries with a provider error', async () => {
    const s = await server({ failures: Array.from({ length: 10 }, () => 503) });
    const provider = createOpenAiEmbeddings({ url: s.url, model: s.model, backoffMs: 1, maxRetries: 2 });
    const error = await failure(provider.embed(['never']));
    expect(error).toMatchObject({ kind: 'provider', status: 503 });
    expect(s.stats.requests).toBe(3);
    await provider.close();
  });

  it('does not retry a wrong key or a refused input, and tells them apart', async () => {
    const s = await server({ apiKey: 'right', refuse: 'forbidden words' });
    const wrongKey = createOpenAiEmbeddings({ url: s.url, model: s.model, apiKey: 'wrong' });
    expect(await failure(wrongKey.embed(['x']))).toMatchObject({ kind: 'provider', status: 401 });
    const provider = createOpenAiEmbeddings({ url: s.url, model: s.model, apiKey: 'right' });
    const refused = await failure(provider.embed(['fine', 'forbidden words here']));
    expect(refused).toMatchObject({ kind: 'input', status: 400 });
    expect(refused.message).not.toContain('right');
    expect(s.stats.requests).toBe(2);
    await Promise.all([wrongKey.close(), provider.close()]);
  });

  it('bounds every request by its timeout, and an unreachable endpoint is a provider error', async () => {
    const slow = await server({ delayMs: 400 });
    const impatient = createOpenAiEmbeddings({ url: slow.url, model: slow.model, timeoutMs: 50, maxRetries: 0 });
    expect(await failure(impatient.embed(['slow']))).toMatchObject({ kind: 'provider' });
    const nowhere = createOpenAiEmbeddings({ url: 'http://127.0.0.1:9/v1', model: 'm', maxRetries: 0 });
    expect((await failure(nowhere.embed(['x']))).message).toMatch(/could not be reached/);
    await Promise.all([impatient.close(), nowhere.close()]);
  });

  it('builds the /embeddings URL from an API root, keeping a query such as Azure’s api-version', () => {
    expect(embeddingsUrl('https://api.openai.com/v1').href).toBe('https://api.openai.com/v1/embeddings');
    expect(embeddingsUrl('http://localhost:11434/v1/').href).toBe('http://localhost:11434/v1/embeddings');
    expect(embeddingsUrl('http://tei:8080/v1/embeddings').href).toBe('http://tei:8080/v1/embeddings');
    expect(embeddingsUrl('https://r.openai.azure.com/openai/deployments/emb?api-version=2024-10-21').href).toBe(
      'https://r.openai.azure.com/openai/deployments/emb/embeddings?api-version=2024-10-21',
    );
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeNull();
    expect(retryAfterMs(undefined)).toBeNull();
  });
});
