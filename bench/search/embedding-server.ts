import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONCEPT_DIMENSIONS, conceptEmbedding } from './concept-embedder.js';

export interface EmbeddingServerOptions {
  /** When set, requests must carry `Authorization: Bearer <apiKey>` (else 401). */
  apiKey?: string;
  /**
   * Answers the next requests with these statuses, first to last (429 sends Retry-After: 0), to exercise retries;
   * read live, so a test may add failures while the server runs.
   */
  failures?: number[];
  /** Inputs containing this text are refused with 400, as a provider refuses an input it cannot take. */
  refuse?: string;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
}

export interface EmbeddingServer {
  /** The API root to configure, `http://127.0.0.1:<port>/v1`. */
  url: string;
  model: string;
  /** Requests received, including refused ones, and texts embedded. */
  stats: { requests: number; texts: number };
  options: EmbeddingServerOptions;
  close(): Promise<void>;
}

export const CONCEPT_MODEL = 'concept-embedder-v1';

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A real HTTP server speaking the OpenAI `/embeddings` API with the deterministic concept embedder, for tests,
 * the evaluation and the benchmark (no model weights can be downloaded here). `dimensions` in a request shortens
 * the vectors, as text-embedding-3 models do.
 */
export async function startEmbeddingServer(options: EmbeddingServerOptions = {}): Promise<EmbeddingServer> {
  const stats = { requests: 0, texts: 0 };
  const server = createServer((request, response) => {
    void (async () => {
      stats.requests += 1;
      const body = await readBody(request);
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      if (request.method !== 'POST' || !/\/embeddings$/.test(new URL(request.url ?? '/', 'http://x').pathname)) {
        return send(response, 404, { error: { message: 'not found' } });
      }
      if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
        return send(response, 401, { error: { message: 'invalid api key' } });
      }
      const failure = options.failures?.shift();
      if (failure !== undefined) return send(response, failure, { error: { message: 'injected failure' } }, { 'retry-after': '0' });
      let parsed: { input?: unknown; model?: unknown; dimensions?: unknown };
      try {
        parsed = JSON.parse(body) as typeof parsed;
      } catch {
        return send(response, 400, { error: { message: 'body is not JSON' } });
      }
      const inputs = typeof parsed.input === 'string' ? [parsed.input] : parsed.input;
      if (!Array.isArray(inputs) || inputs.some((text) => typeof text !== 'string' || text === '')) {
        return send(response, 400, { error: { message: 'input must be a non-empty string or array of them' } });
      }
      if (options.refuse !== undefined && inputs.some((text: string) => text.includes(options.refuse!))) {
        return send(response, 400, { error: { message: 'input refused' } });
      }
      const dimensions = typeof parsed.dimensions === 'number' ? parsed.dimensions : CONCEPT_DIMENSIONS;
      stats.texts += inputs.length;
      send(response, 200, {
        object: 'list',
        model: parsed.model,
        data: inputs.map((text: string, index) => ({ object: 'embedding', index, embedding: Array.from(conceptEmbedding(text, dimensions)) })),
        usage: { prompt_tokens: 0, total_tokens: 0 },
      });
    })().catch(() => send(response, 500, { error: { message: 'server error' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    model: CONCEPT_MODEL,
    stats,
    options,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
