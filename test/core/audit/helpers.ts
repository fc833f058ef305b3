import type { AuditEntry, Store } from '../../../src/core/store/store.js';
import type { TestCore } from '../../helpers/core.js';

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  requestId: string;
}

/** One HTTP call on a core: `principal` null sends no token; a body goes out as JSON. */
export async function call(
  t: TestCore,
  method: string,
  path: string,
  options: { principal?: number | null; body?: unknown; token?: string; mcp?: boolean } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  const principal = options.principal === undefined ? 0 : options.principal;
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  else if (principal !== null) headers.authorization = `Bearer ${await t.token(principal)}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.mcp) Object.assign(headers, { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' });
  const url = options.mcp ? t.core.mcpUrl : `${t.core.baseUrl}${path}`;
  const response = await fetch(url, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // problem pages and empty bodies stay text
  }
  return { status: response.status, headers: response.headers, body, requestId: response.headers.get('x-request-id') ?? '' };
}

/** One JSON-RPC message to the core's MCP endpoint. */
export function mcp(t: TestCore, message: Record<string, unknown>, principal: number | null = 0): Promise<Answer> {
  return call(t, 'POST', '', { principal, body: { jsonrpc: '2.0', ...message }, mcp: true });
}

/** A tools/call message. */
export function toolCall(name: string, args: Record<string, unknown>): Record<string, unknown> {
  return { id: 1, method: 'tools/call', params: { name, arguments: args } };
}

/** The `oid` claim of a token: the principal the audit log names. */
export function oidOf(token: string): string {
  const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { oid: string };
  return payload.oid;
}

/** Every entry the log holds for one request id in a tenant (null: calls without a principal). */
export async function entriesFor(store: Store, tenantId: string | null, requestId: string): Promise<AuditEntry[]> {
  return (await store.queryAudit(tenantId, { requestId, limit: 10 })).entries;
}
