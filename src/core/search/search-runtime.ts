import { resolveSecretReference } from '../../contract/secret-reference.js';
import type { Store } from '../store/store.js';
import { embeddingSpace, type EmbeddingProvider } from './embedding-provider.js';
import { createEmbeddingWorker } from './embedding-worker.js';
import { createOpenAiEmbeddings } from './openai-embeddings.js';
import { createSearchService, type SearchService } from './search-service.js';

/** How the core reaches its embedding provider (`memory serve --embeddings-*`). */
export interface EmbeddingsConfig {
  url: string;
  model: string;
  /** A secret reference (env:NAME, file:/path, keychain:service/account) to the API key; none for local servers. */
  keyRef?: string;
  dimensions?: number;
}

export interface SearchRuntime {
  service: SearchService;
  /** The line the core prints at start: which mode search runs in, and why. */
  describe: string;
  close(): Promise<void>;
}

const PROBE_TIMEOUT_MS = 10_000;

/**
 * Search as the core runs it: keyword-only without a provider, else hybrid with the background worker that embeds
 * queued records. The provider is probed once at start so that the line the core prints says whether it answers;
 * a provider that does not answer yet still leaves the core hybrid, answering by keywords until it does.
 */
export async function startSearch(
  store: Store,
  config: EmbeddingsConfig | undefined,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<SearchRuntime> {
  if (!config) {
    return {
      service: createSearchService({ store }),
      describe: 'search: keyword (no embedding provider; --embeddings-url and --embeddings-model enable hybrid search)',
      close: async () => {},
    };
  }
  const index = store.searchIndex;
  if (!index) {
    return {
      service: createSearchService({ store }),
      describe: `search: keyword (the ${store.engine} engine has no vector index; embeddings are not used)`,
      close: async () => {},
    };
  }
  const apiKey = config.keyRef === undefined ? undefined : await resolveSecretReference(config.keyRef);
  const provider = createOpenAiEmbeddings({ url: config.url, model: config.model, apiKey, dimensions: config.dimensions });
  const probe = await probeProvider(provider);
  if (probe.space !== null) {
    await index.useEmbeddingSpace(probe.space);
    // Loads a million signatures in seconds: better before the core listens than inside the first search.
    await index.warm(probe.space);
  }
  const worker = createEmbeddingWorker({ index, provider, log });
  worker.start();
  return {
    service: createSearchService({ store, provider, onFallback: (reason) => log(`search: answered by keywords alone: ${reason}`) }),
    describe: await describeHybrid(provider, probe, index),
    async close() {
      await worker.stop();
      await provider.close();
    },
  };
}

async function probeProvider(provider: EmbeddingProvider): Promise<{ space: string | null; problem: string | null }> {
  try {
    const [vector] = await provider.embed(['meeting memory'], { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return { space: embeddingSpace(provider.model, vector?.length ?? 0), problem: null };
  } catch (error) {
    return { space: null, problem: error instanceof Error ? error.message : String(error) };
  }
}

async function describeHybrid(
  provider: EmbeddingProvider,
  probe: { space: string | null; problem: string | null },
  index: NonNullable<Store['searchIndex']>,
): Promise<string> {
  const head = `search: hybrid (keyword + semantic, ${provider.model} via ${provider.endpoint})`;
  if (probe.problem !== null) return `${head}; the provider does not answer yet (${probe.problem}): keywords alone until it does`;
  const { pending } = await index.embeddingBacklog();
  return pending > 0 ? `${head}; ${pending} records waiting to be embedded` : head;
}
