import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/build.js';

// End to end: the built `memory` command, as a child process, against a real core (`memory serve --demo`, https
// with its own CA) and tokens from the core's built-in issuer.

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'memory.js');
const exec = promisify(execFile);

interface DemoCredentials {
  base_url: string;
  token_url: string;
  ca_file: string;
  deployments: { id: string; name: string }[];
  principals: { client_id: string; client_secret: string; scope: string; grants: { deployment_id: string; access: string }[] }[];
}

let dataDir: string;
let core: ChildProcess;
let credentials: DemoCredentials;
let writerToken: string;
let readerToken: string;
let atlas: string;

async function startCore(): Promise<void> {
  core = spawn(process.execPath, [bin, 'serve', '--demo', '--port', '0', '--data-dir', dataDir, '--json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  core.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const lines = createInterface({ input: core.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    core.once('exit', (code) => reject(new Error(`core exited with ${code}: ${stderr.join('')}`)));
  });
  const ready = JSON.parse(first) as { demo_credentials: string };
  credentials = JSON.parse(await readFile(ready.demo_credentials, 'utf8')) as DemoCredentials;
}

/** A token from the core's built-in issuer by the client-credentials grant, as a service principal gets one. */
async function tokenFor(principal: DemoCredentials['principals'][number]): Promise<string> {
  const dispatcher = new Agent({ connect: { ca: await readFile(credentials.ca_file, 'utf8') } });
  try {
    const response = await request(credentials.token_url, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: principal.client_id,
        client_secret: principal.client_secret,
        scope: principal.scope,
      }).toString(),
    });
    const body = (await response.body.json()) as { access_token?: string };
    expect(response.statusCode).toBe(200);
    return body.access_token!;
  } finally {
    await dispatcher.close();
  }
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `memory` with the connection in the environment, as a user would after signing in. */
async function memory(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const result = await exec(process.execPath, [bin, ...args], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MEMORY_BASE_URL: credentials.base_url,
      MEMORY_TOKEN: writerToken,
      MEMORY_CA_FILE: credentials.ca_file,
      ...env,
    },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
  return result;
}

async function json<T = Record<string, unknown>>(args: string[], env?: Record<string, string>): Promise<T> {
  const run = await memory(args, env);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as T;
}

type Page = { items: Record<string, unknown>[]; next_cursor: string | null };

beforeAll(async () => {
  await ensureBuilt();
  dataDir = await mkdtemp(join(tmpdir(), 'memory-cli-e2e-'));
  await startCore();
  const writer = credentials.principals.find((principal) => principal.grants.some((grant) => grant.access === 'read_write'))!;
  atlas = writer.grants[0]!.deployment_id;
  const reader = credentials.principals.find(
    (principal) => principal.grants.some((grant) => grant.deployment_id === atlas && grant.access === 'read'),
  )!;
  [writerToken, readerToken] = await Promise.all([tokenFor(writer), tokenFor(reader)]);
}, 120_000);

afterAll(async () => {
  if (core && core.exitCode === null) {
    const exited = new Promise((resolve) => core.once('exit', resolve));
    core.kill('SIGTERM');
    await exited;
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('memory against a running core', () => {
  it('lists the deployments the token reaches, with the access level', async () => {
    const { items } = await json<Page>(['deployments', 'list']);
    expect(items).toEqual([expect.objectContaining({ id: atlas, type: 'deployment', access: 'read_write' })]);
  });

  it('reads every list, picking the only reachable deployment', async () => {
    for (const noun of ['decisions', 'questions', 'action-items', 'statements', 'topics']) {
      const page = await json<Page>([noun, 'list', '--limit', '2']);
      expect(page.items.length, noun).toBeGreaterThan(0);
      expect(page.items.every((item) => item.deployment_id === atlas), noun).toBe(true);
    }
  });

  it('pages with --limit and follows every cursor with --all', async () => {
    const first = await json<Page>(['decisions', 'list', '--limit', '2', '--deployment', atlas]);
    expect(first.items).toHaveLength(2);
    expect(typeof first.next_cursor).toBe('string');
    const second = await json<Page>(['decisions', 'list', '--limit', '2', '--cursor', first.next_cursor!]);
    const all = await json<Page>(['decisions', 'list', '--limit', '2', '--all']);
    expect(all.next_cursor).toBeNull();
    expect(all.items.length).toBeGreaterThan(2);
    expect(all.items.slice(0, 4).map((item) => item.id)).toEqual([...first.items, ...second.items].map((item) => item.id));
  });

  it('filters by status and meeting, gets a meeting, and searches by type', async () => {
    const open = await json<Page>(['action-items', 'list', '--status', 'open']);
    expect(open.items.every((item) => item.status === 'open')).toBe(true);
    const meetingId = String(open.items[0]!.meeting_id ?? (await json<Page>(['decisions', 'list'])).items[0]!.meeting_id);
    const statements = await json<Page>(['statements', 'list', '--meeting-id', meetingId, '--order', 'asc']);
    expect(statements.items.every((item) => item.meeting_id === meetingId)).toBe(true);
    const meeting = await json(['meetings', 'get', meetingId]);
    expect(meeting).toMatchObject({ id: meetingId, type: 'meeting', memory: expect.any(Object) });
    const found = await json<{ results: Record<string, unknown>[]; was_capped: boolean }>([
      'search',
      'pricing',
      '--types',
      'statement,decision',
      '--limit',
      '5',
    ]);
    expect(found.results.length).toBeGreaterThan(0);
    expect(found.results.every((result) => ['statement', 'decision'].includes(String(result.type)))).toBe(true);
  });

  it('supersedes and confirms a decision with a note, and reads it back', async () => {
    const [target] = (await json<Page>(['decisions', 'list', '--limit', '1'])).items;
    const id = String(target!.id);
    const superseded = await json(['decisions', 'supersede', id, '--note', 'replaced by the new plan']);
    expect(superseded).toMatchObject({ id, status: 'superseded', note: 'replaced by the new plan' });
    expect(superseded.updated_by).toMatchObject({ kind: 'service_principal' });
    expect(await json(['decisions', 'get', id])).toMatchObject({ status: 'superseded' });
    expect(await json(['decisions', 'confirm', id, '--clear-note'])).toMatchObject({ status: 'confirmed', note: null });
  });

  it('resolves and reopens a question', async () => {
    const [question] = (await json<Page>(['questions', 'list', '--limit', '1'])).items;
    const id = String(question!.id);
    expect(await json(['questions', 'resolve', id, '--note', 'answered in standup'])).toMatchObject({ status: 'resolved' });
    expect(await json(['questions', 'reopen', id])).toMatchObject({ status: 'open' });
  });

  it('creates an action item, then marks it done, reopens and reschedules it', async () => {
    const created = await json(['action-items', 'create', 'Send the e2e summary', '--due-date', '2030-01-15']);
    expect(created).toMatchObject({ type: 'action_item', status: 'open', text: 'Send the e2e summary', due_date: '2030-01-15' });
    const id = String(created.id);
    expect(await json(['action-items', 'done', id])).toMatchObject({ status: 'done' });
    expect(await json(['action-items', 'reopen', id])).toMatchObject({ status: 'open' });
    expect(await json(['action-items', 'update', id, '--clear-due-date'])).toMatchObject({ due_date: null });
    expect(await json(['action-items', 'get', id])).toMatchObject({ id, status: 'open', due_date: null });
  });
});

describe('failures against a running core', () => {
  it('a read-only grant cannot change memory: exit 1 and ask for a read_write grant', async () => {
    const [decision] = (await json<Page>(['decisions', 'list', '--limit', '1'], { MEMORY_TOKEN: readerToken })).items;
    const run = await memory(['decisions', 'supersede', String(decision!.id)], { MEMORY_TOKEN: readerToken });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`read_write grant on deployment ${atlas}`);
  });

  it('a deployment without a grant answers like a missing one (exit 1)', async () => {
    const other = credentials.deployments.find((deployment) => deployment.id !== atlas)!.id;
    const run = await memory(['topics', 'list', '--deployment', other]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Not allowed');
  });

  it('an unknown id is a 404 pointing at the list command', async () => {
    const run = await memory(['action-items', 'get', 'no-such-item']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('memory action-items list');
  });

  it('a refused token is exit 4 with how to sign in', async () => {
    const run = await memory(['decisions', 'list'], { MEMORY_TOKEN: `${writerToken.slice(0, -4)}AAAA` });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('memory login');
  });

  it('without the CA file the core is not trusted', async () => {
    const run = await memory(['decisions', 'list'], { MEMORY_CA_FILE: '' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('MEMORY_CA_FILE');
  });

  it('bad flags are refused before any request (exit 2)', async () => {
    const run = await memory(['decisions', 'list', '--since', '2025-13-01']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--since');
  });
});
