import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { PROBLEM_TYPES, ProblemDocument, type ProblemSlug } from '../../../src/contract/index.js';

/** One request exactly as it goes on the wire: the path is sent unnormalised, headers may repeat. */
export interface RawRequest {
  method: string;
  /** Path and query, already encoded as the caller wants them sent. */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
  /** Milliseconds from sending to the last byte. */
  ms: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Requests this big go on a connection of their own: a body the server refuses unread, or a request line over
 * Node's 16 KB header limit (answered 431 and the socket dropped without `Connection: close`), would otherwise
 * leave a dead socket in the pool for the next request to fail on.
 */
const OWN_CONNECTION_BYTES = 8 * 1024;
/** How long a write error waits for the answer the server may already have sent (a 413 before the body is read). */
const ANSWER_GRACE_MS = 500;

/**
 * Sends one request to an http origin with node:http rather than fetch, so odd paths, repeated headers and any
 * method go out as given. Rejects only when no answer comes (which every suite counts as a connection error).
 */
export function send(origin: string, raw: RawRequest, timeoutMs = 30_000): Promise<Answer> {
  const url = new URL(origin);
  const started = performance.now();
  const headers: Record<string, string | string[]> = { ...raw.headers };
  const size = raw.body === undefined ? 0 : Buffer.byteLength(raw.body);
  if (raw.body !== undefined) headers['content-length'] = String(size);
  const ownConnection = size > OWN_CONNECTION_BYTES || raw.path.length + JSON.stringify(headers).length > OWN_CONNECTION_BYTES;
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(
      { host: url.hostname, port: url.port, method: raw.method, path: raw.path, headers, agent: ownConnection ? false : agent, timeout: timeoutMs },
      (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json: parseJson(text), ms: performance.now() - started });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer to ${raw.method} ${raw.path.slice(0, 200)} within ${timeoutMs} ms`)));
    req.on('error', (error) => {
      // A server may answer and close before the whole body is written (413); the write then fails with EPIPE.
      if (!answered) setTimeout(() => answered || reject(error), ownConnection ? ANSWER_GRACE_MS : 0);
    });
    req.end(raw.body);
  });
}

/** A JSON request with a bearer token: what a well-behaved client sends. */
export function jsonRequest(method: string, path: string, token: string | null, body?: unknown): RawRequest {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return { method, path, headers, body: body === undefined ? undefined : JSON.stringify(body) };
}

function header(answer: Answer, name: string): string | undefined {
  const value = answer.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * What is wrong with a refusal, as a list of sentences (empty when it is a proper RFC 9457 problem document):
 * the media type, the schema, a `type` whose slug has this very status and title, a `request_id` equal to the
 * X-Request-Id header, `invalid_params` on 400, `WWW-Authenticate` on 401 and `Retry-After` on 429.
 */
export function problemViolations(answer: Answer): string[] {
  const found: string[] = [];
  const requestId = header(answer, 'x-request-id');
  if (!requestId) found.push('no X-Request-Id header');
  if (!header(answer, 'content-type')?.startsWith('application/problem+json')) {
    found.push(`content-type ${header(answer, 'content-type')} is not application/problem+json`);
  }
  const parsed = ProblemDocument.safeParse(answer.json);
  if (!parsed.success) return [...found, `not a problem document: ${answer.text.slice(0, 200)}`];
  return [...found, ...documentViolations(parsed.data, answer.status, requestId)].concat(headerViolations(answer, parsed.data));
}

/** The checks of a problem document that do not depend on HTTP (MCP tool errors carry one too). */
export function documentViolations(doc: ProblemDocument, status: number, requestId: string | undefined): string[] {
  const found: string[] = [];
  if (doc.status !== status) found.push(`document status ${doc.status} differs from ${status}`);
  const slug = /^\/v1\/problems\/([a-z-]+)$/.exec(doc.type)?.[1] as ProblemSlug | undefined;
  const kind = slug === undefined ? undefined : PROBLEM_TYPES[slug];
  if (!kind) found.push(`type ${doc.type} is not a known problem page`);
  else {
    if (kind.status !== doc.status) found.push(`type ${doc.type} is for status ${kind.status}, not ${doc.status}`);
    if (kind.title !== doc.title) found.push(`title "${doc.title}" is not the title of ${doc.type}`);
  }
  if (!doc.request_id) found.push('no request_id');
  else if (requestId !== undefined && doc.request_id !== requestId) found.push(`request_id ${doc.request_id} differs from X-Request-Id ${requestId}`);
  if (doc.status === 400 && !(doc.invalid_params && doc.invalid_params.length > 0)) found.push('400 without invalid_params');
  return found;
}

function headerViolations(answer: Answer, doc: ProblemDocument): string[] {
  const found: string[] = [];
  if (doc.status === 401 && !header(answer, 'www-authenticate')?.startsWith('Bearer')) found.push('401 without WWW-Authenticate: Bearer');
  if (doc.status === 429 && !/^\d+$/.test(header(answer, 'retry-after') ?? '')) found.push('429 without a whole-second Retry-After');
  return found;
}

/** Every item of a paged list route, following `next_cursor`; throws on any answer but 200. */
export async function collectPages<T>(origin: string, path: string, token: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const page = `${path}${separator}limit=200${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const answer = await send(origin, jsonRequest('GET', page, token));
    if (answer.status !== 200) throw new Error(`GET ${page} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    const body = answer.json as { items: T[]; next_cursor: string | null };
    items.push(...body.items);
    cursor = body.next_cursor;
  } while (cursor !== null);
  return items;
}
