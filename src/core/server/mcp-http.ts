import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { operationByName, pathParams, type OperationName } from '../../contract/index.js';
import {
  createMemoryMcpServer,
  toolCallAnswerer,
  type InvocationOutcome,
  type InvocationContext,
  type OperationInvoker,
} from '../../contract/mcp-surface.js';
import type { Caller } from '../access/index.js';
import { auditEntryForWrite } from '../audit/audit-hook.js';
import type { AuditEntry } from '../store/store.js';
import { callRecordOf, type CallRecord } from './call-record.js';
import { toInvalidParams } from './invalid-params.js';
import type { OperationExecutor } from './operation-handlers.js';
import { HttpProblem, invalidRequest } from './problem.js';
import type { Authenticator } from './rest-routes.js';

export const MCP_PATH = '/v1/mcp';

export interface McpHttpOptions {
  authenticate: Authenticator;
  execute: OperationExecutor;
  /**
   * Browser origins allowed besides the listening address itself: the core's public origin and any configured.
   * Called per request, since the public origin may only be known once the core listens.
   */
  allowedOrigins?: () => readonly string[];
}

/** What the core's invoker needs to know about the request a JSON-RPC message came in. */
export interface McpCallScope {
  caller: Caller;
  /** Described as each operation runs, for the audit log. */
  call: CallRecord;
  /** Builds the call's audit entry for an action's store write (CallContext.auditEntry); without it, the hook writes it. */
  auditEntry?: (recordId: string, status: number) => AuditEntry;
  /** The request id and path a problem document names. */
  requestId: string;
  instance: string;
  /** Reports a bug; the caller gets a 500 problem that says nothing inside. */
  onUnexpected(error: unknown): void;
}

function describeCall(call: CallRecord, name: OperationName, args: Record<string, unknown>): void {
  const op = operationByName(name);
  call.operation = name;
  call.deploymentId = typeof args.deployment_id === 'string' ? args.deployment_id : undefined;
  call.recordIds = pathParams(op)
    .filter((param) => param !== 'deployment_id')
    .map((param) => args[param])
    .filter((value): value is string => typeof value === 'string');
}

function refusal(problem: HttpProblem, scope: McpCallScope): InvocationOutcome {
  scope.call.outcomeStatus = problem.status;
  return { ok: false, status: problem.status, problem: problem.toDocument(scope.instance, scope.requestId) };
}

type ScopedCall = (name: OperationName, args: Record<string, unknown>, scope: McpCallScope) => Promise<InvocationOutcome>;

/**
 * Runs tool calls through the same validation and executor as REST: the arguments are the operation's flat input,
 * so a refusal names them `in: "arguments"`. Each call is described on the request's call record.
 */
function coreInvoker(execute: OperationExecutor, scopeOf: (context: InvocationContext) => McpCallScope): OperationInvoker {
  const call = scopedCall(execute);
  return { call: (name, args, context) => call(name, args, scopeOf(context)) };
}

function scopedCall(execute: OperationExecutor): ScopedCall {
  return async (name, args, scope) => {
    describeCall(scope.call, name, args);
    const op = operationByName(name);
    try {
      const parsed = op.input.safeParse(args);
      if (!parsed.success) {
        throw invalidRequest(toInvalidParams(parsed.error.issues, (field) => ({ name: field, in: 'arguments' }), 'arguments'));
      }
      const result = await execute(op, parsed.data, { caller: scope.caller, surface: 'mcp', ...(scope.auditEntry ? { auditEntry: scope.auditEntry } : {}) });
      if (result.createdId) scope.call.recordIds = [result.createdId];
      if (result.audited) scope.call.auditWritten = true;
      scope.call.outcomeStatus = result.status;
      return { ok: true, status: result.status, body: result.body };
    } catch (error) {
      if (error instanceof HttpProblem) return refusal(error, scope);
      scope.onUnexpected(error);
      return refusal(new HttpProblem('internal', 'Something went wrong on our side.'), scope);
    }
  };
}

/**
 * An MCP server with the whole memory surface, running calls on the core's executor for the caller that
 * `scopeOf` finds for each message. The HTTP endpoint finds it in the message's auth info.
 */
export function createCoreMcpServer(
  execute: OperationExecutor,
  scopeOf: (context: InvocationContext) => McpCallScope,
): McpServer {
  return createMemoryMcpServer(coreInvoker(execute, scopeOf));
}

const SCOPE_KEY = 'meeting-memory/scope';

function scopeFromAuthInfo(context: InvocationContext): McpCallScope {
  const scope = context.authInfo?.extra?.[SCOPE_KEY] as McpCallScope | undefined;
  if (!scope) throw new Error('MCP message without its HTTP request scope');
  return scope;
}

/**
 * MCP servers with the whole surface registered, lent out one per HTTP request. A stateless Streamable HTTP
 * transport serves exactly one request and a server holds one transport at a time, so each request gets a fresh
 * transport and an idle server; building a server per request measured several times the cost of reusing one.
 */
class ServerPool {
  private readonly idle: McpServer[] = [];

  constructor(
    private readonly build: () => McpServer,
    private readonly maxIdle: number,
  ) {}

  async serve(request: Request, parsedBody: unknown, authInfo: AuthInfo): Promise<Response> {
    const server = this.idle.pop() ?? this.build();
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody, authInfo });
    } finally {
      // Closing detaches the server from the transport, so it can take the next request.
      await transport.close();
      if (this.idle.length < this.maxIdle) this.idle.push(server);
    }
  }
}

function normalizeOrigin(origin: string): string | null {
  try {
    const url = new URL(origin);
    return url.origin === 'null' ? null : url.origin;
  } catch {
    return null;
  }
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** The origins a page served by this core itself would send: the address it was reached on, loopback names too. */
function ownOrigins(request: FastifyRequest): string[] {
  const { localAddress, localPort } = request.raw.socket;
  if (!localAddress || !localPort) return [];
  const address = localAddress.replace(/^::ffff:/, '');
  const hosts = [address.includes(':') ? `[${address}]` : address];
  if (LOOPBACK.has(localAddress)) hosts.push('localhost', '127.0.0.1', '[::1]');
  return hosts.map((host) => normalizeOrigin(`${request.protocol}://${host}:${localPort}`)).filter((o) => o !== null);
}

/**
 * DNS-rebinding guard: a browser always sends `Origin`, and a rebound page's origin is the attacker's name, not
 * ours. Clients that are not browsers send none and pass.
 */
function checkOrigin(request: FastifyRequest, allowed: McpHttpOptions['allowedOrigins']): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  const normalized = normalizeOrigin(origin);
  const accepted = [...ownOrigins(request), ...(allowed?.() ?? []).map(normalizeOrigin)];
  if (normalized === null || !accepted.includes(normalized)) {
    throw new HttpProblem('forbidden', `Origin ${origin} may not call the MCP endpoint.`);
  }
}

/** The fastify request as the web-standard Request the SDK transport reads (headers only: the body is parsed). */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  // The transport only reports the URL to handlers; a fixed origin keeps a malformed Host from failing the call.
  return new Request(`http://localhost${request.url}`, { method: 'POST', headers });
}

async function sendResponse(response: Response, reply: FastifyReply): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => reply.header(name, value));
  const text = await response.text();
  return text === '' ? reply.send() : reply.send(text);
}

/**
 * Whether the SDK's transport would take this request's headers (Accept, Content-Type, MCP-Protocol-Version). Only
 * then may a tool call skip it: the transport's refusals stay its own.
 */
function headersAsTheSdkWants(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  const version = request.headers['mcp-protocol-version'];
  return (
    accept !== undefined &&
    accept.includes('application/json') &&
    accept.includes('text/event-stream') &&
    isJsonContentType(request.headers['content-type'] ?? null) &&
    (version === undefined || (typeof version === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(version)))
  );
}

/** JSON-RPC batches would put several calls (and audit entries, and rate-limit counts) behind one HTTP request. */
function batchRefusal(reply: FastifyReply): FastifyReply {
  return reply.code(400).type('application/json').send({
    jsonrpc: '2.0',
    error: { code: -32600, message: 'Batches are not supported: send one JSON-RPC message per request.' },
    id: null,
  });
}

/**
 * MCP over Streamable HTTP at `/v1/mcp`, stateless with JSON responses: the same bearer authentication, grants,
 * validation and executor as REST, and each call described on the request's call record (surface `mcp`) for the
 * audit log. GET and DELETE (server streams and sessions) answer 405, as a stateless server has neither.
 */
export function registerMcpHttp(app: FastifyInstance, options: McpHttpOptions): void {
  const pool = new ServerPool(() => createCoreMcpServer(options.execute, scopeFromAuthInfo), 32);
  const callTool = scopedCall(options.execute);
  const answerToolCall = toolCallAnswerer();

  app.post(MCP_PATH, async (request, reply) => {
    const call = callRecordOf(request, 'mcp');
    checkOrigin(request, options.allowedOrigins);
    const caller = await options.authenticate(request.headers.authorization, request);
    call.caller = caller;
    if (Array.isArray(request.body)) return batchRefusal(reply);
    const scope: McpCallScope = {
      caller,
      call,
      auditEntry: auditEntryForWrite(request, reply, call),
      requestId: String(request.id),
      instance: request.url,
      onUnexpected: (error) => request.log.error({ err: error }, 'unexpected error in an MCP call'),
    };
    const answer = headersAsTheSdkWants(request) && answerToolCall(request.body, (name, args) => callTool(name, args, scope));
    if (answer) return reply.type('application/json').send(await answer);
    const token = request.headers.authorization?.replace(/^Bearer\s+/i, '') ?? '';
    const authInfo: AuthInfo = { token, clientId: caller.clientId, scopes: [], extra: { [SCOPE_KEY]: scope } };
    return sendResponse(await pool.serve(webRequest(request), request.body, authInfo), reply);
  });

  const notAllowed = async () => {
    throw new HttpProblem('method-not-allowed', 'The MCP endpoint is stateless: POST one JSON-RPC message per request.', {
      headers: { allow: 'POST' },
    });
  };
  app.get(MCP_PATH, notAllowed);
  app.delete(MCP_PATH, notAllowed);
}
