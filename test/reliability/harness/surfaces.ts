import { ProblemDocument, pathParams, type AnyOperation } from '../../../src/contract/index.js';
import { MCP_HEADERS, MCP_PATH } from './fuzz-mcp.js';
import { jsonRequest, send } from './http.js';

/** What a call came to, on either surface: the status it stands for, the text a client saw, the problem if any. */
export interface Outcome {
  status: number;
  text: string;
  problem?: ProblemDocument;
  /** The successful body (REST body, MCP structuredContent). */
  body?: unknown;
}

/** Fixed, valid values for the fields an operation needs besides its ids. */
const REQUIRED_EXTRAS: Record<string, Record<string, unknown>> = {
  searchMemory: { query: 'renewal' },
  createActionItem: { text: 'isolation probe' },
  updateActionItem: { status: 'done' },
  resolveOpenQuestion: { status: 'resolved' },
  updateDecision: { status: 'confirmed' },
};

/** The operation's flat input: the given ids and filters, plus valid values for whatever else it requires. */
export function inputFor(op: AnyOperation, ids: Record<string, string>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const shape = op.input.shape as Record<string, unknown>;
  const fromIds = Object.fromEntries(Object.entries(ids).filter(([name]) => name in shape));
  return { ...(REQUIRED_EXTRAS[op.name] ?? {}), ...fromIds, ...extra };
}

function problemOf(value: unknown): ProblemDocument | undefined {
  const parsed = ProblemDocument.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** Calls an operation over REST with a flat input, as the generated client would send it. */
export async function callRest(origin: string, token: string, op: AnyOperation, input: Record<string, unknown>): Promise<Outcome> {
  const inPath = pathParams(op);
  const restNames = (op.restNames ?? {}) as Record<string, string>;
  const path = `/v1${op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(input[name])))}`;
  const rest = Object.entries(input).filter(([name]) => !inPath.includes(name));
  if (op.method === 'GET') {
    const query = new URLSearchParams(rest.map(([name, value]): [string, string] => [restNames[name] ?? name, Array.isArray(value) ? value.join(',') : String(value)]));
    const answer = await send(origin, jsonRequest('GET', `${path}${rest.length ? `?${query}` : ''}`, token));
    return { status: answer.status, text: answer.text, problem: answer.status >= 400 ? problemOf(answer.json) : undefined, body: answer.json };
  }
  const answer = await send(origin, jsonRequest(op.method, path, token, Object.fromEntries(rest)));
  return { status: answer.status, text: answer.text, problem: answer.status >= 400 ? problemOf(answer.json) : undefined, body: answer.json };
}

/** One JSON-RPC message to the core's MCP endpoint; the parsed response (or the HTTP failure as text). */
export function mcpMessage(origin: string, token: string, method: string, params: unknown) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  return send(origin, { method: 'POST', path: MCP_PATH, headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` }, body });
}

/** Calls an operation as an MCP tool; a tool error stands for the status of its problem document. */
export async function callMcp(origin: string, token: string, op: AnyOperation, input: Record<string, unknown>): Promise<Outcome> {
  if (!op.mcpTool) throw new Error(`${op.name} is not an MCP tool`);
  const answer = await mcpMessage(origin, token, 'tools/call', { name: op.mcpTool, arguments: input });
  const result = (answer.json as { result?: { isError?: boolean; structuredContent?: unknown; _meta?: Record<string, unknown> } } | undefined)?.result;
  if (answer.status !== 200 || !result) return { status: answer.status >= 400 ? answer.status : 500, text: answer.text };
  if (result.isError) {
    const problem = problemOf(result._meta?.['meeting-memory/problem']);
    return { status: problem?.status ?? 500, text: answer.text, problem };
  }
  return { status: op.successStatus, text: answer.text, body: result.structuredContent };
}
