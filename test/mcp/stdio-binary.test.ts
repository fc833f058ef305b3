import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionItem } from '../../src/contract/index.js';
import { TOOL_OPERATIONS, mcpToolDefinitions } from '../../src/contract/mcp-surface.js';
import { startDemoCore, type TestCore } from '../helpers/core.js';
import { BIN, ROOT, coreEnv, requireBuild, resourceJson, startStdio, toolProblem, type StdioSession } from './helpers.js';

const READER = 0;
const WRITER = 1;

let t: TestCore;
let dep1: string;
let reader: StdioSession;

async function rest(path: string, principal = READER): Promise<any> {
  const response = await fetch(`${t.core.baseUrl}${path}`, { headers: { authorization: `Bearer ${await t.token(principal)}` } });
  expect(response.status).toBe(200);
  return response.json();
}

beforeAll(async () => {
  requireBuild();
  t = await startDemoCore();
  dep1 = t.creds.deployments[0]!.id;
  reader = await startStdio([], await coreEnv(t, READER));
});
afterAll(async () => {
  await reader?.close();
  await t?.stop();
});

describe('memory mcp (the built binary on stdio)', () => {
  it('offers every tool, defaulting to the only deployment the principal can reach', async () => {
    const { tools } = await reader.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_OPERATIONS.map((op) => op.mcpTool));
    for (const tool of tools) expect(tool.inputSchema.required ?? []).not.toContain('deployment_id');
    expect(reader.stderr()).toContain(`default deployment ${dep1}`);
    expect(reader.stderr()).toContain(`serving ${t.core.baseUrl}`);
  });

  // The build bundles its own copy of zod (it starts faster); the schemas it derives must not differ by a byte.
  it('derives the same tool schemas as the sources', async () => {
    const { tools } = await reader.client.listTools();
    expect(tools).toEqual(JSON.parse(JSON.stringify(mcpToolDefinitions({ defaultDeployment: dep1 }))));
  });

  it('answers a read with the records REST returns', async () => {
    const result = await reader.client.callTool({ name: 'listDecisions', arguments: { limit: 5 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ items: (await rest(`/deployments/${dep1}/decisions?limit=5`)).items });
  });

  it('names refused arguments as the tool calls them ("query", not REST\'s "q")', async () => {
    const result = await reader.client.callTool({ name: 'searchMemory', arguments: { query: '  ', limit: 1000 } });
    const problem = toolProblem(result);
    expect(problem.status).toBe(400);
    expect(problem.invalid_params?.map((param) => [param.name, param.in]).sort()).toEqual([
      ['limit', 'arguments'],
      ['query', 'arguments'],
    ]);
  });

  it("refuses a read grant's action with 403 and acts with a read_write grant", async () => {
    const text = 'Confirm the stdio MCP rollout with the pilot customers';
    expect(toolProblem(await reader.client.callTool({ name: 'createActionItem', arguments: { text } })).status).toBe(403);
    const writer = await startStdio([], await coreEnv(t, WRITER));
    try {
      const created = await writer.client.callTool({ name: 'createActionItem', arguments: { text } });
      const item = ActionItem.parse(created.structuredContent);
      expect(await rest(`/deployments/${dep1}/action-items/${item.id}`, WRITER)).toEqual(item);
    } finally {
      await writer.close();
    }
  });

  it('reads the deployments resource and a meeting', async () => {
    const deployments = await reader.client.readResource({ uri: 'service://deployments' });
    expect(resourceJson(deployments)).toEqual(await rest('/deployments'));
    const meetingId = (await rest(`/deployments/${dep1}/decisions?limit=1`)).items[0].meeting_id;
    const meeting = await reader.client.readResource({ uri: `service://meetings/${meetingId}` });
    expect(resourceJson(meeting)).toEqual(await rest(`/deployments/${dep1}/meetings/${meetingId}`));
  });

  it('--read-only hides the tools not annotated read-only, and --deployment sets the default', async () => {
    const session = await startStdio(['--read-only', '--deployment', dep1], await coreEnv(t, READER));
    try {
      const { tools } = await session.client.listTools();
      expect(tools).toHaveLength(8);
      expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
      expect(session.stderr()).toContain('(read-only)');
      expect(session.stderr()).not.toContain('default deployment');
      await expect(session.client.callTool({ name: 'updateDecision', arguments: {} })).rejects.toThrow(/Unknown tool/);
    } finally {
      await session.close();
    }
  });

  it('writes nothing but JSON-RPC to stdout and exits 0 when stdin closes', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: ROOT, env: await coreEnv(t, READER) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'listTopics', arguments: { limit: 1 } } });
    await expect.poll(() => stdout.split('\n').filter(Boolean).length, { timeout: 10_000 }).toBe(2);
    child.stdin.end();
    expect(await exited).toBe(0);
    const lines = stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { jsonrpc: string; id: number });
    expect(lines.map((line) => [line.jsonrpc, line.id])).toEqual([
      ['2.0', 1],
      ['2.0', 2],
    ]);
    expect(stderr).toMatch(/^meeting-memory mcp: /m);
  });

  it('refuses to start without a token: exit 4, the next step on stderr, nothing on stdout', async () => {
    const { MEMORY_TOKEN: _dropped, ...env } = await coreEnv(t, READER);
    const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(4);
    expect(stdout).toBe('');
    expect(stderr).toContain('MEMORY_TOKEN');
  });
});
