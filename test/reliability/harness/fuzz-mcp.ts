import fc from 'fast-check';
import { OPERATIONS, type AnyOperation, type OperationName } from '../../../src/contract/index.js';
import type { FuzzWorld } from './fuzz-world.js';
import { anyString, bodyOrQueryFields, fieldValue, idValue, unknownField, wrongType } from './fuzz-values.js';
import type { RawRequest } from './http.js';

export const MCP_PATH = '/v1/mcp';

/** The headers a Streamable HTTP client sends with every message. */
export const MCP_HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': '2025-06-18',
} as const;

/** The operations offered as MCP tools. */
export const TOOL_OPERATIONS = OPERATIONS.filter((op): op is AnyOperation & { mcpTool: string } => op.mcpTool !== null);

/** One generated MCP message and, for tools/call, the operation of the tool it names. */
export interface McpCase {
  op: OperationName | null;
  method: string;
  request: RawRequest;
}

function toolArguments(world: FuzzWorld, op: AnyOperation): fc.Arbitrary<unknown> {
  const entries = bodyOrQueryFields(op, []).map(({ name, required }) =>
    fc.oneof(
      { arbitrary: fc.constant(null), weight: required ? 1 : 3 },
      { arbitrary: fieldValue(world, op, name, 'json').map((value): [string, unknown] => [name, value]), weight: required ? 11 : 1 },
    ),
  );
  const known = fc.tuple(...entries).map((pairs) => pairs.filter((pair): pair is [string, unknown] => pair !== null));
  const unknown = fc.oneof(
    { arbitrary: fc.constant<[string, unknown][]>([]), weight: 6 },
    { arbitrary: fc.array(fc.tuple(unknownField, fc.oneof(anyString, wrongType)), { minLength: 1, maxLength: 2 }), weight: 1 },
  );
  return fc.oneof(
    { arbitrary: fc.tuple(known, unknown).map(([a, b]) => Object.fromEntries([...a, ...b])), weight: 20 },
    { arbitrary: fc.constantFrom(null, [], 'text', 7), weight: 1 },
  );
}

function toolCall(world: FuzzWorld): fc.Arbitrary<{ op: OperationName | null; params: unknown }> {
  const known = fc.constantFrom(...TOOL_OPERATIONS).chain((op) =>
    toolArguments(world, op).map((args) => ({ op: op.name as OperationName | null, params: { name: op.mcpTool, arguments: args } as unknown })),
  );
  const unknownTool = fc
    .tuple(fc.oneof(fc.constantFrom('getDecision', 'listDeployments', 'deleteDecision', 'ListDecisions', ''), anyString), fc.dictionary(fc.string({ maxLength: 8 }), anyString, { maxKeys: 2 }))
    .map(([name, args]) => ({ op: null, params: { name, arguments: args } as unknown }));
  return fc.oneof({ arbitrary: known, weight: 12 }, { arbitrary: unknownTool, weight: 1 }, { arbitrary: wrongType.map((params) => ({ op: null, params })), weight: 1 });
}

function resourceRead(world: FuzzWorld): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constant({ uri: 'service://deployments' }),
    idValue(world, 'meeting').map((id) => ({ uri: `service://meetings/${id}` })),
    anyString.map((uri) => ({ uri })),
    fc.constantFrom({ uri: 'service://meetings/' }, { uri: 'file:///etc/passwd' }, { uri: 42 }, {}),
  );
}

/** A JSON-RPC message: tool calls mostly, resource reads, the listing methods, and malformed envelopes. */
function message(world: FuzzWorld): fc.Arbitrary<{ op: OperationName | null; method: string; text: string }> {
  const id = fc.oneof({ arbitrary: fc.integer({ min: 1, max: 1_000_000 }), weight: 10 }, { arbitrary: fc.constantFrom('x', 0, -1, 1.5, 2 ** 60), weight: 1 });
  const envelope = (method: string, params: unknown, messageId: unknown) => JSON.stringify({ jsonrpc: '2.0', id: messageId, method, params });
  const calls = fc.tuple(toolCall(world), id).map(([call, messageId]) => ({ op: call.op, method: 'tools/call', text: envelope('tools/call', call.params, messageId) }));
  const reads = fc.tuple(resourceRead(world), id).map(([params, messageId]) => ({ op: null, method: 'resources/read', text: envelope('resources/read', params, messageId) }));
  const listing = fc
    .tuple(fc.constantFrom('tools/list', 'resources/list', 'resources/templates/list', 'ping', 'prompts/list', 'tools/delete', 'completion/complete'), id)
    .map(([method, messageId]) => ({ op: null, method, text: envelope(method, {}, messageId) }));
  const initialize = id.map((messageId) => ({
    op: null,
    method: 'initialize',
    text: envelope('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } }, messageId),
  }));
  const malformed = fc
    .constantFrom(
      '',
      '{',
      'null',
      '[]',
      '{"jsonrpc":"2.0","id":1}',
      '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
      '{"id":1,"method":"tools/list"}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]',
      '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"listDecisions","arguments":{"__proto__":{"x":1}}}}',
    )
    .map((text) => ({ op: null, method: 'malformed', text }));
  return fc.oneof(
    { arbitrary: calls, weight: 24 },
    { arbitrary: reads, weight: 3 },
    { arbitrary: listing, weight: 2 },
    { arbitrary: initialize, weight: 1 },
    { arbitrary: malformed, weight: 2 },
  );
}

const headerText = fc.string({ unit: 'grapheme-ascii', maxLength: 40 });

/** Transport headers: right nearly always, sometimes a wrong Accept, media type, protocol version or Origin. */
const transportHeaders: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { arbitrary: fc.constant({ ...MCP_HEADERS }), weight: 16 },
  { arbitrary: fc.constantFrom('application/json', 'text/event-stream', 'text/html', '*/*').map((accept) => ({ ...MCP_HEADERS, accept })), weight: 1 },
  { arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16').map((type) => ({ ...MCP_HEADERS, 'content-type': type })), weight: 1 },
  { arbitrary: fc.oneof(fc.constantFrom('1999-01-01', '2024-11-05', 'latest', ''), headerText).map((version) => ({ ...MCP_HEADERS, 'mcp-protocol-version': version })), weight: 1 },
  { arbitrary: fc.constantFrom('https://evil.example', 'null', 'http://127.0.0.1:1', 'not a url').map((origin) => ({ ...MCP_HEADERS, origin })), weight: 1 },
);

function authorization(world: FuzzWorld): fc.Arbitrary<string | undefined> {
  const bearer = (tokens: string[]) => fc.constantFrom(...tokens).map((token) => `Bearer ${token}`);
  return fc.oneof(
    { arbitrary: bearer([...world.writers, ...world.writers, ...world.readers]), weight: 40 },
    { arbitrary: bearer(world.outsiders), weight: 2 },
    { arbitrary: bearer(world.forged), weight: 2 },
    { arbitrary: fc.constant(undefined), weight: 1 },
    { arbitrary: headerText.map((text) => `Bearer ${text}`), weight: 1 },
  );
}

/** POSTs to /v1/mcp, now and then another method or a stray query. */
export function mcpCases(world: FuzzWorld): fc.Arbitrary<McpCase> {
  return fc
    .record({
      message: message(world),
      headers: transportHeaders,
      authorization: authorization(world),
      method: fc.oneof({ arbitrary: fc.constant('POST'), weight: 30 }, { arbitrary: fc.constantFrom('GET', 'DELETE', 'PUT', 'PATCH'), weight: 1 }),
      query: fc.oneof({ arbitrary: fc.constant(''), weight: 20 }, { arbitrary: fc.constantFrom('?sessionId=1', '?a=b&a=c'), weight: 1 }),
    })
    .map(({ message: msg, headers, authorization: auth, method, query }) => {
      const all: Record<string, string> = { ...headers };
      if (auth !== undefined) all.authorization = auth;
      const body = method === 'GET' || method === 'DELETE' ? undefined : msg.text;
      return { op: msg.op, method: msg.method, request: { method, path: MCP_PATH + query, headers: all, body } };
    });
}
