import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMemoryClient, type MemoryClient, type TokenSource } from '../client/index.js';
import { packageVersion } from '../contract/package-info.js';
import { createMemoryMcpServer } from '../contract/mcp-surface.js';
import { createClientInvoker } from './client-invoker.js';
import { answerToolCallsDirectly } from './direct-tool-calls.js';

export interface StdioServerOptions {
  /** The core's REST root. */
  baseUrl: string;
  /** Called before every REST call, so a signed-in profile's token refreshes without a restart. */
  token: TokenSource;
  /** PEM CA of a self-hosted core. */
  ca?: string;
  /** Offer only the tools annotated read-only. */
  readOnly?: boolean;
  /** `deployment_id` for calls that leave it out; default: the only deployment the principal can reach, if one. */
  defaultDeployment?: string;
  /** Diagnostics; stdout carries JSON-RPC only. Default: stderr. */
  log?: (line: string) => void;
  input?: Readable;
  output?: Writable;
}

function stderrLine(line: string): void {
  process.stderr.write(`meeting-memory mcp: ${line}\n`);
}

/** How long startup waits to learn the principal's deployments before serving without a default. */
const DEPLOYMENT_LOOKUP_MS = 5000;

/**
 * The deployment to default to when none is named: the only one the principal can reach, as the CLI does. A model
 * cannot read the deployments resource itself in most clients, so this spares it from asking for an id.
 */
async function soleDeployment(client: MemoryClient, log: (line: string) => void): Promise<string | undefined> {
  try {
    const { items } = await client.listDeployments({}, { signal: AbortSignal.timeout(DEPLOYMENT_LOOKUP_MS) });
    if (items.length === 1) {
      log(`default deployment ${items[0]!.id} (${items[0]!.name}), the only one this principal can reach`);
      return items[0]!.id;
    }
    log(`${items.length} deployments reachable: tool calls name deployment_id (or start with --deployment <id>)`);
  } catch (error) {
    log(`could not list the deployments: ${error instanceof Error ? error.message : String(error)}`);
  }
  return undefined;
}

/**
 * Serves the memory over MCP on stdio, calling the core's REST API for every tool and resource. Resolves when the
 * client goes away (stdin ends) or on SIGINT/SIGTERM, after closing the connection pool.
 */
export async function serveStdio(options: StdioServerOptions): Promise<void> {
  const log = options.log ?? stderrLine;
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const client = createMemoryClient({
    baseUrl: options.baseUrl,
    token: options.token,
    ...(options.ca ? { ca: options.ca } : {}),
    userAgent: `meeting-memory-mcp/${packageVersion()}`,
  });
  const invoker = createClientInvoker(client, log);
  const surface = {
    readOnly: options.readOnly,
    defaultDeployment: options.defaultDeployment ?? (await soleDeployment(client, log)),
  };
  const server = createMemoryMcpServer(invoker, surface);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  const stop = () => void server.close();
  input.once('end', stop);
  output.once('error', stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const direct = answerToolCallsDirectly(input, output, invoker, surface);
  await server.connect(new StdioServerTransport(direct.forSdk, output));
  log(`serving ${client.baseUrl} over stdio${options.readOnly ? ' (read-only)' : ''}`);
  try {
    await closed;
  } finally {
    direct.detach();
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await client.close();
  }
}
