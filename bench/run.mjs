// `npm run bench` builds the package first (the core, the CLI and `memory mcp` are measured as users run them, from
// bin/memory.js), then compiles and runs the harness (bench/main.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { compileEntries, ROOT } from './compile.mjs';

if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) {
  process.stderr.write('The package is not built: run `npm run bench` (it builds first) or `npm run build`.\n');
  process.exit(1);
}

/** The search engine's own benchmark, which may export measureSearchAtSize; its failure to load is reported, not fatal. */
async function searchPlugin() {
  const file = join(ROOT, 'bench', 'search', 'bench.ts');
  if (!existsSync(file)) return undefined;
  try {
    return await compileEntries({ search: file }, 'search-plugin');
  } catch (error) {
    process.stderr.write(`bench/search/bench.ts did not load (${error.message}): search is compared by the harness\n`);
    return undefined;
  }
}

const harness = await compileEntries({ harness: join(ROOT, 'bench', 'main.ts') }, 'harness');
const search = await searchPlugin();
let exitCode = 1;
try {
  exitCode = await harness.modules.harness.main(process.argv.slice(2), { searchModule: search?.modules.search });
} finally {
  await Promise.all([harness.dispose(), search?.dispose()]);
}
process.exit(exitCode);
