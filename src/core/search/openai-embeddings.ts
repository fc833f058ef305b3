import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { EmbeddingError, type EmbeddingProvider } from './embedding-provider.js';

export interface OpenAiEmbeddingsOptions {
  /**
   * The API root (`https://api.openai.com/v1`, `http://localhost:11434/v1`, an Azure OpenAI deployment URL with its
   * `api-version` query) or the full `/embeddings` URL.
   */
  url: string;
  model: string;
  /** The key itself, already resolved from its secret reference; none for a local server. */
  apiKey?: string;
  /** Asks for shorter vectors (models that support it, such as OpenAI's text-embedding-3 family). */
  dimensions?: number;
  /** Texts per request. */
  batchSize?: number;
  /** Longer texts are cut: a transcript turn past this says nothing a shorter one does not. */
  maxInputChars?: number;
  /** Budget of one request, connection to last byte. */
  timeoutMs?: number;
  /** Retries of a request that met a 429, a 5xx or a network failure. */
  maxRetries?: number;
  /** First backoff; it doubles per retry (with jitter) unless the service sends Retry-After. */
  backoffMs?: number;
}

const RETRYABLE_STATUS = new Set([408, 409, 425, 429, 500, 502, 503, 504, 529]);
const AUTH_OR_ROUTE_STATUS = new Set([401, 403, 404]);
const MAX_BACKOFF_MS = 60_000;
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** The `/embeddings` URL for a configured root, keeping any query (Azure's api-version). */
export function embeddingsUrl(base: string): URL {
  const url = new URL(base);
  if (!url.pathname.replace(/\/+$/, '').endsWith('/embeddings')) {
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/embeddings`;
  }
  return url;
}

/** Azure OpenAI takes its key in `api-key`; everyone else (OpenAI, Ollama, vLLM, TEI, LM Studio) as a bearer token. */
function authHeaders(url: URL, apiKey: string | undefined): Record<string, string> {
  if (!apiKey) return {};
  const azure = /\.(openai\.azure\.com|cognitiveservices\.azure\.com)$/i.test(url.hostname);
  return azure ? { 'api-key': apiKey } : { authorization: `Bearer ${apiKey}` };
}

/** Milliseconds a Retry-After header asks for (seconds or an HTTP date), or null. */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function backoff(attempt: number, baseMs: number): number {
  const exponential = baseMs * 2 ** attempt;
  return Math.min(MAX_BACKOFF_MS, exponential / 2 + Math.random() * exponential / 2);
}

interface EmbeddingsResponse {
  data?: { index?: number; embedding?: unknown }[];
}

/** The vectors of a response, in input order, checked: one per input, all of one length, all finite numbers. */
function parseVectors(body: EmbeddingsResponse, count: number): Float32Array[] {
  const data = Array.isArray(body.data) ? body.data : [];
  const vectors: Float32Array[] = new Array(count);
  for (const [position, item] of data.entries()) {
    const index = typeof item.index === 'number' ? item.index : position;
    if (!Array.isArray(item.embedding) || index < 0 || index >= count) continue;
    const vector = Float32Array.from(item.embedding as number[]);
    if (vector.length === 0 || vector.some((x) => !Number.isFinite(x))) continue;
    vectors[index] = vector;
  }
  const length = vectors[0]?.length;
  for (let i = 0; i < count; i += 1) {
    if (!vectors[i] || vectors[i]!.length !== length) {
      throw new EmbeddingError(`the embeddings response lacks a valid vector for input ${i}`, 'provider');
    }
  }
  return vectors;
}

/**
 * An OpenAI-compatible `/embeddings` client (OpenAI, Azure OpenAI, Ollama, LM Studio, vLLM, TEI): batches texts,
 * retries 429 and 5xx answers and network failures with exponential backoff (honouring Retry-After), and bounds
 * every request by a timeout. Connections are kept alive in its own undici Agent.
 */
export function createOpenAiEmbeddings(options: OpenAiEmbeddingsOptions): EmbeddingProvider {
  const url = embeddingsUrl(options.url);
  const batchSize = options.batchSize ?? 64;
  const maxInputChars = options.maxInputChars ?? 8000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxRetries = options.maxRetries ?? 4;
  const backoffMs = options.backoffMs ?? 500;
  const agent = new Agent({ connections: 4, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 30_000 });
  const headers = { 'content-type': 'application/json', accept: 'application/json', ...authHeaders(url, options.apiKey) };
  const endpoint = `${url.origin}${url.pathname}`;

  async function once(texts: readonly string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const body = JSON.stringify({
      model: options.model,
      // Empty input is refused by OpenAI; a record always has text, but an empty one must not stall the queue.
      input: texts.map((text) => (text.trim() === '' ? '.' : text.slice(0, maxInputChars))),
      ...(options.dimensions === undefined ? {} : { dimensions: options.dimensions }),
    });
    const timeout = AbortSignal.timeout(timeoutMs);
    const response = await request(url, {
      method: 'POST',
      headers,
      body,
      dispatcher: agent,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    const raw = await response.body.text();
    if (raw.length > MAX_RESPONSE_BYTES) throw new EmbeddingError('the embeddings response is too large', 'provider');
    if (response.statusCode >= 200 && response.statusCode < 300) {
      try {
        return parseVectors(JSON.parse(raw) as EmbeddingsResponse, texts.length);
      } catch (error) {
        if (error instanceof EmbeddingError) throw error;
        throw new EmbeddingError('the embeddings response is not JSON', 'provider', response.statusCode);
      }
    }
    throw new HttpFailure(response.statusCode, raw.slice(0, 300), retryAfterMs(response.headers['retry-after']));
  }

  async function withRetries(texts: readonly string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await once(texts, signal);
      } catch (error) {
        const failure = classify(error, endpoint);
        if (!failure.retry || attempt >= maxRetries || signal?.aborted) throw failure.error;
        await sleep(Math.min(MAX_BACKOFF_MS, failure.waitMs ?? backoff(attempt, backoffMs)), undefined, { signal });
      }
    }
  }

  return {
    model: options.model,
    endpoint,
    async embed(texts, embedOptions = {}) {
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        vectors.push(...(await withRetries(texts.slice(start, start + batchSize), embedOptions.signal)));
      }
      return vectors;
    },
    async close() {
      await agent.close();
    },
  };
}

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly waitMs: number | null,
  ) {
    super(`HTTP ${status}`);
  }
}

/** Whether a failed request is worth repeating, and the error to report when it is not (or no longer). */
function classify(error: unknown, endpoint: string): { retry: boolean; waitMs?: number; error: EmbeddingError } {
  if (error instanceof EmbeddingError) return { retry: error.kind === 'provider', error };
  if (error instanceof HttpFailure) {
    const message = `${endpoint} answered ${error.status}: ${error.body.replace(/\s+/g, ' ').trim()}`;
    if (RETRYABLE_STATUS.has(error.status)) {
      return { retry: true, waitMs: error.waitMs ?? undefined, error: new EmbeddingError(message, 'provider', error.status) };
    }
    const kind = AUTH_OR_ROUTE_STATUS.has(error.status) || error.status < 400 || error.status >= 500 ? 'provider' : 'input';
    return { retry: false, error: new EmbeddingError(message, kind, error.status) };
  }
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { retry: true, error: new EmbeddingError(`${endpoint} could not be reached (${reason})`, 'provider') };
}
