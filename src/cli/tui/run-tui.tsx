import { render } from 'ink';
import { createMemoryClient } from '../../client/index.js';
import { resolveConnection, type GlobalOptions } from '../connection.js';
import { usageError } from '../errors.js';
import { App } from './app.js';

/**
 * Runs the TUI in this terminal until the user quits. Refuses to start without a terminal on both ends: scripts
 * get the `memory <noun>` commands and `--json` instead.
 */
export async function runTui(flags: GlobalOptions): Promise<void> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw usageError('memory tui needs a terminal.', 'run it in a terminal; scripts use `memory <noun> list --json`');
  }
  const connection = await resolveConnection(flags);
  const client = createMemoryClient({
    baseUrl: connection.baseUrl,
    token: connection.token,
    ca: connection.ca,
    userAgent: 'meeting-memory-tui',
  });
  try {
    const instance = render(<App client={client} initialDeployment={connection.defaultDeployment} />);
    await instance.waitUntilExit();
  } finally {
    await client.close();
  }
}
