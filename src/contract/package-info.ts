import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/**
 * The version of the installed package, read from its package.json by walking up from this file, so it holds
 * both in the sources and in the bundled chunks (which sit at another depth).
 */
export function packageVersion(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'meeting-memory' && pkg.version) return (cached = pkg.version);
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('meeting-memory package.json not found');
    dir = parent;
  }
}
