import { createAdminClient, type AdminClient } from '../../client/admin-client.js';
import { MemoryApiError } from '../../client/errors.js';
import { adminOperationByName, type AdminOperationName } from '../../contract/admin-operations.js';
import type { Connection } from '../connection.js';
import { CliError, usageError } from '../errors.js';
import type { ErrorContext } from '../output/api-errors.js';
import { ADMIN_COMMANDS } from './admin-command-table.js';
import { runOperationCommand, type CommandTarget } from './memory-action.js';
import type { CommandSet } from './memory-command-builder.js';

const ADMIN_TOKEN_HINT = 'set MEMORY_TOKEN to a token of an admin principal (the credential `memory serve init` printed)';

/** The admin client for a resolved connection. */
export function openAdminClient(connection: Connection): AdminClient {
  return createAdminClient({
    baseUrl: connection.baseUrl,
    token: connection.token,
    ca: connection.ca,
    userAgent: 'meeting-memory-cli',
    transport: 'node',
  });
}

/** 403 and 404 from the admin surface say precisely what is missing; the CLI repeats it with the next step. */
export function explainAdminFailure(error: unknown, context: ErrorContext): CliError | undefined {
  if (!(error instanceof MemoryApiError)) return undefined;
  if (error.status === 403) return new CliError(`Not allowed (403): ${error.message}`, { hint: ADMIN_TOKEN_HINT });
  if (error.status === 404) {
    return new CliError(`${error.message} (404)`, { hint: `check the id with \`memory ${context.noun} list\`` });
  }
  return undefined;
}

/** Where `memory admin <noun> <verb>` goes: the admin surface, with an admin principal's token. */
export const ADMIN_TARGET: CommandTarget = {
  prefix: 'admin',
  specs: ADMIN_COMMANDS,
  operation: adminOperationByName,
  async open(connection) {
    const client = openAdminClient(connection);
    return {
      call: (name, input) => client.call(name as AdminOperationName, input as never),
      defaultDeployment: () =>
        Promise.reject(usageError('Which deployment?', 'pass --deployment <id> or set MEMORY_DEPLOYMENT; `memory admin deployments list` shows them')),
      close: () => client.close(),
    };
  },
  explain: explainAdminFailure,
};

/** The generated admin commands, run against ADMIN_TARGET. */
export const ADMIN_COMMAND_SET: CommandSet = {
  specs: ADMIN_COMMANDS,
  operation: adminOperationByName,
  run: (run) => runOperationCommand(run, ADMIN_TARGET),
};
