// `npm run bench:postgres`: both stores driven directly (no package build needed), compiled by the shared helper.
import { join } from 'node:path';
import { ROOT, runEntry } from '../compile.mjs';

await runEntry(join(ROOT, 'bench', 'postgres', 'main.ts'), 'postgres-harness', process.argv.slice(2));
