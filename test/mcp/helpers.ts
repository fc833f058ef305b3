import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ProblemDocument } from '../../src/contract/index.js';
import { PROBLEM_META_KEY } from '../../src/contract/mcp-surface.js';
import type { TestCore } from '../helpers/core.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The npm binary as published: it runs the tsup build in dist/. */
export const BIN = fileURLToPath(new URL('../../bin/memory.js', import.meta.url));

/** The built CLI, or a failure that says how to get it (`npm test` builds first). */
export function requireBuild(): void {
  if (!existsSync(fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url)))) {
    throw new Error('dist/ is missing: run `npm run build` before this test (npm test does it in pretest)');
  }
}

/** What the child gets besides the SDK's safe defaults: where the core is and the principal's token. */
export async function coreEnv(t: TestCore, principal: number): Promise<Record<string, string>> {
  return { ...getDefaultEnvironment(), MEMORY_BASE_URL: t.core.baseUrl, MEMORY_TOKEN: await t.token(principal) };
}

export interface StdioSession {
  client: Client;
  stderr(): string;
  close(): Promise<void>;
}

/** `node bin/memory.js mcp <args>` as a child process, driven by the SDK's client over its stdio. */
export async function startStdio(args: string[], env: Record<string, string>): Promise<StdioSession> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...args], env, stderr: 'pipe', cwd: ROOT });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** The JSON a resource read returned as its first (text) content. */
export function resourceJson(result: { contents: ({ text: string } | { blob: string })[] }): any {
  const [content] = result.contents;
  if (!content || !('text' in content)) throw new Error(`expected one text content, got ${JSON.stringify(result.contents)}`);
  return JSON.parse(content.text);
}

/** The problem document an error tool result carries in its `_meta`. */
export function toolProblem(result: { isError?: unknown; _meta?: unknown }): ProblemDocument {
  if (result.isError !== true) throw new Error(`expected an error result, got ${JSON.stringify(result)}`);
  return ProblemDocument.parse((result._meta as Record<string, unknown>)[PROBLEM_META_KEY]);
}
