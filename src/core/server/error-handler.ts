import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { recordApiCall, unparsedRequestEntry } from '../audit/audit-hook.js';
import type { Store } from '../store/store.js';
import { HttpProblem, invalidRequest } from './problem.js';

/** Fastify's own refusals (body parsing, size, content type) mapped onto the contract's problem kinds. */
function fromFastifyError(error: FastifyError): HttpProblem | null {
  switch (error.statusCode) {
    case 413:
      return new HttpProblem('payload-too-large', 'The request body is over 1 MB.');
    case 415:
      return new HttpProblem('unsupported-media-type', 'Send the body as application/json.');
    case 400:
      return invalidRequest([{ name: 'body', in: 'body', reason: error.message }], 'The request body is not valid JSON.');
    default:
      return null;
  }
}

/** Answers a problem document for the error, with the request id, and the headers the problem asks for. */
export function sendProblem(problem: HttpProblem, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply
    .code(problem.status)
    .headers(problem.headers)
    .type('application/problem+json')
    .send(problem.toDocument(request.url, String(request.id)));
}

/** Every failure becomes an RFC 9457 problem document; anything unexpected is a 500 that says nothing inside. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const problem = error instanceof HttpProblem ? error : fromFastifyError(error);
    if (problem) return sendProblem(problem, request, reply);
    request.log.error({ err: error }, 'unexpected error');
    return sendProblem(new HttpProblem('internal', 'Something went wrong on our side.'), request, reply);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(new HttpProblem('not-found', `No route ${request.method} ${request.url.split('?')[0]}.`), request, reply),
  );
}

/** The router's refusals of a path it cannot match: broken percent-encoding, a parameter over its length limit. */
function fromRouterError(error: FastifyError, path: string): HttpProblem {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return invalidRequest([{ name: 'path', in: 'path', reason: 'is not valid percent-encoded UTF-8' }], `The path ${path} cannot be decoded.`);
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return invalidRequest([{ name: 'path', in: 'path', reason: 'has a segment that is too long' }], `The path ${path} has a segment that is too long.`);
    default:
      return new HttpProblem('internal', 'Something went wrong on our side.');
  }
}

/**
 * Fastify's `frameworkErrors`: a request the router refuses before any route (so before any hook) is answered like
 * an unknown route, a problem document with its request id and one audit entry, instead of fastify's own JSON.
 */
export function routerRefusalHandler(store: Store): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, request, reply) => {
    const problem = fromRouterError(error, request.url.split('?')[0] ?? request.url);
    if (problem.status >= 500) request.log.error({ err: error }, 'unexpected router error');
    const id = String(request.id);
    reply.code(problem.status).header('x-request-id', id).type('application/problem+json');
    const document = JSON.stringify(problem.toDocument(request.url, id));
    // No route means no onSend hooks run, so the entry the audit hook would write is written here.
    void recordApiCall(store, request, reply, document).then((payload) => reply.send(payload));
  };
}

/** How long a connection answered before parsing may stay half-open for the client to read the answer and close. */
const CLOSE_GRACE_MS = 5000;
/** Sockets already being answered: the parser reports its error again for every later chunk of the same request. */
const answering = new WeakSet<Socket>();

/** Ends the connection after `response`, letting the client read it (no reset), and drops it if the client lingers. */
function endGracefully(socket: Socket, response: string): void {
  if (socket.writable) socket.end(response);
  setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
}

/** A whole HTTP/1.1 response carrying a problem document, for a socket no fastify reply exists for. */
function rawProblemResponse(problem: HttpProblem, requestId: string): string {
  const body = JSON.stringify(problem.toDocument(undefined, requestId));
  return [
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? ''}`,
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Answers 431 once its audit entry is written (503 if it cannot be), as every API call is answered. */
async function answerHeaderOverflow(store: Store, socket: Socket): Promise<void> {
  const id = randomUUID();
  let problem = new HttpProblem('request-header-fields-too-large', 'The request line and headers are over 16 KB.');
  try {
    await store.appendAudit(unparsedRequestEntry(id, socket.remoteAddress ?? null, problem.status, 'request over the header size limit'));
  } catch {
    problem = new HttpProblem('unavailable', 'The call could not be recorded.');
  }
  endGracefully(socket, rawProblemResponse(problem, id));
}

/**
 * Fastify's `clientErrorHandler`, for what Node's HTTP parser refuses before any request exists. Headers over the
 * size limit get a 431 problem document with a request id and an audit entry; anything else (malformed HTTP, a
 * timeout) gets Node's bare status line. Either way with `Connection: close` and a graceful end, so a keep-alive
 * client sees the close instead of a reset on its next request.
 */
export function clientErrorHandler(store: Store): (error: Error & { code?: string }, socket: Socket) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed || answering.has(socket)) return;
    answering.add(socket);
    if (error.code === 'HPE_HEADER_OVERFLOW') {
      void answerHeaderOverflow(store, socket);
      return;
    }
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    endGracefully(socket, `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
  };
}
