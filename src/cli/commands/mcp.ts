import { Option, type Command } from 'commander';
import { addConnectionOptions, resolveConnection, type GlobalOptions } from '../connection.js';

interface McpFlags extends GlobalOptions {
  readOnly?: boolean;
}

async function serveMcp(flags: McpFlags): Promise<void> {
  const connection = await resolveConnection(flags);
  const { serveStdio } = await import('../../mcp/stdio-server.js');
  await serveStdio({
    baseUrl: connection.baseUrl,
    token: connection.token,
    ca: connection.ca,
    readOnly: Boolean(flags.readOnly),
    defaultDeployment: connection.defaultDeployment,
  });
}

/**
 * `memory mcp`: the memory as an MCP server on stdio, for Claude Desktop, Claude Code, VS Code or Cursor. The
 * server, the SDK and the client load only when the command runs.
 */
export function registerMcp(program: Command): void {
  const command = program
    .command('mcp')
    .description('Serve the memory to an AI agent over MCP on stdio (JSON-RPC on stdout, logs on stderr)')
    .addOption(new Option('--read-only', 'offer only the read tools: hide the four actions'))
    .addOption(new Option('--deployment <id>', 'deployment_id used when a tool call leaves it out (env MEMORY_DEPLOYMENT)'));
  addConnectionOptions(command).action(serveMcp);
}
