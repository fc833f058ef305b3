import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decision, Deployment, Meeting, ProblemDocument, operationByName } from '../../../src/contract/index.js';
import { TOOL_OPERATIONS } from '../../../src/contract/mcp-surface.js';
import { createTokenVerifier } from '../../../src/core/auth/verifier.js';
import { buildApp } from '../../../src/core/server/app.js';
import { DEFAULT_AUDIENCE } from '../../../src/core/server/serve.js';
import { startDemoCore, type TestCore } from '../../helpers/core.js';
import { resourceJson, toolProblem } from '../../mcp/helpers.js';

const READER = 0;
const WRITER = 1;
const PROTOCOL_HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': '2025-06-18',
};

let t: TestCore;
let dep1: string;
const clients: Client[] = [];

async function connect(principal: number): Promise<Client> {
  const token = await t.token(principal);
  const client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(t.core.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  clients.push(client);
  return client;
}

async function rest(path: string, principal = READER): Promise<any> {
  const response = await fetch(`${t.core.baseUrl}${path}`, { headers: { authorization: `Bearer ${await t.token(principal)}` } });
  expect(response.status).toBe(200);
  return response.json();
}

/** One raw JSON-RPC POST, for what the SDK client hides: statuses, headers, problem bodies. */
async function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(t.core.mcpUrl, { method: 'POST', headers: { ...PROTOCOL_HEADERS, ...headers }, body: JSON.stringify(body) });
}

const LIST_CALL = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

beforeAll(async () => {
  t = await startDemoCore();
  dep1 = t.creds.deployments[0]!.id;
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t?.stop();
});

describe('MCP over Streamable HTTP at /v1/mcp', () => {
  it('lists every tool with its annotations', async () => {
    const client = await connect(READER);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_OPERATIONS.map((op) => op.mcpTool));
    for (const tool of tools) {
      const op = operationByName(tool.name);
      expect(tool.annotations?.readOnlyHint).toBe(op.access === 'read');
      if (op.access === 'write') expect(tool.annotations).toMatchObject({ destructiveHint: false, idempotentHint: op.idempotent });
    }
  });

  it('answers every read tool with records that match its output schema', async () => {
    const client = await connect(READER);
    const decisions = await client.callTool({ name: 'listDecisions', arguments: { deployment_id: dep1, limit: 2 } });
    const meetingId = Decision.parse((decisions.structuredContent as { items: unknown[] }).items[0]).meeting_id;
    const calls: Record<string, Record<string, unknown>> = {
      listDecisions: { deployment_id: dep1 },
      listOpenQuestions: { deployment_id: dep1 },
      listActionItems: { deployment_id: dep1, status: 'open' },
      listStatements: { deployment_id: dep1, meeting_id: meetingId, order: 'asc' },
      listTopics: { deployment_id: dep1 },
      searchMemory: { deployment_id: dep1, query: 'pricing' },
      getMeeting: { deployment_id: dep1, meeting_id: meetingId },
    };
    for (const op of TOOL_OPERATIONS.filter((candidate) => candidate.access === 'read')) {
      const result = await client.callTool({ name: op.mcpTool, arguments: calls[op.mcpTool]! });
      expect(result.isError, op.mcpTool).toBeFalsy();
      op.output.parse(result.structuredContent);
      const items = (result.structuredContent as { items?: unknown[]; results?: unknown[] }).items ??
        (result.structuredContent as { results?: unknown[] }).results ?? [result.structuredContent];
      expect(items.length, op.mcpTool).toBeGreaterThan(0);
    }
  });

  it('returns the same records as REST for the same query, and its cursors page on REST too', async () => {
    const client = await connect(READER);
    const mcpPage = (await client.callTool({ name: 'listDecisions', arguments: { deployment_id: dep1, limit: 4 } }))
      .structuredContent as { items: unknown[]; next_cursor: string };
    const restPage = await rest(`/deployments/${dep1}/decisions?limit=4`);
    expect(mcpPage.items).toEqual(restPage.items);
    expect(typeof mcpPage.next_cursor).toBe('string');

    const mcpNext = (
      await client.callTool({ name: 'listDecisions', arguments: { deployment_id: dep1, limit: 4, cursor: mcpPage.next_cursor } })
    ).structuredContent as { items: unknown[] };
    const restNext = await rest(`/deployments/${dep1}/decisions?limit=4&cursor=${encodeURIComponent(mcpPage.next_cursor)}`);
    expect(restNext.items).toEqual(mcpNext.items);

    const search = await client.callTool({
      name: 'searchMemory',
      arguments: { deployment_id: dep1, query: 'launch date', types: ['decision', 'action_item'], limit: 5 },
    });
    const restSearch = await rest(`/deployments/${dep1}/search?q=launch%20date&types=decision,action_item&limit=5`);
    expect((search.structuredContent as { results: unknown[] }).results).toEqual(restSearch.results);

    const items = (await client.callTool({ name: 'listActionItems', arguments: { deployment_id: dep1, status: 'open' } }))
      .structuredContent as { items: unknown[] };
    expect(items.items).toEqual((await rest(`/deployments/${dep1}/action-items?status=open`)).items);

    const meetingId = (restPage.items[0] as { meeting_id: string }).meeting_id;
    const meeting = await client.callTool({ name: 'getMeeting', arguments: { deployment_id: dep1, meeting_id: meetingId } });
    expect(meeting.structuredContent).toEqual(await rest(`/deployments/${dep1}/meetings/${meetingId}`));
  });

  it('changes workflow state with a read_write grant, as REST then reads it', async () => {
    const client = await connect(WRITER);
    const { items } = await rest(`/deployments/${dep1}/open-questions?limit=1`, WRITER);
    const question = items[0] as { id: string };
    const result = await client.callTool({
      name: 'resolveOpenQuestion',
      arguments: { deployment_id: dep1, open_question_id: question.id, status: 'resolved', note: 'Answered over MCP' },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ id: question.id, status: 'resolved', note: 'Answered over MCP' });
    expect(await rest(`/deployments/${dep1}/open-questions/${question.id}`, WRITER)).toEqual(result.structuredContent);
  });

  it("refuses a read-only principal's action with status 403", async () => {
    const client = await connect(READER);
    const { items } = await rest(`/deployments/${dep1}/decisions?limit=1`);
    const result = await client.callTool({
      name: 'updateDecision',
      arguments: { deployment_id: dep1, decision_id: items[0].id, status: 'superseded' },
    });
    expect(toolProblem(result)).toMatchObject({ status: 403, title: 'Not allowed' });
    expect(await rest(`/deployments/${dep1}/decisions/${items[0].id}`)).toMatchObject({ status: items[0].status });
  });

  it('refuses bad arguments with invalid_params in "arguments", and the problem names the request id', async () => {
    const client = await connect(READER);
    const result = await client.callTool({
      name: 'searchMemory',
      arguments: { deployment_id: dep1, query: '   ', limit: 500, types: ['meeting'] },
    });
    const problem = toolProblem(result);
    expect(problem.status).toBe(400);
    expect(problem.invalid_params?.map((param) => [param.name, param.in]).sort()).toEqual([
      ['limit', 'arguments'],
      ['query', 'arguments'],
      ['types.0', 'arguments'],
    ]);

    const raw = await post(
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'listTopics', arguments: { deployment_id: dep1, limit: 0 } } },
      { authorization: `Bearer ${await t.token(READER)}` },
    );
    expect(raw.status).toBe(200);
    const body = (await raw.json()) as { result: { isError: boolean; _meta: unknown } };
    expect(toolProblem(body.result).request_id).toBe(raw.headers.get('x-request-id'));
  });

  // Plain tool calls skip the SDK's transport (answerToolCall); with _meta they take it. Both must answer alike.
  it('answers a plain tool call as the SDK path answers the same call with _meta, refusals included', async () => {
    const authorization = `Bearer ${await t.token(READER)}`;
    const calls: [string, Record<string, unknown>][] = [
      ['listDecisions', { deployment_id: dep1, limit: 3 }],
      ['searchMemory', { deployment_id: dep1, query: 'pricing', limit: 2 }],
      ['listTopics', { deployment_id: dep1, limit: 0 }],
      ['createActionItem', { deployment_id: dep1, text: 'Never created: the reader may not act' }],
      ['getMeeting', { deployment_id: dep1, meeting_id: 'no-such-meeting' }],
      ['listDecisions', { deployment_id: t.creds.deployments[1]!.id }],
      ['noSuchTool', {}],
    ];
    const answer = async (params: Record<string, unknown>) => {
      const response = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params }, { authorization });
      const requestId = response.headers.get('x-request-id')!;
      return { status: response.status, type: response.headers.get('content-type'), body: (await response.text()).replaceAll(requestId, 'RID') };
    };
    for (const [name, args] of calls) {
      const plain = await answer({ name, arguments: args });
      const viaSdk = await answer({ name, arguments: args, _meta: { note: 'takes the SDK path' } });
      expect(plain.status).toBe(200);
      expect({ ...plain, body: JSON.parse(plain.body) }).toEqual({ ...viaSdk, body: JSON.parse(viaSdk.body) });
    }
  });

  it('reads the deployments resource and a meeting through its template', async () => {
    const client = await connect(READER);
    const deployments = await client.readResource({ uri: 'service://deployments' });
    const listed = resourceJson(deployments) as { items: unknown[] };
    expect(listed.items.map((item) => Deployment.parse(item).id)).toEqual([dep1]);
    expect(listed).toEqual(await rest('/deployments'));

    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(['service://meetings/{meeting_id}']);
    const { items } = await rest(`/deployments/${dep1}/decisions?limit=1`);
    const uri = `service://meetings/${items[0].meeting_id}`;
    const meeting = await client.readResource({ uri });
    expect(meeting.contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
    expect(Meeting.parse(resourceJson(meeting))).toEqual(
      await rest(`/deployments/${dep1}/meetings/${items[0].meeting_id}`),
    );
    await expect(client.readResource({ uri: 'service://meetings/not-a-meeting' })).rejects.toMatchObject({ code: -32002 });
  });

  it('answers 401 with WWW-Authenticate before any JSON-RPC, without or with a bad token', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-a-token' }] as Record<string, string>[]) {
      const response = await post(LIST_CALL, headers);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(ProblemDocument.parse(await response.json()).status).toBe(401);
    }
  });

  it("refuses a browser Origin that is not the core's own with 403, and lets its own through", async () => {
    const authorization = `Bearer ${await t.token(READER)}`;
    const foreign = await post(LIST_CALL, { authorization, origin: 'http://attacker.example:8080' });
    expect(foreign.status).toBe(403);
    expect(ProblemDocument.parse(await foreign.json()).type).toBe('/v1/problems/forbidden');
    const rebound = await post(LIST_CALL, { authorization, origin: `http://rebound.example:${new URL(t.core.origin).port}` });
    expect(rebound.status).toBe(403);
    for (const origin of [t.core.origin, t.core.origin.replace('127.0.0.1', 'localhost')]) {
      const own = await post(LIST_CALL, { authorization, origin });
      expect(own.status, origin).toBe(200);
    }
  });

  it('lets a configured origin through', async () => {
    const keys = (await (await fetch(`${t.creds.authority}/discovery/v2.0/keys`)).json()) as JSONWebKeySet;
    const verifier = createTokenVerifier({ mode: 'builtin', issuerBaseUrl: () => t.core.origin, audience: DEFAULT_AUDIENCE, keys });
    const { app } = await buildApp({
      store: t.core.store,
      authenticate: (header) => verifier.verify(header),
      mcpAllowedOrigins: () => ['https://agent.example.com'],
    });
    try {
      const inject = (origin: string) =>
        app.inject({
          method: 'POST',
          url: '/v1/mcp',
          headers: { ...PROTOCOL_HEADERS, authorization: `Bearer ${readerToken}`, origin },
          payload: LIST_CALL,
        });
      const readerToken = await t.token(READER);
      expect((await inject('https://agent.example.com')).statusCode).toBe(200);
      expect((await inject('https://other.example.com')).statusCode).toBe(403);
    } finally {
      await app.close();
    }
  });

  it('answers GET and DELETE with 405 (stateless: no streams, no sessions) and refuses batches', async () => {
    const authorization = `Bearer ${await t.token(READER)}`;
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(t.core.mcpUrl, { method, headers: { accept: 'text/event-stream', authorization } });
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
    const batch = await post([LIST_CALL, { ...LIST_CALL, id: 2 }], { authorization });
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
  });
});
