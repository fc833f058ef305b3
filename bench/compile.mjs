// The bench harnesses are TypeScript beside the sources they drive (the store, the generator, the search service), so
// they are compiled with the package's own tool, tsup, into the git-ignored bench/results/tmp and imported from there.
// One helper for every harness entry (bench/run.mjs, bench/search/run.mjs, bench/postgres/run.mjs).
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'tsup';

/** The repository root. */
export const ROOT = join(import.meta.dirname, '..');

/**
 * Compiles each named TypeScript entry into one self-contained ESM file (dependencies stay in node_modules), imports
 * them all, and returns the modules by name with a `dispose` that removes the compiled files.
 *
 * @param {Record<string, string>} entries name -> TypeScript file
 * @param {string} tag names the temporary folder, beside the process id
 * @returns {Promise<{ modules: Record<string, any>, dispose: () => Promise<void> }>}
 */
export async function compileEntries(entries, tag) {
  const outDir = join(ROOT, 'bench', 'results', 'tmp', `${tag}-${process.pid}`);
  const dispose = () => rm(outDir, { recursive: true, force: true });
  try {
    await build({
      entry: entries,
      outDir,
      format: ['esm'],
      platform: 'node',
      target: 'node20',
      splitting: false,
      sourcemap: 'inline',
      dts: false,
      clean: true,
      silent: true,
      config: false,
      skipNodeModulesBundle: true,
    });
    const modules = {};
    for (const name of Object.keys(entries)) modules[name] = await import(pathToFileURL(join(outDir, `${name}.js`)).href);
    return { modules, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/**
 * Compiles one entry, runs its exported `main(args)` and exits with the code it returns (1 when it throws).
 *
 * @param {string} file the TypeScript entry
 * @param {string} tag
 * @param {readonly string[]} args
 */
export async function runEntry(file, tag, args) {
  const { modules, dispose } = await compileEntries({ main: file }, tag);
  let exitCode = 1;
  try {
    exitCode = await modules.main.main(args);
  } finally {
    await dispose();
  }
  process.exit(exitCode);
}
