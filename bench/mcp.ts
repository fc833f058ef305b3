import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ROOT, stopChild } from './processes.js';

interface JsonRpcResponse {
  id?: number;
  result?: { isError?: boolean; content?: unknown[] } & Record<string, unknown>;
  error?: { code: number; message: string };
}

/**
 * A minimal JSON-RPC client for `memory mcp` over stdio: newline-delimited messages, answers matched by id. Hand-
 * written rather than the SDK's Client, so that the time measured is the server's and not the client's schema
 * validation of every result.
 */
export class StdioMcpClient {
  private nextId = 1;
  private readonly pending = new Map<number, (message: JsonRpcResponse) => void>();
  private stderr = '';

  private constructor(private readonly child: ChildProcess) {
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-4000);
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let message: JsonRpcResponse;
      try {
        message = JSON.parse(line) as JsonRpcResponse;
      } catch {
        // stdout is the protocol channel: anything else on it breaks real clients, so it fails the measurement.
        this.failAll(`memory mcp wrote a line that is not JSON-RPC to stdout: ${line.slice(0, 200)}`);
        return;
      }
      if (message.id === undefined) return;
      this.pending.get(message.id)?.(message);
      this.pending.delete(message.id);
    });
    child.once('exit', () => this.failAll(`memory mcp exited: ${this.stderr}`));
  }

  private failAll(reason: string): void {
    for (const resolve of this.pending.values()) resolve({ error: { code: -1, message: reason } });
    this.pending.clear();
  }

  /** Starts `memory mcp` from the built package with the connection in its environment and initialises it. */
  static async start(bin: string, env: Record<string, string>): Promise<StdioMcpClient> {
    const child = spawn(process.execPath, [bin, 'mcp'], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    const client = new StdioMcpClient(child);
    await client.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'meeting-memory-bench', version: '1' },
    });
    client.notify('notifications/initialized');
    return client;
  }

  private send(message: Record<string, unknown>): void {
    this.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  }

  notify(method: string): void {
    this.send({ method });
  }

  /** Sends a request and resolves with its result; a JSON-RPC error or an `isError` tool result throws. */
  async request(method: string, params: Record<string, unknown>): Promise<NonNullable<JsonRpcResponse['result']>> {
    const id = this.nextId++;
    const answer = new Promise<JsonRpcResponse>((resolve) => this.pending.set(id, resolve));
    this.send({ id, method, params });
    const message = await answer;
    if (message.error) throw new Error(`${method}: ${message.error.message}`);
    if (!message.result) throw new Error(`${method}: answer without a result`);
    if (message.result.isError) throw new Error(`${method}: tool error ${JSON.stringify(message.result.content).slice(0, 300)}`);
    return message.result;
  }

  close(): Promise<void> {
    this.child.stdin?.end();
    return stopChild(this.child);
  }
}

/** The body of one stateless Streamable HTTP tool call. */
export function mcpToolCallBody(name: string, args: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
}

/** Headers a Streamable HTTP client sends with a JSON-RPC POST. */
export const MCP_HTTP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

/** Throws unless the HTTP answer to a tool call is a successful JSON-RPC result. */
export function checkMcpHttpAnswer(text: string): void {
  const message = JSON.parse(text) as JsonRpcResponse;
  if (message.error) throw new Error(`MCP over HTTP: ${message.error.message}`);
  if (message.result?.isError) throw new Error(`MCP over HTTP: tool error ${text.slice(0, 300)}`);
}
