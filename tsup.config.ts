import { defineConfig } from 'tsup';

// One ESM build with code splitting: every command is a dynamic import, so the chunks that only one command
// needs (the server, MSAL, Ink) load only for that command and `memory --version` stays fast.
export default defineConfig({
  entry: { 'cli/main': 'src/cli/main.ts', index: 'src/client/index.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  splitting: true,
  sourcemap: true,
  clean: true,
  dts: { entry: { index: 'src/client/index.ts' } },
  outDir: 'dist',
  // zod 4 is some twenty ES modules; resolved and compiled one by one they cost a CLI command about 60 ms of its
  // 300 ms budget, bundled (and tree-shaken) far less. Its schemas never cross into the MCP SDK's own zod: the tools'
  // JSON schemas are derived here and served through low-level handlers (a test compares them with the sources').
  noExternal: ['zod'],
});
