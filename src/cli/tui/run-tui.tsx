import { render } from 'ink';
import { createMemoryClient } from '../../client/index.js';
import { resolveConnection, type GlobalOptions } from '../connection.js';
import { App } from './app.js';

/** Runs the TUI in this terminal (the caller checked there is one) until the user quits. */
export async function runTui(flags: GlobalOptions): Promise<void> {
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
