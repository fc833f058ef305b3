import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OPERATIONS } from '../../contract/index.js';
import { findCallRecord, type CallRecord } from '../server/call-record.js';
import { MCP_PATH } from '../server/mcp-http.js';
import { HttpProblem } from '../server/problem.js';
import { normalizeTimestamp } from '../store/sqlite-db.js';
import type { AuditEntry, AuditKind, Store } from '../store/store.js';
import { scheduleAuditRetention } from './retention.js';

/** Public documents under `/v1` that are not calls on the API: nobody is audited for reading them. */
const PUBLIC_PATHS = ['/v1/health', '/v1/openapi.json'];
const PUBLIC_PREFIXES = ['/v1/problems/'];
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Operations and routes named by a caller are capped, so a probe cannot write long rows. */
const MAX_OPERATION_LENGTH = 200;

function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0] ?? request.url;
}

/** Every request a surface described, and any other under `/v1` (unknown routes, wrong methods) but the public documents. */
function isApiCall(request: FastifyRequest, call: CallRecord | undefined): boolean {
  if (call) return true;
  const path = pathOf(request);
  return path.startsWith('/v1/') && !PUBLIC_PATHS.includes(path) && !PUBLIC_PREFIXES.some((p) => path.startsWith(p));
}

/** The JSON-RPC method of an MCP message that was not a tool call (initialize, tools/list...). */
function rpcMethod(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const method = (body as Record<string, unknown>).method;
  return typeof method === 'string' ? method : undefined;
}

function operationOf(request: FastifyRequest, call: CallRecord | undefined, surface: AuditEntry['surface']): string {
  const named = call?.operation ?? (surface === 'mcp' ? rpcMethod(request.body) : undefined);
  const operation = named ?? `${request.method} ${request.routeOptions.url ?? pathOf(request)}`;
  return operation.slice(0, MAX_OPERATION_LENGTH);
}

/**
 * Reads and actions are kept for different periods. A call without a principal changed nothing and anyone can send
 * one, so it is kept as a read: unauthenticated noise cannot fill the log for the seven years actions are kept.
 * An MCP protocol message (initialize, tools/list) changes nothing either.
 */
function kindOf(request: FastifyRequest, call: CallRecord | undefined, surface: AuditEntry['surface']): AuditKind {
  if (!call?.caller) return 'read';
  if (call.kind) return call.kind;
  const op = OPERATIONS.find((candidate) => candidate.name === call.operation);
  if (op) return op.access === 'write' ? 'action' : 'read';
  if (surface === 'mcp') return 'read';
  return SAFE_METHODS.has(request.method) ? 'read' : 'action';
}

/** The audit entry of a call as far as it got: the principal if it was known, else the address it came from. */
export function auditEntryOf(request: FastifyRequest, reply: FastifyReply, call: CallRecord | undefined): AuditEntry {
  const surface = call?.surface ?? (pathOf(request) === MCP_PATH ? 'mcp' : 'rest');
  const caller = call?.caller;
  return {
    id: String(request.id),
    at: normalizeTimestamp(new Date(Date.now() - reply.elapsedTime).toISOString()),
    surface,
    tenantId: caller?.tenantId ?? null,
    principalOid: caller?.oid ?? null,
    remoteAddress: caller ? null : request.ip,
    operation: operationOf(request, call, surface),
    kind: kindOf(request, call, surface),
    deploymentId: call?.deploymentId ?? null,
    recordIds: call?.recordIds ?? [],
    status: call?.outcomeStatus ?? reply.statusCode,
    durationMs: Math.round(reply.elapsedTime),
  };
}

/**
 * What an action hands the store to append its audit entry in the change's own transaction (CallContext.auditEntry):
 * the entry of the call as described so far, naming the record written and the status the call answers.
 */
export function auditEntryForWrite(
  request: FastifyRequest,
  reply: FastifyReply,
  call: CallRecord,
): (recordId: string, status: number) => AuditEntry {
  return (recordId, status) => auditEntryOf(request, reply, { ...call, recordIds: [recordId], outcomeStatus: status });
}

/**
 * The audit entry of a request refused before HTTP parsed it (headers over the size limit): no path or principal
 * is known, only the address it came from.
 */
export function unparsedRequestEntry(id: string, remoteAddress: string | null, status: number, operation: string): AuditEntry {
  return {
    id,
    at: normalizeTimestamp(new Date().toISOString()),
    surface: 'rest',
    tenantId: null,
    principalOid: null,
    remoteAddress,
    operation,
    kind: 'read',
    deploymentId: null,
    recordIds: [],
    status,
    durationMs: 0,
  };
}

/**
 * Writes the audit entry of a request that is an API call, before its response goes out, and answers the payload
 * to send: the one given, or a 503 problem if the entry could not be written (for a write: outcome unknown, read it
 * back) instead of an acknowledgement the log does not know. The status and the call record must be final.
 */
export async function recordApiCall(store: Store, request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const call = findCallRecord(request);
  if (!isApiCall(request, call) || call?.auditWritten) return payload;
  try {
    await store.appendAudit(auditEntryOf(request, reply, call));
    return payload;
  } catch (error) {
    request.log.error({ err: error }, 'audit entry not written');
    const problem = new HttpProblem('unavailable', 'The call could not be recorded; for a change, read the record back.');
    reply.removeHeader('location');
    reply.code(problem.status).type('application/problem+json');
    return JSON.stringify(problem.toDocument(request.url, String(request.id)));
  }
}

/**
 * The audit log of the app: one entry per API call (below), and the retention job that prunes it.
 *
 * Writes one audit entry per API call, refused ones included, before its response goes out: the hook runs in
 * `onSend`, once the status and the call record are final but before a byte of the response is written, and
 * the response waits for the store's commit. So no caller ever holds an acknowledgement whose entry is not
 * committed (and for an action, synced to disk). An action that changed memory has its entry already, written by
 * the store in the change's own transaction, so a process that dies in between cannot leave an unaudited change.
 *
 * Registered after every other `onSend` hook, so nothing changes the response once its entry is written.
 */
export function registerAuditLog(app: FastifyInstance, store: Store): void {
  scheduleAuditRetention(app, store);
  app.addHook('onSend', async (request, reply, payload) => recordApiCall(store, request, reply, payload));
}
