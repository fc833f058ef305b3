import { homedir } from 'node:os';
import { join } from 'node:path';

/** The OS's per-user data directory for the core: XDG on Linux, Application Support on macOS, LOCALAPPDATA on Windows. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'meeting-memory');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'meeting-memory');
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'meeting-memory');
}

/** The store's database file inside a data dir. */
export const DATABASE_FILE = 'memory.db';
