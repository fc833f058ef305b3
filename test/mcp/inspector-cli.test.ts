import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_OPERATIONS } from '../../src/contract/mcp-surface.js';
import { startDemoCore, type TestCore } from '../helpers/core.js';
import { BIN, ROOT, requireBuild } from './helpers.js';

/**
 * The MCP Inspector's CLI mode as an outside client of the built stdio server: it spawns `memory mcp` itself and
 * prints each answer as JSON. Pinned to 0.15.0, the last release that runs on Node 20.
 */
const INSPECTOR = join(ROOT, 'node_modules', '.bin', 'mcp-inspector');
const run = promisify(execFile);

let t: TestCore;
let dep1: string;

async function inspect(...method: string[]): Promise<any> {
  const env = ['-e', `MEMORY_BASE_URL=${t.core.baseUrl}`, '-e', `MEMORY_TOKEN=${await t.token(0)}`];
  const { stdout } = await run(INSPECTOR, ['--cli', ...env, process.execPath, BIN, 'mcp', ...method], {
    cwd: ROOT,
    timeout: 60_000,
  });
  return JSON.parse(stdout);
}

beforeAll(async () => {
  requireBuild();
  t = await startDemoCore();
  dep1 = t.creds.deployments[0]!.id;
});
afterAll(async () => t?.stop());

describe('@modelcontextprotocol/inspector --cli against memory mcp', () => {
  it('tools/list', async () => {
    const { tools } = await inspect('--method', 'tools/list');
    expect(tools.map((tool: { name: string }) => tool.name)).toEqual(TOOL_OPERATIONS.map((op) => op.mcpTool));
  });

  it('tools/call', async () => {
    const result = await inspect('--method', 'tools/call', '--tool-name', 'searchMemory', '--tool-arg', 'query=pricing');
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.results.length).toBeGreaterThan(0);
    expect(result.structuredContent.results.every((hit: { deployment_id: string }) => hit.deployment_id === dep1)).toBe(true);
  });

  it('resources/read', async () => {
    const { contents } = await inspect('--method', 'resources/read', '--uri', 'service://deployments');
    expect(JSON.parse(contents[0].text).items.map((deployment: { id: string }) => deployment.id)).toEqual([dep1]);
  });
});
