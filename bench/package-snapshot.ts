import { cp, mkdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Copies the built package (bin, dist without type declarations, package.json; node_modules linked) so that the
 * run measures one build: on a shared checkout, anyone's `npm run build` replaces dist's hashed chunks mid-run, and a
 * process the bench starts later would fail to load them. Returns the snapshot's bin/memory.js and a remover.
 */
export async function snapshotPackage(root: string, into: string): Promise<{ bin: string; remove: () => Promise<void> }> {
  await rm(into, { recursive: true, force: true });
  await mkdir(into, { recursive: true });
  await Promise.all([
    cp(join(root, 'bin'), join(into, 'bin'), { recursive: true }),
    // Type declarations are left out: they do not run, and under bench/ the type checker would pick them up.
    cp(join(root, 'dist'), join(into, 'dist'), { recursive: true, filter: (source) => !source.endsWith('.d.ts') }),
    cp(join(root, 'package.json'), join(into, 'package.json')),
    symlink(join(root, 'node_modules'), join(into, 'node_modules'), 'dir'),
  ]);
  return { bin: join(into, 'bin', 'memory.js'), remove: () => rm(into, { recursive: true, force: true }) };
}
