import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, ReadResourceResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { OPERATIONS, type OperationName, type ProblemDocument } from '../../src/contract/index.js';
import {
  PROBLEM_META_KEY,
  TOOL_OPERATIONS,
  toolCallAnswerer,
  createMemoryMcpServer,
  mcpToolDefinitions,
  type InvocationOutcome,
  type McpSurfaceOptions,
  type OperationInvoker,
} from '../../src/contract/mcp-surface.js';
import { resourceJson } from '../mcp/helpers.js';

interface Invocation {
  name: OperationName;
  args: Record<string, unknown>;
}

function problem(status: number, title = 'Problem'): ProblemDocument {
  return { type: `/v1/problems/test-${status}`, title, status, detail: `status ${status}` };
}

/** A scripted invoker: the surface's own logic (defaults, hints, resource lookup) is what is under test here. */
function scripted(answer: (call: Invocation) => InvocationOutcome) {
  const calls: Invocation[] = [];
  const invoker: OperationInvoker = {
    async call(name, args) {
      calls.push({ name, args });
      return answer({ name, args });
    },
  };
  return { invoker, calls };
}

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

async function connect(invoker: OperationInvoker, options: McpSurfaceOptions = {}): Promise<Client> {
  const server = createMemoryMcpServer(invoker, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'surface-test', version: '1.0.0' });
  await client.connect(clientSide);
  open.push(client);
  return client;
}

describe('the MCP tool set derived from the contract table', () => {
  it('matches the reviewed snapshot: every tool name, description, input and output schema and annotations', async () => {
    const tools = mcpToolDefinitions();
    await expect(`${JSON.stringify(tools, null, 2)}\n`).toMatchFileSnapshot('__snapshots__/mcp-tools.json');
  });

  it('offers one tool per operation with an MCP tool name: eight reads and four actions', () => {
    const tools = mcpToolDefinitions();
    expect(tools.map((tool) => tool.name)).toEqual(OPERATIONS.flatMap((op) => (op.mcpTool ? [op.mcpTool] : [])));
    expect(tools.filter((tool) => tool.annotations?.readOnlyHint === true)).toHaveLength(8);
    for (const op of TOOL_OPERATIONS) {
      const tool = tools.find((candidate) => candidate.name === op.mcpTool)!;
      expect(tool.title).toBe(op.title);
      expect(tool.description!.startsWith(op.description)).toBe(true);
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(JSON.stringify(tool.outputSchema)).not.toContain('"additionalProperties":false');
      expect(tool.annotations).toEqual(
        op.access === 'read'
          ? { readOnlyHint: true, openWorldHint: false }
          : { readOnlyHint: false, destructiveHint: false, idempotentHint: op.idempotent, openWorldHint: false },
      );
    }
  });

  it('read-only hides exactly the tools not annotated read-only', () => {
    const all = mcpToolDefinitions();
    const readOnly = mcpToolDefinitions({ readOnly: true });
    expect(readOnly.map((tool) => tool.name)).toEqual(
      all.filter((tool) => tool.annotations?.readOnlyHint === true).map((tool) => tool.name),
    );
    expect(all.length - readOnly.length).toBe(4);
  });

  it('a default deployment makes deployment_id optional in every schema and fills it into calls', async () => {
    const tools = mcpToolDefinitions({ defaultDeployment: 'dep-default' });
    for (const tool of tools.filter((t) => t.name !== 'listDeployments')) {
      expect(tool.inputSchema.required ?? []).not.toContain('deployment_id');
      expect(tool.inputSchema.properties).toHaveProperty('deployment_id');
    }
    const { invoker, calls } = scripted(() => ({ ok: true, status: 200, body: { items: [], next_cursor: null } }));
    const client = await connect(invoker, { defaultDeployment: 'dep-default' });
    await client.callTool({ name: 'listTopics', arguments: {} });
    await client.callTool({ name: 'listTopics', arguments: { deployment_id: 'dep-named' } });
    expect(calls.map((call) => call.args.deployment_id)).toEqual(['dep-default', 'dep-named']);
  });

  it('hidden tools are not callable', async () => {
    const { invoker, calls } = scripted(() => ({ ok: true, status: 200, body: {} }));
    const client = await connect(invoker, { readOnly: true });
    await expect(client.callTool({ name: 'updateDecision', arguments: {} })).rejects.toThrow(/Unknown tool/);
    expect(calls).toEqual([]);
  });
});

describe('refusals as tool error results', () => {
  const cases: [string, number, RegExp][] = [
    ['listDecisions', 403, /no grant on that deployment: use a deployment_id from service:\/\/deployments/],
    ['updateDecision', 403, /read-only one: actions need access read_write/],
    ['getMeeting', 404, /list or search first/],
    ['listDecisions', 503, /retry shortly/],
    ['createActionItem', 503, /read the record back before repeating/],
    ['listDecisions', 429, /wait/],
    ['updateActionItem', 502, /retrying will not help/],
  ];
  for (const [tool, status, hint] of cases) {
    it(`${tool} answered ${status}: status, hint and problem document, as text and in _meta`, async () => {
      const refused = problem(status);
      const { invoker } = scripted(() => ({ ok: false, status, problem: refused }));
      const client = await connect(invoker);
      const result = await client.callTool({ name: tool, arguments: { deployment_id: 'd' } });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      const [summary, json] = result.content as { type: string; text: string }[];
      expect(summary!.text).toMatch(new RegExp(`^Error ${status} \\(Problem\\): status ${status}\\n`));
      expect(summary!.text).toMatch(hint);
      expect(JSON.parse(json!.text)).toEqual(refused);
      expect((result._meta as Record<string, unknown>)[PROBLEM_META_KEY]).toEqual(refused);
    });
  }
});

describe('resources', () => {
  const deployments = { items: [{ id: 'dep-a' }, { id: 'dep-b' }, { id: 'dep-c' }] };

  it('service://deployments is the listDeployments body as JSON', async () => {
    const { invoker } = scripted(() => ({ ok: true, status: 200, body: deployments }));
    const client = await connect(invoker);
    const { resources } = await client.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri: 'service://deployments', mimeType: 'application/json' })]);
    const read = await client.readResource({ uri: 'service://deployments' });
    expect(read.contents).toEqual([{ uri: 'service://deployments', mimeType: 'application/json', text: JSON.stringify(deployments) }]);
  });

  it('a meeting is looked for in the default deployment first, then each other one, past 403 and 404', async () => {
    const meeting = { id: 'm1', type: 'meeting' };
    const { invoker, calls } = scripted(({ name, args }) => {
      if (name === 'listDeployments') return { ok: true, status: 200, body: deployments };
      if (args.deployment_id === 'dep-c') return { ok: true, status: 200, body: meeting };
      const status = args.deployment_id === 'dep-a' ? 403 : 404;
      return { ok: false, status, problem: problem(status) };
    });
    const client = await connect(invoker, { defaultDeployment: 'dep-b' });
    const read = await client.readResource({ uri: 'service://meetings/m1' });
    expect(resourceJson(read)).toEqual(meeting);
    expect(calls.filter((call) => call.name === 'getMeeting').map((call) => call.args)).toEqual([
      { deployment_id: 'dep-b', meeting_id: 'm1' },
      { deployment_id: 'dep-a', meeting_id: 'm1' },
      { deployment_id: 'dep-c', meeting_id: 'm1' },
    ]);
  });

  it('a meeting in no deployment is resource-not-found; an outage is a JSON-RPC error carrying the problem', async () => {
    const missing = scripted(({ name }) =>
      name === 'listDeployments' ? { ok: true, status: 200, body: deployments } : { ok: false, status: 404, problem: problem(404) },
    );
    await expect((await connect(missing.invoker)).readResource({ uri: 'service://meetings/m9' })).rejects.toMatchObject({
      code: -32002,
    });
    const outage = scripted(({ name }) =>
      name === 'listDeployments' ? { ok: true, status: 200, body: deployments } : { ok: false, status: 503, problem: problem(503) },
    );
    await expect((await connect(outage.invoker)).readResource({ uri: 'service://meetings/m9' })).rejects.toMatchObject({
      code: -32603,
      data: { status: 503, problem: problem(503) },
    });
    expect(outage.calls.filter((call) => call.name === 'getMeeting')).toHaveLength(1);
  });
});

describe('malformed requests', () => {
  it('answers tools/call params that are not a call, and a resources/read uri that is no URL, with -32602 Invalid params', async () => {
    const { invoker, calls } = scripted(() => ({ ok: true, status: 200, body: {} }));
    const client = await connect(invoker);
    for (const params of [{ name: 'listDecisions', arguments: 'deployment_id=d1' }, { name: 'listDecisions', arguments: [1] }, { arguments: {} }]) {
      await expect(client.request({ method: 'tools/call', params } as never, CallToolResultSchema)).rejects.toMatchObject({
        code: -32602,
      });
    }
    await expect(client.request({ method: 'resources/read', params: { uri: 'not a uri' } }, ReadResourceResultSchema)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('not a resource URI'),
    });
    await expect(client.request({ method: 'resources/read', params: { uri: 42 } } as never, ReadResourceResultSchema)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('params.uri is a resource URI'),
    });
    await expect(client.readResource({ uri: 'service://elsewhere' })).rejects.toMatchObject({ code: -32602 });
    expect(calls).toEqual([]);
  });
});

describe('toolCallAnswerer: a plain tools/call answered without the SDK', () => {
  const page = { items: [{ id: 'd1', text: 'Ship “Atlas” on Friday\n\t"quoted"' }], next_cursor: null };
  const outcomes: Record<string, InvocationOutcome> = {
    records: { ok: true, status: 200, body: page },
    'records as the JSON text REST sent': { ok: true, status: 200, json: JSON.stringify(page) },
    'records as JSON text with line breaks': { ok: true, status: 200, json: JSON.stringify(page, null, 2) },
    'invalid arguments': { ok: false, status: 400, problem: { ...problem(400), invalid_params: [{ name: 'limit', in: 'arguments', reason: 'too big' }] } },
    'read grant on an action': { ok: false, status: 403, problem: problem(403) },
    'missing record': { ok: false, status: 404, problem: problem(404) },
    'outcome unknown': { ok: false, status: 503, problem: problem(503) },
  };

  it.each(Object.entries(outcomes))('gives the registered handler\'s result for %s', async (_label, outcome) => {
    const { invoker } = scripted(() => outcome);
    const client = await connect(invoker);
    const name = outcome.status === 403 || outcome.status === 503 ? 'updateActionItem' : 'listDecisions';
    const args = name === 'listDecisions' ? { deployment_id: 'd1', limit: 5 } : { deployment_id: 'd1', action_item_id: 'a1', status: 'done' };
    const viaSdk = await client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema);
    const calls: unknown[] = [];
    const answer = await toolCallAnswerer()({ jsonrpc: '2.0', id: 'r-7', method: 'tools/call', params: { name, arguments: args } }, async (op, given) => {
      calls.push([op, given]);
      return outcome;
    });
    expect(JSON.parse(answer!)).toEqual({ result: viaSdk, jsonrpc: '2.0', id: 'r-7' });
    // stdio frames messages by line.
    expect(answer).not.toContain('\n');
    expect(calls).toEqual([[name, args]]);
  });

  it('fills in the default deployment and hides what read-only hides, as the handler does', async () => {
    const calls: unknown[] = [];
    const call = async (name: OperationName, args: Record<string, unknown>): Promise<InvocationOutcome> => {
      calls.push([name, args]);
      return { ok: true, status: 200, body: { items: [], next_cursor: null } };
    };
    const message = (name: string) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });
    expect(await toolCallAnswerer({ defaultDeployment: 'dx' })(message('listTopics'), call)).toBeDefined();
    expect(calls).toEqual([['listTopics', { deployment_id: 'dx' }]]);
    expect(toolCallAnswerer({ readOnly: true })(message('createActionItem'), call)).toBeUndefined();
  });

  it('leaves everything else to the SDK: other methods, unknown tools, _meta, extra keys, bad ids and arguments', async () => {
    const call = async (): Promise<InvocationOutcome> => {
      throw new Error('must not be called');
    };
    const base = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'listDecisions', arguments: {} } };
    const others: unknown[] = [
      { ...base, method: 'tools/list' },
      { ...base, params: { name: 'noSuchTool' } },
      { ...base, params: { ...base.params, _meta: { progressToken: 1 } } },
      { ...base, extra: true },
      { ...base, id: null },
      { ...base, id: 1.5 },
      { ...base, jsonrpc: '1.0' },
      { ...base, params: { name: 'listDecisions', arguments: [] } },
      { ...base, params: [] },
      [base],
      'tools/call',
    ];
    for (const message of others) expect(toolCallAnswerer()(message, call)).toBeUndefined();
  });
});
