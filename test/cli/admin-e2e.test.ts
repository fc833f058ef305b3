import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestToken } from '../helpers/core.js';

// End to end without the demo, as an operator sets up a core: the built `memory` binary initialises a data dir,
// serves it, and administers it with the admin credential that init printed.

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'memory.js');
const exec = promisify(execFile);
const transcript = join(root, 'test', 'core', 'admin', 'fixtures', 'zoom-q3-review.vtt');
const SCOPE = 'api://meeting-memory/.default';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let dataDir: string;
let origin: string;
let core: ChildProcess;
let init: { tenant_id: string; client_id: string; client_secret: string; token_url: string };
let adminToken: string;

/** Builds dist when any source file is newer than the built entry, so the test runs the code it reads. */
async function ensureBuilt(): Promise<void> {
  const newer = await exec('find', ['src', '-newer', join('dist', 'cli', 'main.js'), '-print', '-quit'], { cwd: root }).then(
    ({ stdout }) => stdout.trim(),
    () => 'missing',
  );
  if (newer !== '') await exec('npx', ['tsup'], { cwd: root });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function memory(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return exec(process.execPath, [bin, ...args], {
    env: { PATH: process.env.PATH, HOME: dataDir, MEMORY_BASE_URL: `${origin}/v1`, MEMORY_TOKEN: adminToken, ...env },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: Run) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

async function json(args: string[], env?: Record<string, string>): Promise<any> {
  const run = await memory(args, env);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

async function serve(port: number): Promise<void> {
  core = spawn(process.execPath, [bin, 'serve', '--data-dir', dataDir, '--port', String(port), '--no-tls', '--json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  core.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const lines = createInterface({ input: core.stdout! });
  await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    core.once('exit', (code) => reject(new Error(`core exited with ${code}: ${stderr.join('')}`)));
  });
}

beforeAll(async () => {
  await ensureBuilt();
  dataDir = await mkdtemp(join(tmpdir(), 'memory-admin-e2e-'));
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const initialised = await memory(['serve', 'init', '--data-dir', dataDir, '--tenant-name', 'Northwind', '--region', 'ca', '--public-url', origin, '--json']);
  expect(initialised.code, initialised.stderr).toBe(0);
  init = JSON.parse(initialised.stdout);
  await serve(port);
  adminToken = await requestToken(init.token_url, init.client_id, init.client_secret, SCOPE);
}, 120_000);

afterAll(async () => {
  if (core && core.exitCode === null) {
    const exited = new Promise((resolve) => core.once('exit', resolve));
    core.kill('SIGTERM');
    await exited;
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('an operator sets up a core without the demo', () => {
  it('creates a deployment and a reader, imports a transcript, and the reader reads it over v1', async () => {
    expect(await json(['admin', 'tenant', 'get'])).toMatchObject({ id: init.tenant_id, name: 'Northwind', region: 'ca' });
    const deployment = await json(['admin', 'deployments', 'create', 'Atlas', '--platform', 'zoom', '--voice', 'alloy', '--json']);
    const reader = await json(['admin', 'principals', 'create', 'notes agent', '--json']);
    expect(reader.client_secret).toEqual(expect.any(String));
    await json(['admin', 'grants', 'set', reader.client_id, '--deployment', deployment.id, '--json']);

    const imported = await json([
      'admin', 'import', transcript, '--deployment', deployment.id, '--title', 'Q3 review', '--started-at', '2025-03-12T17:30:00Z', '--json',
    ]);
    expect(imported).toEqual([expect.objectContaining({ ok: true, created: true, statements: 4 })]);

    const readerToken = await requestToken(reader.token_url, reader.client_id, reader.client_secret, SCOPE);
    const statements = await json(['statements', 'list', '--order', 'asc', '--json'], { MEMORY_TOKEN: readerToken });
    expect(statements.items.map((s: { attribution: { display_name: string } }) => s.attribution.display_name)).toEqual([
      'Priya Raman',
      'Marcus Lee',
      'Marcus Lee',
      'Priya Raman',
    ]);
    const refused = await memory(['admin', 'tenant', 'get'], { MEMORY_TOKEN: readerToken });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('403');

    const audit = await json(['admin', 'audit', 'list', '--operation', 'importMeeting', '--json']);
    expect(audit.items[0]).toMatchObject({ operation: 'importMeeting', status: 201, deployment_id: deployment.id });
  });

  it('refuses a raw secret for a backend with exit 2, and a second init with exit 1', async () => {
    const [deployment] = (await json(['admin', 'deployments', 'list', '--json'])).items;
    const raw = await memory(['admin', 'backend', 'set', '--deployment', deployment.id, '--url', 'https://agent.example.com', '--secret-ref', 'plain-secret-value']);
    expect(raw.code).toBe(2);
    expect(raw.stderr).toContain('--secret-ref');
    const again = await memory(['serve', 'init', '--data-dir', dataDir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already initialised');
  });
});
