import { Readable } from 'node:stream';
import {
  OPERATIONS,
  ProblemDocument,
  pathParams,
  type Operation,
  type OperationInput,
  type OperationName,
  type OperationOutput,
} from '../contract/index.js';
import { MemoryApiError, MemoryClientError, MemoryConnectionError, MemoryOutcomeUnknownError } from './errors.js';
import { readBackOperation, showsChange } from './read-back.js';
import { buildRequest, type BuiltRequest } from './request.js';
import { backoffDelay, parseRetryAfter, retryPolicy, wait, type RetryOptions } from './retry.js';
import { openTransport, type Transport, type TransportKind, type TransportResponse } from './transport.js';

/** How to reach a memory core. */
export interface MemoryClientOptions {
  /**
   * The REST root, e.g. `https://memory.example.com/v1`. A bare origin (no path) gets `/v1` appended, since the
   * API lives under its version prefix.
   */
  baseUrl: string;
  /**
   * A bearer token, or a function returning one (or a promise of one); the function runs before every request so
   * tokens can refresh.
   */
  token: string | TokenSource;
  /** PEM CA certificate(s) to trust instead of the system store, for a self-hosted core with its own CA. */
  ca?: string | string[];
  /** Sent as `User-Agent`. */
  userAgent?: string;
  retry?: RetryOptions;
  /** Longest wait for response headers, and between body chunks. Default 30000 ms. */
  timeoutMs?: number;
  /** Most sockets kept open to the core. Default 8. */
  connections?: number;
  /** The HTTP stack (see TransportKind): `undici` by default; `node` for a process that makes a few calls and exits. */
  transport?: TransportKind;
}

/** Gives the token for the next request: at once when it has one at hand, else as a promise. */
export type TokenSource = () => string | Promise<string>;

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
}

type InputArgs<N extends OperationName> = {} extends OperationInput<N>
  ? [input?: OperationInput<N>, options?: CallOptions]
  : [input: OperationInput<N>, options?: CallOptions];

/** One typed method per operation of the contract, e.g. `listDecisions(input)`. */
export type OperationMethods = {
  [N in OperationName]: (...args: InputArgs<N>) => Promise<OperationOutput<N>>;
};

/** Operations that take a `cursor` and answer with `next_cursor`. */
export type PageableName = {
  [N in OperationName]: 'cursor' extends keyof OperationInput<N> ? N : never;
}[OperationName];

/** The record type one page of a pageable operation holds (`items`, or `results` for search). */
export type PageItem<N extends PageableName> =
  OperationOutput<N> extends { items: Array<infer T> }
    ? T
    : OperationOutput<N> extends { results: Array<infer T> }
      ? T
      : never;

export interface MemoryClient extends OperationMethods {
  /** The REST root requests go to. */
  readonly baseUrl: string;
  /** Calls an operation by name; the typed methods are this with the name filled in. */
  call<N extends OperationName>(name: N, ...args: InputArgs<N>): Promise<OperationOutput<N>>;
  /** As `call`, but the answer's JSON text, as the core sent it when it could: for a caller that forwards it unread. */
  callJson<N extends OperationName>(name: N, ...args: InputArgs<N>): Promise<string>;
  /** Every page of a list or search, following `next_cursor` from `input.cursor` (or the first page). */
  pages<N extends PageableName>(name: N, input: OperationInput<N>, options?: CallOptions): AsyncGenerator<OperationOutput<N>>;
  /** Every record of a list or search, page after page. */
  paginate<N extends PageableName>(name: N, input: OperationInput<N>, options?: CallOptions): AsyncGenerator<PageItem<N>>;
  /** Closes the kept-alive sockets; the client is unusable afterwards. */
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** The REST root with `/v1` added to a bare origin and no trailing slash. */
export function normalizeBaseUrl(baseUrl: string): URL {
  const url = new URL(baseUrl);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`baseUrl must be an http(s) URL, got ${baseUrl}`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path === '' ? '/v1' : path;
  url.search = '';
  url.hash = '';
  return url;
}

/** A file streamed as an upload operation's body (Operation.upload), read once: an upload is never retried. */
export interface UploadBody {
  data: Readable | AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
  contentType: string;
  /** Sent as Content-Length when known, so the core can refuse an oversized file before reading it. */
  length?: number;
}

/** Longest wait for an upload's answer: the core answers once the whole file is read and committed. */
const UPLOAD_TIMEOUT_MS = 30 * 60_000;

/**
 * The transport every typed client shares: keep-alive connections, bearer tokens, retries and read-back over
 * the operations of one contract table (the memory API's or the admin surface's).
 */
export interface OperationCaller {
  readonly baseUrl: string;
  /** Calls an operation of the table by name with its flat input, retrying as `createMemoryClient` describes. */
  call(name: string, input?: object, options?: CallOptions): Promise<unknown>;
  /** As `call`, but the answer's JSON text (see MemoryClient.callJson). */
  callJson(name: string, input?: object, options?: CallOptions): Promise<string>;
  /** Calls an upload operation: its fields go in the query, the file is streamed as the body, once. */
  upload(name: string, input: object, body: UploadBody, options?: CallOptions): Promise<unknown>;
  close(): Promise<void>;
}

/** The transport over `operations`; see OperationCaller. */
export function createOperationCaller(operations: readonly Operation[], options: MemoryClientOptions): OperationCaller {
  const base = normalizeBaseUrl(options.baseUrl);
  const policy = retryPolicy(options.retry);
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const getToken = typeof options.token === 'string' ? constant(options.token) : options.token;
  let transport: Promise<Transport> | undefined;
  let connected: Transport | undefined;
  const connect = () =>
    (transport ??= openTransport(options.transport ?? 'undici', {
      origin: base.origin,
      ca: options.ca,
      connections: options.connections ?? 8,
    }).then((opened) => (connected = opened)));
  const userAgent = options.userAgent ?? 'meeting-memory-client';
  const byName = new Map(operations.map((op) => [op.name, op]));
  const lookup = (name: string): Operation => {
    const found = byName.get(name);
    if (!found) throw new Error(`unknown operation ${name}`);
    return found;
  };

  async function send(op: Operation, request: BuiltRequest, signal?: AbortSignal, upload?: UploadBody): Promise<TransportResponse> {
    // What is at hand is used at once: an await would hold the request back until the caller's synchronous work,
    // and the I/O callback it runs in, were done (for memory mcp, a measurable part of a tool call).
    const pending = getToken();
    const token = typeof pending === 'string' ? pending : await pending;
    const path = base.pathname + request.path;
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: 'application/json, application/problem+json',
      'user-agent': userAgent,
    };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    if (upload) {
      headers['content-type'] = upload.contentType;
      if (upload.length !== undefined) headers['content-length'] = String(upload.length);
    }
    const waitMs = upload ? Math.max(timeout, UPLOAD_TIMEOUT_MS) : timeout;
    try {
      return await (connected ?? (await connect())).request({
        method: request.method,
        path,
        headers,
        body: upload ? (upload.data instanceof Readable ? upload.data : Readable.from(upload.data)) : request.body,
        signal,
        timeoutMs: waitMs,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new MemoryConnectionError(op.name, base.origin + path, error);
    }
  }

  async function call(name: string, input: object = {}, callOptions: CallOptions = {}): Promise<unknown> {
    const answer = await succeed(lookup(name), input, callOptions);
    return 'record' in answer ? answer.record : parseSuccess(name, answer);
  }

  async function callJson(name: string, input: object = {}, callOptions: CallOptions = {}): Promise<string> {
    const answer = await succeed(lookup(name), input, callOptions);
    if ('record' in answer) return JSON.stringify(answer.record);
    return isJsonAnswer(answer) ? answer.text : JSON.stringify(parseSuccess(name, answer) ?? null);
  }

  /** The successful answer to an operation, after the retries and the read-back a failure may take. */
  async function succeed(op: Operation, input: object, callOptions: CallOptions): Promise<TransportResponse | { record: unknown }> {
    const request = buildRequest(op, input);
    let failedReads = 0;
    let rateLimited = 0;
    for (;;) {
      const response = await send(op, request, callOptions.signal);
      if (response.status < 400) return response;
      const error = apiError(op.name, response);
      const retryAfterMs = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
      if (error.status === 429 && rateLimited < policy.rateLimitRetries) {
        const delay = retryAfterMs ?? backoffDelay(policy, rateLimited + 1);
        if (delay <= policy.maxRetryAfterMs) {
          rateLimited += 1;
          await wait(delay, callOptions.signal);
          continue;
        }
      }
      if (error.status === 503 && op.access === 'read' && failedReads + 1 < policy.readAttempts) {
        failedReads += 1;
        const delay = Math.max(backoffDelay(policy, failedReads), Math.min(retryAfterMs ?? 0, policy.maxRetryAfterMs));
        await wait(delay, callOptions.signal);
        continue;
      }
      if (error.status === 503 && op.access === 'write') return { record: await readBack(op, input, error, callOptions) };
      throw error;
    }
  }

  async function readBack(op: Operation, input: object, failure: MemoryApiError, callOptions: CallOptions) {
    const readName = readBackOperation(op.name as OperationName);
    if (readName === undefined) throw new MemoryOutcomeUnknownError(op.name, failure.problem);
    const fields = input as Record<string, unknown>;
    const readInput = Object.fromEntries(pathParams(lookup(readName)).map((name) => [name, fields[name]]));
    let record: unknown;
    try {
      record = await call(readName, readInput, callOptions);
    } catch (cause) {
      throw new MemoryOutcomeUnknownError(op.name, failure.problem, { cause });
    }
    if (showsChange(fields, record as Record<string, unknown>, pathParams(op))) return record;
    throw new MemoryOutcomeUnknownError(op.name, failure.problem);
  }

  async function upload(name: string, input: object, body: UploadBody, callOptions: CallOptions = {}): Promise<unknown> {
    const op = lookup(name);
    if (!op.upload) throw new TypeError(`${name} takes no file`);
    const response = await send(op, buildRequest(op, input), callOptions.signal, body);
    if (response.status < 400) return parseSuccess(op.name, response);
    throw apiError(op.name, response);
  }

  const close = async () => {
    if (transport !== undefined) await (await transport).close();
  };
  return { baseUrl: base.toString(), call, callJson, upload, close };
}

/**
 * A typed client of the memory REST API, one method per operation of the contract table, over keep-alive
 * connections (see MemoryClientOptions.transport). Reads answered 503 are retried with exponential backoff; a 429
 * is retried after its `Retry-After` (when that is within `retry.maxRetryAfterMs`). Writes are never retried
 * blindly: after a 503 the client reads the record back and returns it when it shows the change, else throws
 * `MemoryOutcomeUnknownError`. Failures are `MemoryApiError` (with the problem document) or `MemoryConnectionError`.
 */
export function createMemoryClient(options: MemoryClientOptions): MemoryClient {
  const caller = createOperationCaller(OPERATIONS, options);
  const call = (name: string, input?: object, callOptions?: CallOptions) => caller.call(name, input, callOptions);
  const callJson = (name: string, input?: object, callOptions?: CallOptions) => caller.callJson(name, input, callOptions);

  async function* pages(name: PageableName, input: object, callOptions?: CallOptions) {
    let cursor = (input as { cursor?: string }).cursor;
    do {
      const page = (await call(name, { ...input, cursor }, callOptions)) as { next_cursor: string | null };
      yield page;
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  async function* paginate(name: PageableName, input: object, callOptions?: CallOptions) {
    for await (const page of pages(name, input, callOptions)) {
      const { items, results } = page as { items?: unknown[]; results?: unknown[] };
      yield* items ?? results ?? [];
    }
  }

  return {
    ...methodsOf(OPERATIONS, caller),
    baseUrl: caller.baseUrl,
    call,
    callJson,
    pages,
    paginate,
    close: caller.close,
  } as unknown as MemoryClient;
}

/** One method per operation of a table, each the caller's `call` with the name filled in. */
export function methodsOf(operations: readonly Operation[], caller: OperationCaller): Record<string, unknown> {
  return Object.fromEntries(
    operations.map((op) => [op.name, (input?: object, callOptions?: CallOptions) => caller.call(op.name, input, callOptions)]),
  );
}

function constant(token: string): TokenSource {
  return () => token;
}

/** A JSON answer, by its content type: its text can be passed on unread (the core only sends JSON it serialised). */
function isJsonAnswer(response: TransportResponse): boolean {
  const type = response.headers['content-type'];
  return response.text !== '' && typeof type === 'string' && /^application\/(?:[\w.+-]+\+)?json\b/i.test(type);
}

function parseSuccess(operation: string, response: TransportResponse): unknown {
  if (response.text === '') return undefined;
  try {
    return JSON.parse(response.text);
  } catch (cause) {
    throw new MemoryClientError(`The core answered ${operation} with a body that is not JSON`, operation, { cause });
  }
}

/** The failure as a `MemoryApiError`, with a problem document synthesised when the body is not one. */
function apiError(operation: string, response: TransportResponse): MemoryApiError {
  const retryAfter = parseRetryAfter(response.headers['retry-after']);
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    body = undefined;
  }
  const parsed = ProblemDocument.safeParse(body);
  const problem = parsed.success
    ? { ...parsed.data, status: response.status }
    : {
        type: 'about:blank',
        title: response.statusText || `HTTP ${response.status}`,
        status: response.status,
        ...(response.text && response.text.length <= 500 ? { detail: response.text.trim() } : {}),
      };
  return new MemoryApiError(operation, problem, retryAfter);
}
