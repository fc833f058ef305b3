import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pathParams, type Operation } from '../../contract/index.js';
import type { Caller } from '../access/index.js';
import { auditEntryForWrite } from '../audit/audit-hook.js';
import { callRecordOf } from './call-record.js';
import type { CallContext, OperationResult } from './operation-handlers.js';
import { HttpProblem } from './problem.js';
import { parseRestInput } from './rest-input.js';

/**
 * Verifies the bearer token of a request and says who is calling; throws a 401 problem otherwise. The request is
 * there for what wraps the check (the rate limits key refusals by its address).
 */
export type Authenticator = (authorization: string | undefined, request: FastifyRequest) => Promise<Caller>;

/** Runs one validated operation of a table for a verified caller. */
export type Executor<O extends Operation> = (op: O, input: unknown, ctx: CallContext) => Promise<OperationResult>;

export interface RestRoutesDeps<O extends Operation> {
  authenticate: Authenticator;
  /** The table to serve: the memory API's operations, or the admin surface's. */
  operations: readonly O[];
  execute: Executor<O>;
  /** Checked right after the token, before any input is read: the admin table admits admins only. */
  admit?: (caller: Caller) => void;
}

function fastifyPath(contractPath: string): string {
  return `/v1${contractPath.replace(/\{(\w+)\}/g, ':$1')}`;
}

/** The media type of a Content-Type header, without parameters, lowercased. */
function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * The streamed body of an upload route, checked against the operation's types and cap before a byte is read. The
 * iterator leaves the request open when the reader stops early, so a refusal can still be answered.
 */
function uploadOf(op: Operation, request: FastifyRequest): CallContext['upload'] {
  const { contentTypes, maxBytes } = op.upload!;
  const contentType = mediaType(request.headers['content-type']);
  const stream = request.body as Readable | undefined;
  if (stream === undefined || !contentTypes.includes(contentType)) {
    throw new HttpProblem('unsupported-media-type', `Send the file as ${contentTypes.join(' or ')}.`);
  }
  if (Number(request.headers['content-length'] ?? 0) > maxBytes) {
    throw new HttpProblem('payload-too-large', `The file is over ${Math.round(maxBytes / (1024 * 1024))} MB, the most one import takes.`);
  }
  return { contentType, body: stream.iterator({ destroyOnReturn: false }) };
}

/** Authenticate, validate, execute, answer: the same steps for every operation of every table. */
function handlerOf<O extends Operation>(op: O, deps: RestRoutesDeps<O>) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const call = callRecordOf(request, 'rest');
    const params = request.params as Record<string, string>;
    call.operation = op.name;
    call.kind = op.access === 'write' ? 'action' : 'read';
    call.deploymentId = params.deployment_id;
    call.recordIds = pathParams(op)
      .filter((name) => name !== 'deployment_id')
      .map((name) => params[name]!);
    try {
      call.caller = await deps.authenticate(request.headers.authorization, request);
      deps.admit?.(call.caller);
      const input = parseRestInput(op, {
        params,
        query: request.query as Record<string, unknown>,
        body: op.upload ? undefined : request.body,
      });
      const upload = op.upload ? uploadOf(op, request) : undefined;
      const auditEntry = auditEntryForWrite(request, reply, call);
      const result = await deps.execute(op, input, { caller: call.caller, surface: 'rest', auditEntry, ...(upload ? { upload } : {}) });
      if (result.createdId) call.recordIds = [result.createdId];
      if (result.audited) call.auditWritten = true;
      if (result.location) reply.header('location', result.location);
      return reply.code(result.status).send(result.body);
    } finally {
      // Whatever of an upload was not read is drained, so the client finishes sending and reads the answer.
      const stream = op.upload ? (request.body as Readable | undefined) : undefined;
      if (stream && !stream.readableEnded) stream.resume();
    }
  };
}

/**
 * An upload route lives in its own scope: there the body is handed to the handler as the request stream, whatever
 * its type (the handler checks it), and never buffered, so it may be far larger than the app's body limit.
 */
function registerUploadRoute(app: FastifyInstance, op: Operation, handler: ReturnType<typeof handlerOf>): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.route({ method: op.method, url: fastifyPath(op.path), bodyLimit: op.upload!.maxBytes, handler });
  });
}

/** One route per operation of the table, all through the same steps (see handlerOf). */
export function registerRestRoutes<O extends Operation>(app: FastifyInstance, deps: RestRoutesDeps<O>): void {
  for (const op of deps.operations) {
    const handler = handlerOf(op, deps);
    if (op.upload) registerUploadRoute(app, op, handler);
    else app.route({ method: op.method, url: fastifyPath(op.path), handler });
  }
}
