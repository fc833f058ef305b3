import { ProblemDocument, operationByName } from '../../../src/contract/index.js';
import type { Changes } from './db-snapshot.js';
import type { McpCase } from './fuzz-mcp.js';
import { isAdminOperation, servedOperation, type RestCase } from './fuzz-rest.js';
import { documentViolations, problemViolations, type Answer, type RawRequest } from './http.js';

/** The `_meta` key under which an MCP tool error carries its problem document. */
const PROBLEM_META_KEY = 'meeting-memory/problem';

/** Tables an accepted action may change: the three workflow records, the people they name, their search rows. */
const CHANGED_BY_ACTIONS = /^(action_items|decisions|open_questions|people|search_docs)$/;

/** What a check concluded about one exchange. */
export interface Verdict {
  problems: string[];
  /** True when the request was an action the core carried out, so state may differ afterwards. */
  changedMemory: boolean;
  /** The tables such an action may change (default: the workflow records'); admin actions may change any. */
  mayChange?: RegExp;
  /** The status the call stands for when HTTP says otherwise (an MCP tool error travels in a 200). */
  outcomeStatus?: number;
}

function requestIdOf(answer: Answer): string | undefined {
  const value = answer.headers['x-request-id'];
  return Array.isArray(value) ? value[0] : value;
}

/** Checks every answer shares: no 5xx, a request id of the core's own making. */
function commonViolations(request: RawRequest, answer: Answer): string[] {
  const found: string[] = [];
  if (answer.status >= 500) found.push(`answered ${answer.status}`);
  const requestId = requestIdOf(answer);
  if (!requestId) found.push('no X-Request-Id');
  else if (request.headers?.['x-request-id'] === requestId) found.push('X-Request-Id was taken from the caller');
  return found;
}

/** The REST properties (both tables' routes): a refusal is a consistent problem document; a success matches the route's output schema. */
export function checkRest(c: RestCase, answer: Answer): Verdict {
  const problems = commonViolations(c.request, answer);
  const served = servedOperation(c.op, c.request.method);
  if (c.request.method === 'HEAD') return { problems, changedMemory: false };
  if (answer.status >= 400) return { problems: [...problems, ...problemViolations(answer)], changedMemory: false };
  if (!served) return { problems: [...problems, `answered ${answer.status} to ${c.request.method}, which the route does not take`], changedMemory: false };
  if (answer.status !== served.successStatus) problems.push(`${served.name} answered ${answer.status}, not ${served.successStatus}`);
  const output = served.output.safeParse(answer.json);
  if (!output.success) problems.push(`${served.name} answered a body its output schema refuses: ${output.error.message.slice(0, 300)}`);
  const admin = isAdminOperation(served.name);
  return { problems, changedMemory: served.access === 'write', ...(admin ? { mayChange: /./ } : {}) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toolResultViolations(c: McpCase, result: Record<string, unknown>, requestId: string | undefined): Verdict {
  if (!c.op) return { problems: [], changedMemory: false };
  const op = operationByName(c.op);
  if (result.isError === true) {
    const meta = isObject(result._meta) ? result._meta[PROBLEM_META_KEY] : undefined;
    const doc = ProblemDocument.safeParse(meta);
    if (!doc.success) return { problems: [`tool error without a problem document: ${JSON.stringify(result).slice(0, 300)}`], changedMemory: false };
    const problems = documentViolations(doc.data, doc.data.status, requestId);
    if (doc.data.status >= 500) problems.push(`tool error with status ${doc.data.status}`);
    return { problems, changedMemory: false, outcomeStatus: doc.data.status };
  }
  const output = op.output.safeParse(result.structuredContent);
  const problems = output.success ? [] : [`${op.name} gave structuredContent its output schema refuses: ${output.error.message.slice(0, 300)}`];
  return { problems, changedMemory: op.access === 'write', outcomeStatus: op.successStatus };
}

/**
 * The MCP properties: no 5xx and no internal JSON-RPC error; refusals at the HTTP layer are problem documents
 * (or, from the MCP transport, JSON-RPC errors); tool errors carry a consistent problem document; tool results
 * match the operation's output schema.
 */
export function checkMcp(c: McpCase, answer: Answer): Verdict {
  const problems = commonViolations(c.request, answer);
  const contentType = String(answer.headers['content-type'] ?? '');
  if (contentType.startsWith('application/problem+json')) return { problems: [...problems, ...problemViolations(answer)], changedMemory: false };
  if (answer.status === 202 && answer.text === '') return { problems, changedMemory: false };
  const message = answer.json;
  if (!isObject(message) || message.jsonrpc !== '2.0') {
    return { problems: [...problems, `answered ${answer.status} with neither a problem document nor a JSON-RPC message: ${answer.text.slice(0, 200)}`], changedMemory: false };
  }
  if (isObject(message.error)) {
    const { code, data } = message.error;
    if (typeof code !== 'number' || typeof message.error.message !== 'string') problems.push(`malformed JSON-RPC error ${JSON.stringify(message.error)}`);
    const status = isObject(data) && typeof data.status === 'number' ? data.status : undefined;
    if (code === -32603 && !(status !== undefined && status < 500)) problems.push(`internal JSON-RPC error: ${JSON.stringify(message.error).slice(0, 300)}`);
    return { problems, changedMemory: false };
  }
  if (answer.status >= 400) problems.push(`HTTP ${answer.status} with a JSON-RPC result`);
  if (!isObject(message.result)) return { problems: [...problems, 'JSON-RPC response without result or error'], changedMemory: false };
  if (c.method !== 'tools/call') return { problems, changedMemory: false };
  const verdict = toolResultViolations(c, message.result, requestIdOf(answer));
  return { ...verdict, problems: [...problems, ...verdict.problems] };
}

/** A refused or read-only call must leave memory as it was; an action may touch only workflow records. */
export function stateViolations(verdict: Verdict, changes: Changes): string[] {
  const allowed = verdict.mayChange ?? CHANGED_BY_ACTIONS;
  const unexpected = verdict.changedMemory ? changes.changed.filter((table) => !allowed.test(table)) : changes.changed;
  return unexpected.length === 0 ? [] : [`changed ${unexpected.join(', ')}${verdict.changedMemory ? ' (an action may not)' : ' although nothing was changed'}`];
}

/**
 * The audit log's side of one exchange: exactly one new entry, under the request id the caller was given, with the
 * status the call stands for (`status`; null where that is the core's to say, as for an MCP resource read, whose
 * JSON-RPC error travels in a 200). Returns [] when the core has no audit log.
 */
export function auditViolations(changes: Changes, answer: Answer, auditTables: string[], status: number | null): string[] {
  if (auditTables.length === 0) return [];
  const rows = changes.appended.flatMap((appended) => appended.rows);
  const requestId = requestIdOf(answer);
  if (rows.length !== 1) return [`${rows.length} audit entries for one request`];
  const row = rows[0]!;
  const found: string[] = [];
  if (row.id !== requestId) found.push(`the audit entry is ${String(row.id)}, not the request id ${requestId}`);
  if (status !== null && row.status !== status) found.push(`the audit entry says status ${String(row.status)}, the caller saw ${status}`);
  return found;
}

function shorten(text: string, max = 400): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} chars)`;
}

/** A failing exchange as a reader needs it: the request as sent (tokens cut) and the answer. */
export function describeExchange(request: RawRequest, answer: Answer | Error, problems: string[]): string {
  const headers = Object.fromEntries(
    Object.entries(request.headers ?? {}).map(([name, value]) => [name, shorten(String(value), name === 'authorization' ? 40 : 200)]),
  );
  const sent = `${request.method} ${shorten(request.path, 300)}\nheaders: ${JSON.stringify(headers)}\nbody: ${shorten(String(request.body ?? ''), 500)}`;
  const got = answer instanceof Error ? `error: ${answer.message}` : `answer: ${answer.status} ${shorten(answer.text, 600)}`;
  return `${problems.join('; ')}\n${sent}\n${got}`;
}
