import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveStdio, type StdioServerOptions } from '../../src/mcp/stdio-server.js';
import { startDemoCore, type TestCore } from '../helpers/core.js';
import { toolProblem } from './helpers.js';

/** The client end of a stdio pipe pair, so the server's stdio transport can run in this process. */
class PipeClientTransport implements Transport {
  private readonly buffer = new ReadBuffer();
  /** Every message the server wrote, in order. */
  readonly received: JSONRPCMessage[] = [];
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  constructor(
    private readonly fromServer: Readable,
    private readonly toServer: Writable,
  ) {}

  async start(): Promise<void> {
    this.fromServer.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let message = this.buffer.readMessage(); message; message = this.buffer.readMessage()) {
        this.received.push(message);
        this.onmessage?.(message);
      }
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.toServer.end();
    this.onclose?.();
  }
}

interface Served {
  client: Client;
  logs: string[];
  received: JSONRPCMessage[];
  /** Resolves once serveStdio has returned. */
  stop(): Promise<void>;
}

async function serve(options: Omit<StdioServerOptions, 'input' | 'output' | 'log'>): Promise<Served> {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const logs: string[] = [];
  const running = serveStdio({ ...options, input: toServer, output: fromServer, log: (line) => logs.push(line) });
  const client = new Client({ name: 'stdio-server-test', version: '1.0.0' });
  const transport = new PipeClientTransport(fromServer, toServer);
  await client.connect(transport);
  return {
    client,
    logs,
    received: transport.received,
    async stop() {
      await client.close();
      await running;
    },
  };
}

let t: TestCore;
let dep1: string;
beforeAll(async () => {
  t = await startDemoCore();
  dep1 = t.creds.deployments[0]!.id;
});
afterAll(async () => t?.stop());

describe('serveStdio', () => {
  it('asks for a token before every call, so a renewed token is used without a restart', async () => {
    const tokens = [await t.token(0), await t.token(1)];
    let current = 0;
    const served = await serve({ baseUrl: t.core.baseUrl, token: async () => tokens[current]!, defaultDeployment: dep1 });
    try {
      const args = { text: 'Rotate the token mid-session' };
      const refused = await served.client.callTool({ name: 'createActionItem', arguments: args });
      expect(toolProblem(refused).status).toBe(403);
      current = 1;
      const created = await served.client.callTool({ name: 'createActionItem', arguments: args });
      expect(created.isError).toBeFalsy();
      expect(created.structuredContent).toMatchObject({ text: args.text, deployment_id: dep1 });
    } finally {
      await served.stop();
    }
  });

  it('an unreachable core is a 503 tool error (retry a read), logged on the log, not thrown', async () => {
    const port = await closedPort();
    const served = await serve({ baseUrl: `http://127.0.0.1:${port}/v1`, token: async () => 'unused', defaultDeployment: 'd1' });
    try {
      const result = await served.client.callTool({ name: 'listDecisions', arguments: {} });
      expect(toolProblem(result).status).toBe(503);
      expect((result.content as { text: string }[])[0]!.text).toContain('retry shortly');
      expect(served.logs.join('\n')).toMatch(/listDecisions: Could not reach the memory core/);
    } finally {
      await served.stop();
    }
  });

  it('refuses an empty deployment_id without a request, and defaults to the only reachable deployment', async () => {
    const served = await serve({ baseUrl: t.core.baseUrl, token: async () => t.token(0), readOnly: true });
    try {
      expect(served.logs).toContain(`default deployment ${dep1} (${t.creds.deployments[0]!.name}), the only one this principal can reach`);
      const result = await served.client.callTool({ name: 'listTopics', arguments: { deployment_id: '' } });
      const problem = toolProblem(result);
      expect(problem.status).toBe(400);
      expect(problem.invalid_params).toEqual([{ name: 'deployment_id', in: 'arguments', reason: 'required: a non-empty string' }]);
    } finally {
      await served.stop();
    }
  });

  // Plain tool calls are answered without the SDK's protocol layer; with _meta they go through it. Same answers.
  it('answers a plain tool call as the SDK path answers it with _meta, refusals included', async () => {
    const served = await serve({ baseUrl: t.core.baseUrl, token: async () => t.token(0), defaultDeployment: dep1 });
    try {
      const calls: [string, Record<string, unknown>][] = [
        ['listDecisions', { limit: 3 }],
        ['searchMemory', { query: 'pricing', limit: 2 }],
        ['listTopics', { limit: 0 }],
        ['createActionItem', { text: 'Never created: the reader may not act' }],
        ['getMeeting', { meeting_id: 'no-such-meeting' }],
      ];
      const withoutRequestIds = (result: unknown) => JSON.parse(JSON.stringify(result).replace(/req-[\w-]+|[0-9a-f-]{36}(?=\\?")/g, 'ID'));
      for (const [name, args] of calls) {
        const plain = await served.client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema);
        const viaSdk = await served.client.request(
          { method: 'tools/call', params: { name, arguments: args, _meta: { note: 'takes the SDK path' } } },
          CallToolResultSchema,
        );
        expect(withoutRequestIds(plain)).toEqual(withoutRequestIds(viaSdk));
      }
    } finally {
      await served.stop();
    }
  });

  it('aborts a tool call the client cancels, and sends no answer for it', async () => {
    const core = await startHeldCore();
    const served = await serve({ baseUrl: core.baseUrl, token: async () => 'token', defaultDeployment: 'd1' });
    try {
      const controller = new AbortController();
      const cancelled = served.client.callTool({ name: 'listTopics', arguments: {} }, undefined, { signal: controller.signal });
      await core.held;
      controller.abort('the user gave up');
      await expect(cancelled).rejects.toThrow();
      await core.requestClosed;
      await expect(served.client.callTool({ name: 'listTopics', arguments: {} })).resolves.toMatchObject({
        structuredContent: { items: [], next_cursor: null },
      });
      const answeredIds = served.received.flatMap((message) => ('id' in message && !('method' in message) ? [message.id] : []));
      const toolCallIds = answeredIds.slice(-2);
      expect(toolCallIds).toHaveLength(2);
      expect(new Set(answeredIds).size).toBe(answeredIds.length);
      expect(served.received.filter((message) => 'error' in message || ('result' in message && (message.result as { isError?: boolean }).isError))).toEqual([]);
    } finally {
      await served.stop();
      await core.close();
    }
  });
});

/** A stand-in core that never answers its first topics request (until the client drops it) and answers the rest at once. */
async function startHeldCore() {
  let heldSeen!: () => void;
  let closedSeen!: () => void;
  const held = new Promise<void>((resolve) => (heldSeen = resolve));
  const requestClosed = new Promise<void>((resolve) => (closedSeen = resolve));
  let holding = true;
  const server = createHttpServer((request: IncomingMessage, response: ServerResponse) => {
    if (holding && request.url?.includes('/topics')) {
      holding = false;
      request.socket.once('close', closedSeen);
      heldSeen();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items: [], next_cursor: null }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    held,
    requestClosed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
