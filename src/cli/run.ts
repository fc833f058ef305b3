import { Command, CommanderError } from 'commander';
import { packageVersion } from '../contract/package-info.js';
import { CliError, EXIT } from './errors.js';
import { registerMemoryCommands } from './commands/memory-commands.js';
import { registerCompletion } from './commands/completion.js';
import { registerServe } from './commands/serve.js';
import { registerAdminCommands } from './commands/admin-commands.js';
import { registerMcp } from './commands/mcp.js';
import { registerAgentStub } from './commands/agent-stub.js';
import { registerAgentCheck } from './commands/agent-check.js';
import { registerAsk } from './commands/ask.js';
import { registerLogin } from './commands/login.js';
import { registerAuth } from './commands/auth.js';
import { registerTui } from './commands/tui.js';

const version = packageVersion();

function buildProgram(): Command {
  const program = new Command('memory')
    .description('Cross-meeting memory: decisions, open questions, action items and statements.')
    .version(version, '-V, --version')
    .showHelpAfterError('(run `memory --help` for usage)')
    // Options belong to the command they follow, so `memory serve init --data-dir` reaches init, not serve.
    .enablePositionalOptions()
    .exitOverride();
  registerMemoryCommands(program);
  registerServe(program);
  registerAdminCommands(program);
  registerMcp(program);
  registerAgentStub(program);
  registerAgentCheck(program);
  registerAsk(program);
  registerLogin(program);
  registerAuth(program);
  registerTui(program);
  registerCompletion(program);
  return program;
}

function reportFailure(error: unknown): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0) {
      return EXIT.ok;
    }
    return EXIT.usage;
  }
  if (error instanceof CliError) {
    process.stderr.write(`error: ${error.message}\n`);
    if (error.hint) process.stderr.write(`next: ${error.hint}\n`);
    return error.exitCode;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(
    `This is a bug in meeting-memory ${version}; please report it with the lines below.\n${detail}\n`,
  );
  return EXIT.error;
}

/** Runs the `memory` command line with the given arguments (node-style argv) and returns its exit code. */
export async function runCli(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    return reportFailure(error);
  }
}

