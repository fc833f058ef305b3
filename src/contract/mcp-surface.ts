import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type ReadResourceResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { OPERATIONS, getMeeting, listDeployments, type AnyOperation, type OperationName } from './operations.js';
import { packageVersion } from './package-info.js';
import { isPlainObject } from './plain-object.js';
import type { ProblemDocument } from './problems.js';

/** What a tool or resource handler gets from the SDK: the abort signal, auth info, request id. */
export type McpRequestContext = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What an invoker may use of a request: its abort signal (the client cancelled) and the transport's auth info. */
export type InvocationContext = Pick<McpRequestContext, 'signal' | 'authInfo'>;

/**
 * The answer to one operation call, as both surfaces report it: the REST status and body, or the problem. An
 * invoker that receives the body as JSON text (the stdio side, from REST) may hand over that `json` instead, so a
 * tool answer embeds it rather than parsing and serialising it again.
 */
export type InvocationOutcome =
  | { ok: true; status: number; body: unknown }
  | { ok: true; status: number; json: string }
  | { ok: false; status: number; problem: ProblemDocument };

type Success = Extract<InvocationOutcome, { ok: true }>;

/** The body of a successful outcome, parsed when the invoker handed over its JSON text. */
function bodyOf(outcome: Success): unknown {
  return 'json' in outcome ? JSON.parse(outcome.json) : outcome.body;
}

/**
 * The body's JSON text when the body is an object, fit to embed in a one-line JSON-RPC message: JSON text with a
 * line break between its tokens would end the message early, so such text is serialised again.
 */
function objectJsonOf(outcome: Success): string | undefined {
  if ('json' in outcome && outcome.json.startsWith('{') && !outcome.json.includes('\n')) return outcome.json;
  const body = bodyOf(outcome);
  return isPlainObject(body) ? JSON.stringify(body) : undefined;
}

/**
 * How a side runs operations: the core calls its executor, the stdio server calls the core's REST API. The
 * arguments arrive as the client sent them (with the default deployment filled in); validating them, refinements
 * included, is the invoker's job, and a refusal comes back as a 400 problem whose `invalid_params` are `in:
 * "arguments"`. Only bugs throw.
 */
export interface OperationInvoker {
  call(name: OperationName, args: Record<string, unknown>, context: InvocationContext): Promise<InvocationOutcome>;
}

export interface McpSurfaceOptions {
  /** Hide the tools whose annotations say they change memory. */
  readOnly?: boolean;
  /** Fills in `deployment_id` when a call leaves it out; the tool schemas then mark it optional. */
  defaultDeployment?: string;
}

/** The `_meta` key under which an error result carries the problem document for programs to read. */
export const PROBLEM_META_KEY = 'meeting-memory/problem';

const DEPLOYMENTS_URI = 'service://deployments';
const MEETING_URI_TEMPLATE = 'service://meetings/{meeting_id}';
/** JSON-RPC code the MCP specification gives an unknown resource. */
const RESOURCE_NOT_FOUND = -32002;

/**
 * A JSON-RPC error as the SDK sends it (code, message, data). Not McpError, whose message starts with
 * "MCP error <code>:", a prefix SDK clients add a second time.
 */
class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };

/** The operations offered as MCP tools, in the order of the contract table. */
export const TOOL_OPERATIONS: readonly (AnyOperation & { mcpTool: string })[] = OPERATIONS.filter(
  (op): op is AnyOperation & { mcpTool: string } => op.mcpTool !== null,
);

const SERVER_INSTRUCTIONS = [
  'Cross-meeting memory of one tenant: decisions, open questions, action items, statements, topics and meetings.',
  'Every tool works inside one deployment (a named AI teammate): its deployment_id is an id from the service://deployments resource.',
  'Record ids (decision_id, open_question_id, action_item_id, meeting_id) come from list or searchMemory results; assignee_idp_id is the idp_id of an attribution or assignee.',
  'Lists are newest first; pass next_cursor back as cursor for the next page. Actions change workflow state only and need a read_write grant.',
  'A refused call is an error result with an HTTP-style status, a hint and an RFC 9457 problem document.',
].join('\n');

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  // Input mode leaves plain objects open (no additionalProperties: false), which is what v1's "only adds" needs
  // from an output schema: SDK clients validate structuredContent against it, and a newer core may add fields.
  // Strict input objects keep additionalProperties: false either way, so unknown arguments show as refused.
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/** What a model needs to know about an argument the contract leaves undescribed: where an id comes from, or the choices. */
function fieldHint(field: string, property: JsonSchema): string | undefined {
  if (Array.isArray(property.enum)) return `One of: ${property.enum.join(', ')}`;
  if (field === 'meeting_id') return "A meeting id: the meeting_id of any record, or one of a topic's meetings";
  const kind = /^(\w+)_id$/.exec(field)?.[1];
  if (!kind || kind === 'deployment' || kind.endsWith('idp')) return undefined;
  return `The id of the ${kind.replaceAll('_', ' ')}: the id field of a record from a list or searchMemory result`;
}

function inputSchemaOf(op: AnyOperation, options: McpSurfaceOptions): JsonSchema {
  const schema = jsonSchemaOf(op.input);
  const properties = schema.properties ?? {};
  for (const [field, property] of Object.entries(properties)) {
    const hint = fieldHint(field, property);
    if (hint && property.description === undefined) property.description = hint;
  }
  const assignee = field(properties, 'assignee_idp_id');
  if (assignee) assignee.description = `${assignee.description ?? 'Identity-provider object id'}: the idp_id of an attribution or assignee in a record`;
  const deployment = field(properties, 'deployment_id');
  if (deployment) {
    deployment.description = options.defaultDeployment
      ? `${deployment.description}; default ${options.defaultDeployment}`
      : `${deployment.description}: an id from the service://deployments resource`;
    if (options.defaultDeployment) schema.required = (schema.required ?? []).filter((name) => name !== 'deployment_id');
  }
  return schema;
}

function field(properties: Record<string, JsonSchema>, name: string): JsonSchema | undefined {
  return Object.hasOwn(properties, name) ? properties[name] : undefined;
}

function annotationsOf(op: AnyOperation): ToolAnnotations {
  if (op.access === 'read') return { readOnlyHint: true, openWorldHint: false };
  // Actions change workflow state only: nothing is deleted or overwritten beyond recovery by another action.
  return { readOnlyHint: false, destructiveHint: false, idempotentHint: op.idempotent, openWorldHint: false };
}

function descriptionOf(op: AnyOperation): string {
  const lines = [op.description];
  const fields = Object.keys(op.input.shape);
  if (fields.includes('cursor')) {
    lines.push('Pages: pass the previous result\'s next_cursor as cursor; next_cursor null means there is no more.');
  }
  if (op.access === 'write') {
    lines.push('Touches workflow state only; nothing is deleted. A read-only grant is refused with status 403.');
  }
  lines.push('A refused call returns an error result with its status, a hint and a problem document.');
  return lines.join('\n');
}

/** Whether a tool is shown under the given options: read-only hides every tool not annotated read-only. */
function isOffered(tool: Tool, options: McpSurfaceOptions): boolean {
  return !options.readOnly || tool.annotations?.readOnlyHint === true;
}

const definitionCache = new Map<string, Tool[]>();

function optionsKey(options: McpSurfaceOptions): string {
  return JSON.stringify([Boolean(options.readOnly), options.defaultDeployment ?? null]);
}

/**
 * The MCP tool definitions derived from the contract table under the given options: name, title, description,
 * input and output JSON schemas, annotations. Computed once per option set, since servers are built per need.
 */
export function mcpToolDefinitions(options: McpSurfaceOptions = {}): Tool[] {
  const key = optionsKey(options);
  const cached = definitionCache.get(key);
  if (cached) return cached;
  const tools = TOOL_OPERATIONS.map(
    (op): Tool => ({
      name: op.mcpTool,
      title: op.title,
      description: descriptionOf(op),
      inputSchema: inputSchemaOf(op, options) as Tool['inputSchema'],
      outputSchema: jsonSchemaOf(op.output) as Tool['outputSchema'],
      annotations: annotationsOf(op),
    }),
  ).filter((tool) => isOffered(tool, options));
  definitionCache.set(key, tools);
  return tools;
}

/** A one-line next step for the model, by status: what to change before calling again, or whether to retry. */
function hintFor(op: AnyOperation, problem: ProblemDocument): string {
  switch (problem.status) {
    case 400: {
      const names = (problem.invalid_params ?? []).map((param) => param.name);
      return `Fix the arguments named in invalid_params${names.length ? ` (${names.join(', ')})` : ''} and call again.`;
    }
    case 401:
      return 'The server could not authenticate to memory: the token is missing, expired or refused. Retrying will not help until it is renewed.';
    case 403:
      return op.access === 'write'
        ? 'This principal has no grant on that deployment, or a read-only one: actions need access read_write. Check service://deployments.'
        : 'This principal has no grant on that deployment: use a deployment_id from service://deployments.';
    case 404:
      return 'No such record in this deployment: list or search first to get a valid id.';
    case 429:
      return 'Over the rate limit: wait a little before calling again.';
    case 502:
      return 'The change was refused upstream and not applied; retrying will not help.';
    case 503:
      return op.access === 'write'
        ? 'The outcome is unknown: read the record back before repeating the change.'
        : 'Memory was unreachable: retry shortly.';
    default:
      return 'An unexpected failure; quote the request_id when reporting it.';
  }
}

function errorResult(op: AnyOperation, problem: ProblemDocument): CallToolResult {
  const summary = `Error ${problem.status} (${problem.title})${problem.detail ? `: ${problem.detail}` : ''}`;
  return {
    isError: true,
    content: [
      { type: 'text', text: `${summary}\n${hintFor(op, problem)}` },
      { type: 'text', text: JSON.stringify(problem) },
    ],
    // Not structuredContent: SDK clients validate that against the tool's output schema even on errors.
    _meta: { [PROBLEM_META_KEY]: problem },
  };
}

function successResult(body: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body as Record<string, unknown>,
  };
}

function withDefaultDeployment(
  op: AnyOperation,
  args: Record<string, unknown>,
  options: McpSurfaceOptions,
): Record<string, unknown> {
  if (!options.defaultDeployment || args.deployment_id !== undefined || !('deployment_id' in op.input.shape)) return args;
  return { ...args, deployment_id: options.defaultDeployment };
}

/** Resource reads have no error result: a refusal is a JSON-RPC error carrying the status and problem. */
function resourceError(uri: string, outcome: { status: number; problem: ProblemDocument }): ProtocolError {
  const code =
    outcome.status === 404 ? RESOURCE_NOT_FOUND : outcome.status === 400 ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  const message = `Reading ${uri} failed with ${outcome.status} (${outcome.problem.title})${outcome.problem.detail ? `: ${outcome.problem.detail}` : ''}`;
  return new ProtocolError(code, message, { status: outcome.status, problem: outcome.problem });
}

function jsonContents(uri: string, body: unknown): ReadResourceResult {
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(body) }] };
}

/**
 * The schema a handler is registered with in place of the SDK's request schema, which the SDK parses before the
 * handler runs and answers a mismatch with -32603 Internal error and a zod dump. Malformed params are the caller's
 * mistake: the handler parses them with `paramsOf` and refuses them with -32602 Invalid params.
 */
function anyParams<M extends string>(method: M) {
  return z.object({ method: z.literal(method), params: z.unknown() });
}

/** A request parsed with the SDK's schema for its method, or -32602 saying what well-formed params look like. */
function paramsOf<S extends z.ZodType<{ params: unknown }>>(schema: S, request: unknown, wanted: string): z.output<S>['params'] {
  const parsed = schema.safeParse(request);
  if (!parsed.success) throw new ProtocolError(ErrorCode.InvalidParams, `Invalid params: ${wanted}`);
  return parsed.data.params;
}

const offeredByOptions = new Map<string, Map<string, AnyOperation>>();

/** The operations behind the tools offered under the options, by tool name (computed once per option set). */
function offeredOperations(options: McpSurfaceOptions): Map<string, AnyOperation> {
  const key = optionsKey(options);
  const cached = offeredByOptions.get(key);
  if (cached) return cached;
  const tools = mcpToolDefinitions(options);
  const operations = new Map(
    TOOL_OPERATIONS.filter((op) => tools.some((tool) => tool.name === op.mcpTool)).map((op) => [op.mcpTool, op]),
  );
  offeredByOptions.set(key, operations);
  return operations;
}

function toolResult(op: AnyOperation, outcome: InvocationOutcome): CallToolResult {
  return outcome.ok ? successResult(bodyOf(outcome)) : errorResult(op, outcome.problem);
}

function hasOnlyKeys(value: Record<string, unknown>, allowed: readonly string[]): boolean {
  return Object.keys(value).every((key) => allowed.includes(key));
}

interface PlainToolCall {
  id: string | number;
  op: AnyOperation;
  args: Record<string, unknown>;
}

/** A JSON-RPC request for an offered tool that needs nothing of the SDK (no `_meta`, no task), or undefined. */
function plainToolCall(message: unknown, operations: Map<string, AnyOperation>): PlainToolCall | undefined {
  if (!isPlainObject(message) || !hasOnlyKeys(message, ['jsonrpc', 'id', 'method', 'params'])) return undefined;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== '2.0' || method !== 'tools/call') return undefined;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isInteger(id))) return undefined;
  if (!isPlainObject(params) || !hasOnlyKeys(params, ['name', 'arguments'])) return undefined;
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return undefined;
  const op = typeof params.name === 'string' ? operations.get(params.name) : undefined;
  return op === undefined ? undefined : { id, op, args: params.arguments ?? {} };
}

/** Runs one operation of a tool call: the surface's invoker with the request's context bound. */
export type ToolCall = (name: OperationName, args: Record<string, unknown>) => Promise<InvocationOutcome>;

/**
 * Answers a plain `tools/call` without the SDK's protocol machinery: the JSON-RPC response text, the same result
 * the registered handler gives (a test compares the two), with the body serialised once and set into both the text
 * and `structuredContent`.
 */
async function answerPlainToolCall(
  { id, op, args }: PlainToolCall,
  call: ToolCall,
  options: McpSurfaceOptions,
): Promise<string> {
  let outcome: InvocationOutcome;
  try {
    outcome = await call(op.name, withDefaultDeployment(op, args, options));
  } catch (error) {
    // As the SDK answers a handler that throws.
    const message = error instanceof Error && error.message ? error.message : 'Internal error';
    return JSON.stringify({ jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message } });
  }
  const text = outcome.ok ? objectJsonOf(outcome) : undefined;
  if (text === undefined) return JSON.stringify({ result: toolResult(op, outcome), jsonrpc: '2.0', id });
  return `{"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

/**
 * For a transport that serves one message at a time: a function that answers a plain `tools/call` (an offered
 * tool; no `_meta`) itself, see answerPlainToolCall, and returns undefined at once for anything else, an unknown
 * tool or a malformed message included, which the SDK then handles. The offered tools are looked up once here.
 */
export function toolCallAnswerer(options: McpSurfaceOptions = {}) {
  const operations = offeredOperations(options);
  return (message: unknown, call: ToolCall): Promise<string> | undefined => {
    const request = plainToolCall(message, operations);
    return request === undefined ? undefined : answerPlainToolCall(request, call, options);
  };
}

function registerTools(server: McpServer, invoker: OperationInvoker, options: McpSurfaceOptions): void {
  const tools = mcpToolDefinitions(options);
  const operations = offeredOperations(options);
  // The tools are served through the low-level handlers rather than registerTool: registerTool validates the
  // arguments itself and answers a bare text error, where the contract wants a 400 problem naming invalid_params,
  // and it would recompute every JSON schema on each tools/list.
  server.server.assertCanSetRequestHandler('tools/list');
  server.server.assertCanSetRequestHandler('tools/call');
  server.server.registerCapabilities({ tools: { listChanged: false } });
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.server.setRequestHandler(anyParams('tools/call'), async (request, context) => {
    // The SDK's own tools/call check refuses these first today; this keeps the answer -32602 should it stop.
    const params = paramsOf(CallToolRequestSchema, request, 'params.name is a tool name, params.arguments an object');
    const op = operations.get(params.name);
    if (!op) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool ${params.name}: see tools/list`);
    const args = withDefaultDeployment(op, params.arguments ?? {}, options);
    return toolResult(op, await invoker.call(op.name, args, context));
  });
}

/**
 * The meeting resource names no deployment, so it is looked for in each deployment the caller may read (the
 * default first); a 403 or 404 in one just means "not here".
 */
async function readMeeting(
  invoker: OperationInvoker,
  meetingId: string,
  context: InvocationContext,
  options: McpSurfaceOptions,
): Promise<unknown> {
  const uri = `service://meetings/${meetingId}`;
  const listed = await invoker.call(listDeployments.name, {}, context);
  if (!listed.ok) throw resourceError(uri, listed);
  const ids = (bodyOf(listed) as { items: { id: string }[] }).items.map((deployment) => deployment.id);
  const candidates = [...new Set([...(options.defaultDeployment ? [options.defaultDeployment] : []), ...ids])];
  for (const deploymentId of candidates) {
    const outcome = await invoker.call(getMeeting.name, { deployment_id: deploymentId, meeting_id: meetingId }, context);
    if (outcome.ok) return bodyOf(outcome);
    if (outcome.status !== 403 && outcome.status !== 404) throw resourceError(uri, outcome);
  }
  throw new ProtocolError(RESOURCE_NOT_FOUND, `No meeting ${meetingId} in any deployment this caller may read`, { uri });
}

function registerResources(server: McpServer, invoker: OperationInvoker, options: McpSurfaceOptions): void {
  const deployments = server.registerResource(
    'deployments',
    DEPLOYMENTS_URI,
    { title: 'Deployments', description: listDeployments.description, mimeType: 'application/json' },
    async (uri, context) => {
      const outcome = await invoker.call(listDeployments.name, {}, context);
      if (!outcome.ok) throw resourceError(uri.href, outcome);
      return jsonContents(uri.href, bodyOf(outcome));
    },
  );
  const meeting = server.registerResource(
    'meeting',
    new ResourceTemplate(MEETING_URI_TEMPLATE, { list: undefined }),
    { title: 'Meeting', description: `${getMeeting.description} meeting_id is the meeting_id of any record.`, mimeType: 'application/json' },
    async (uri, variables, context) => {
      const meetingId = variables.meeting_id;
      if (typeof meetingId !== 'string' || meetingId === '') {
        throw new ProtocolError(ErrorCode.InvalidParams, `${uri.href} names no meeting`);
      }
      return jsonContents(uri.href, await readMeeting(invoker, meetingId, context, options));
    },
  );
  // The SDK's resources/read answers a uri that is no string or no URL with -32603 Internal error; this one refuses
  // it as invalid params and otherwise looks the resource up as the SDK does.
  server.server.removeRequestHandler('resources/read');
  server.server.setRequestHandler(anyParams('resources/read'), async (request, context) => {
    const params = paramsOf(ReadResourceRequestSchema, request, 'params.uri is a resource URI from resources/list');
    if (!URL.canParse(params.uri)) {
      throw new ProtocolError(ErrorCode.InvalidParams, `${params.uri} is not a resource URI: see resources/list`);
    }
    const uri = new URL(params.uri);
    if (uri.href === DEPLOYMENTS_URI) return deployments.readCallback(uri, context);
    const variables = meeting.resourceTemplate.uriTemplate.match(uri.href);
    if (variables) return meeting.readCallback(uri, variables, context);
    throw new ProtocolError(ErrorCode.InvalidParams, `Resource ${uri.href} not found: see resources/list`);
  });
}

/**
 * Registers the memory API on an MCP server: a tool per operation of the contract table that has an MCP tool name
 * (eight reads, four actions), the `service://deployments` resource and the `service://meetings/{meeting_id}`
 * template. The core and the stdio server both call this, each with its own invoker, so they cannot drift.
 */
export function registerMemorySurface(server: McpServer, invoker: OperationInvoker, options: McpSurfaceOptions = {}): void {
  registerTools(server, invoker, options);
  registerResources(server, invoker, options);
}

/** A new MCP server named after the package, with usage instructions, carrying the whole memory surface. */
export function createMemoryMcpServer(invoker: OperationInvoker, options: McpSurfaceOptions = {}): McpServer {
  const server = new McpServer(
    { name: 'meeting-memory', title: 'Meeting memory', version: packageVersion() },
    { instructions: SERVER_INSTRUCTIONS },
  );
  registerMemorySurface(server, invoker, options);
  return server;
}
