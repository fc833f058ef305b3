// `npm run eval:search` and `npm run bench:search`: the search evaluation and benchmark are TypeScript beside the
// sources they exercise, compiled and run by the bench's one helper.
import { join } from 'node:path';
import { ROOT, runEntry } from '../compile.mjs';

const [name, ...args] = process.argv.slice(2);
const entries = { eval: 'eval.ts', bench: 'bench.ts' };
if (!Object.hasOwn(entries, name)) {
  process.stderr.write(`usage: node bench/search/run.mjs ${Object.keys(entries).join('|')} [args]\n`);
  process.exit(2);
}
await runEntry(join(ROOT, 'bench', 'search', entries[name]), `search-${name}`, args);
