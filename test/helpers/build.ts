import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** The repository root, where bin/memory.js runs the built package. */
export const ROOT = join(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'bin', 'memory.js');

async function newestMtime(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, (await stat(join(entry.parentPath, entry.name))).mtimeMs);
  }
  return newest;
}

/**
 * Builds dist when it is missing or older than the sources, so a test that runs the binary runs the code it reads.
 * `npm test` builds first, so in CI this only checks.
 */
export async function ensureBuilt(): Promise<void> {
  const built = await stat(join(ROOT, 'dist', 'cli', 'main.js')).then((info) => info.mtimeMs, () => 0);
  if (built >= (await newestMtime(join(ROOT, 'src')))) return;
  await exec('npx', ['tsup'], { cwd: ROOT });
}
