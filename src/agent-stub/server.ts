import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { BackendResponse, DEFAULT_RESPONSE_CAP_BYTES, SIGNATURE_HEADER, type BackendRequest } from '../contract/index.js';
import type { CallLogEntry } from './call-log.js';
import { isLoopbackHost } from './loopback.js';
import { createResponder, type StubMode } from './modes.js';
import { ReplayCache } from './replay-cache.js';
import { guardRequest, type Refusal, type RequestIds } from './request-guard.js';
import { UpstreamError, type Reply, type Responder } from './responder.js';
import { toTimestamp } from './timestamp.js';

export const AGENT_STUB_DEFAULTS = {
  host: '127.0.0.1',
  port: 8788,
  maxAgeSeconds: 300,
  maxBodyBytes: DEFAULT_RESPONSE_CAP_BYTES,
  replayCacheSize: 10_000,
} as const;

export interface AgentStubOptions {
  /** The shared secret itself (resolve a reference first with resolveSecretReference). */
  secret: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Key and certificate in PEM, or false for plain http, which only a loopback host may use. */
  tls: { key: string | Buffer; cert: string | Buffer } | false;
  mode?: StubMode;
  /** How far `metadata.sent_at` may be from now, either way, before a request is refused as stale. */
  maxAgeSeconds?: number;
  maxBodyBytes?: number;
  replayCacheSize?: number;
  /** Called once per request, refused ones included. */
  log?: (entry: CallLogEntry) => void;
}

export interface AgentStub {
  /** Where the stub answers, e.g. `https://127.0.0.1:8788/`; every path is served. */
  url: string;
  close(): Promise<void>;
}

/** Options the stub cannot start with (e.g. plain http on a public address); the message says why. */
export class AgentStubConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentStubConfigError';
  }
}

/**
 * Starts the reference agent backend: verifies each request's signature over the raw body, refuses oversized,
 * malformed, stale and replayed requests, and answers the rest in the chosen mode.
 */
export async function startAgentStub(options: AgentStubOptions): Promise<AgentStub> {
  const host = options.host ?? AGENT_STUB_DEFAULTS.host;
  if (options.tls === false && !isLoopbackHost(host)) {
    throw new AgentStubConfigError(`plain http is allowed only on a loopback host, not on ${host}`);
  }
  if (options.secret.length === 0) throw new AgentStubConfigError('the shared secret is empty');
  const handler = createHandler(options);
  const server: Server = options.tls ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, handler) : createHttpServer(handler);
  // Bounds a client that trickles or streams an endless body after its 413.
  server.requestTimeout = 30_000;
  await listen(server, options.port ?? AGENT_STUB_DEFAULTS.port, host);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? AGENT_STUB_DEFAULTS.port);
  const urlHost = isIP(host) === 6 ? `[${host}]` : host;
  return { url: `${options.tls ? 'https' : 'http'}://${urlHost}:${port}/`, close: () => closeServer(server) };
}

function createHandler(options: AgentStubOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const responder = createResponder(options.mode ?? { kind: 'echo' });
  const context = {
    secret: options.secret,
    maxAgeMs: (options.maxAgeSeconds ?? AGENT_STUB_DEFAULTS.maxAgeSeconds) * 1000,
    maxBodyBytes: options.maxBodyBytes ?? AGENT_STUB_DEFAULTS.maxBodyBytes,
    replay: new ReplayCache(options.replayCacheSize ?? AGENT_STUB_DEFAULTS.replayCacheSize),
    mode: options.mode?.kind ?? 'echo',
    responder,
    log: options.log,
  };
  return (req, res) => {
    const startedAt = performance.now();
    const call = new Call(res, startedAt, context.mode, context.log);
    handle(req, call, context).catch((error: unknown) => call.fail(500, 'internal-error', (error as Error).message));
  };
}

interface HandlerContext {
  secret: string;
  maxAgeMs: number;
  maxBodyBytes: number;
  replay: ReplayCache;
  responder: Responder;
}

async function handle(req: IncomingMessage, call: Call, context: HandlerContext): Promise<void> {
  if (req.method !== 'POST') return call.fail(405, 'method-not-allowed', 'only POST is served', { allow: 'POST' });
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    return call.fail(415, 'unsupported-media-type', 'content-type must be application/json');
  }
  if (Number(req.headers['content-length'] ?? 0) > context.maxBodyBytes) return call.tooLarge(context.maxBodyBytes);
  const rawBody = await readBody(req, context.maxBodyBytes);
  if (rawBody === undefined) return call.tooLarge(context.maxBodyBytes);
  const header = req.headers[SIGNATURE_HEADER];
  const verdict = guardRequest(rawBody, Array.isArray(header) ? header[0] : header, { ...context, nowMs: Date.now() });
  if (!verdict.ok) return call.refuse(verdict, verdict.ids);
  await answer(verdict.request, call, context.responder);
}

async function answer(request: BackendRequest, call: Call, responder: Responder): Promise<void> {
  const ids = { invocation_id: request.metadata.invocation_id, round: request.metadata.round };
  const signal = AbortSignal.timeout(request.metadata.timeout_ms);
  let reply: Reply;
  try {
    reply = await responder(request, signal);
  } catch (error) {
    if (signal.aborted) return call.fail(504, 'budget-exceeded', `no answer within ${request.metadata.timeout_ms} ms`, {}, ids);
    if (error instanceof UpstreamError) return call.fail(502, 'upstream-error', error.message, {}, ids);
    throw error;
  }
  call.answer(reply, ids);
}

/**
 * One request's response and its log line, written exactly once. Keeping both together means no path can answer
 * without logging, or log a status it did not send.
 */
class Call {
  constructor(
    private readonly res: ServerResponse,
    private readonly startedAt: number,
    private readonly mode: string,
    private readonly log: ((entry: CallLogEntry) => void) | undefined,
  ) {}

  answer(reply: Reply, ids: RequestIds): void {
    const toolCalls = reply.tool_calls?.length ? reply.tool_calls : null;
    // Validated on the way out so the reference backend can never answer outside the contract it demonstrates.
    const body = BackendResponse.parse({
      content: reply.content,
      tool_calls: toolCalls,
      finish_reason: toolCalls ? 'tool_calls' : 'stop',
      metadata: { latency_ms: this.elapsed(), tokens_used: reply.tokens_used ?? 0 },
    });
    this.send(200, 'application/json', body, {}, { verdict: toolCalls ? 'tool_calls' : 'answered', ids });
  }

  refuse(refusal: Refusal, ids?: RequestIds): void {
    this.fail(refusal.status, refusal.slug, refusal.detail, {}, ids);
  }

  tooLarge(capBytes: number): void {
    // The rest of the body is not read, so the connection cannot be reused.
    this.fail(413, 'too-large', `the body is over ${capBytes} bytes`, { connection: 'close' });
  }

  fail(status: number, slug: string, detail: string, headers: Record<string, string> = {}, ids?: RequestIds): void {
    const problem = { type: `urn:meeting-memory:agent-stub:${slug}`, status, detail };
    this.send(status, 'application/problem+json', problem, headers, { verdict: slug, ids, detail });
  }

  private send(
    status: number,
    contentType: string,
    body: unknown,
    headers: Record<string, string>,
    outcome: { verdict: string; ids?: RequestIds; detail?: string },
  ): void {
    if (this.res.headersSent) {
      this.res.destroy();
      return;
    }
    const text = JSON.stringify(body);
    this.res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text), ...headers });
    this.res.end(text);
    this.log?.({
      time: toTimestamp(Date.now()),
      invocation_id: outcome.ids?.invocation_id ?? null,
      round: outcome.ids?.round ?? null,
      verdict: outcome.verdict,
      status,
      latency_ms: this.elapsed(),
      mode: this.mode,
      ...(outcome.detail ? { detail: outcome.detail } : {}),
    });
  }

  private elapsed(): number {
    return Math.round(performance.now() - this.startedAt);
  }
}

/**
 * Reads the raw body (the bytes the signature covers) up to the cap. Past the cap it keeps draining without
 * buffering instead of destroying the socket, so the client still receives its 413.
 */
function readBody(req: IncomingMessage, capBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > capBytes) {
        chunks.length = 0;
        resolve(undefined);
      } else {
        chunks.push(chunk);
      }
    });
    req.on('end', () => resolve(size > capBytes ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    // Keep-alive connections would otherwise hold close() open until they time out.
    server.closeAllConnections();
  });
}
