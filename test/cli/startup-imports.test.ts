import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src', import.meta.url));

/**
 * Everything `memory` loads before a command runs: the static (not `import type`, not `await import`) imports
 * reachable from the entry, as source files and package names.
 */
function staticGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^import\s+(?!type\s)(?:[^;]*?\sfrom\s+)?['"]([^'"]+)['"]/gms)) {
      const specifier = match[1]!;
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else if (!specifier.startsWith('node:')) packages.add(specifier.split('/')[0]!);
    }
  };
  visit(entry);
  return { files, packages };
}

describe('startup', () => {
  it('answers --version from the entry alone: no package loads before it', () => {
    const { files, packages } = staticGraph(join(src, 'cli', 'main.ts'));
    expect([...packages]).toEqual([]);
    expect([...files].map((file) => file.slice(src.length + 1)).sort()).toEqual(['cli/main.ts', 'contract/package-info.ts']);
  });

  it('loads only commander before a command runs: no zod, undici, client or contract', () => {
    const { files, packages } = staticGraph(join(src, 'cli', 'run.ts'));
    expect([...packages]).toEqual(['commander']);
    const relative = [...files].map((file) => file.slice(src.length + 1));
    expect(relative).toContain('cli/commands/memory-commands.ts');
    expect(relative.filter((file) => file.startsWith('client/') || file === 'contract/index.ts')).toEqual([]);
  });
});
