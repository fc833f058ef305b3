import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMemoryClient, type MemoryClient } from '../../src/client/index.js';
import { bin, ensureBuilt, runMemoryProcess } from '../auth/cli-process.js';
import { startDemoCore, type TestCore } from '../helpers/core.js';

// The built `memory` in a real terminal: tmux runs it in a detached 120x40 pane on a private server socket, keys
// go in with send-keys and the screen comes back with capture-pane. The core is real (TLS, built-in issuer) and the
// TUI signs in through a profile made by `memory login --demo`.

const run = promisify(execFile);

let core: TestCore;
let scratch: string;
let socket: string;
let env: Record<string, string>;
let writer: MemoryClient;

async function tmux(...args: string[]): Promise<string> {
  return (await run('tmux', ['-S', socket, ...args])).stdout;
}

async function screen(session: string): Promise<string> {
  return tmux('capture-pane', '-p', '-t', session);
}

async function screenWith(session: string, ...texts: string[]): Promise<string> {
  await vi.waitFor(
    async () => {
      const shown = await screen(session);
      for (const text of texts) expect(shown).toContain(text);
    },
    { timeout: 15_000, interval: 100 },
  );
  return screen(session);
}

/** Starts `memory <args>` in a new tmux session; when it ends, the pane says how, for {@link exitCode} to read. */
async function start(session: string, args: string[], extra: Record<string, string> = {}): Promise<void> {
  const assignments = Object.entries({ ...env, ...extra }).map(([name, value]) => `${name}='${value}'`);
  const command = `env ${assignments.join(' ')} '${process.execPath}' '${bin}' ${args.join(' ')}; echo "memory exited with $?"; sleep 600`;
  await tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '40', command);
}

async function exitCode(session: string): Promise<string> {
  const shown = await screenWith(session, 'memory exited with');
  return /memory exited with (\d+)/.exec(shown)![1]!;
}

beforeAll(async () => {
  await ensureBuilt();
  scratch = await mkdtemp(join(tmpdir(), 'memory-tmux-'));
  socket = join(scratch, 'tmux.sock');
  core = await startDemoCore({ tls: { mode: 'generate' } });
  // CI=true as in CI runners and many dev containers: Ink would then draw nothing until exit, unless the TUI stops it.
  env = { HOME: scratch, XDG_CONFIG_HOME: join(scratch, 'config'), MEMORY_NO_KEYCHAIN: '1', TERM: 'xterm-256color', PATH: process.env.PATH ?? '', CI: 'true' };
  const login = await runMemoryProcess(['login', '--demo', '--data-dir', core.dataDir, '--insecure-storage'], { env });
  expect(login.code, login.stderr).toBe(0);
  const token = (await runMemoryProcess(['auth', 'token', '--profile', 'demo-writer'], { env })).stdout.trim();
  writer = createMemoryClient({ baseUrl: core.creds.base_url, ca: await readFile(core.creds.ca_file!, 'utf8'), token });
}, 120_000);

afterAll(async () => {
  await tmux('kill-server').catch(() => undefined);
  await writer?.close();
  await core?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('memory tui in tmux', () => {
  it('browses, searches and supersedes a decision with a note, then quits with q', async () => {
    await start('browse', ['tui', '--profile', 'demo-writer']);
    const first = await screenWith('browse', 'Decisions', 'Atlas · read_write', 'Decided');
    const id = /ID\s+(\S+)/.exec(first)![1]!;
    const before = await writer.getDecision({ deployment_id: core.creds.deployments[0]!.id, decision_id: id });

    await tmux('send-keys', '-t', 'browse', '3');
    await screenWith('browse', 'Action item ·', 'Assignee');
    await tmux('send-keys', '-t', 'browse', '/');
    await tmux('send-keys', '-t', 'browse', '-l', 'launch');
    await screenWith('browse', 'Search: launch');
    await tmux('send-keys', '-t', 'browse', 'Escape');
    await screenWith('browse', '(press / to search)');
    await tmux('send-keys', '-t', 'browse', '?');
    await screenWith('browse', 'Keys', 'search as you type');
    await tmux('send-keys', '-t', 'browse', 'Space', '1');
    await screenWith('browse', 'Decision ·', id);

    const key = before.status === 'superseded' ? 'c' : 's';
    await tmux('send-keys', '-t', 'browse', key);
    await screenWith('browse', 'Note (optional)');
    await tmux('send-keys', '-t', 'browse', '-l', 'from tmux');
    await tmux('send-keys', '-t', 'browse', 'Enter');
    await screenWith('browse', ': done.', 'from tmux');
    const after = await writer.getDecision({ deployment_id: core.creds.deployments[0]!.id, decision_id: id });
    expect(after).toMatchObject({ status: key === 's' ? 'superseded' : 'confirmed', note: 'from tmux' });

    await tmux('send-keys', '-t', 'browse', 'q');
    expect(await exitCode('browse')).toBe('0');
  });

  it('opens the TUI for `memory` alone on a terminal; without one, `memory` alone prints the help and `memory tui` refuses', async () => {
    env.MEMORY_PROFILE = 'demo-reader';
    try {
      await start('bare', []);
      await screenWith('bare', 'Decisions', 'Atlas · read-only');
      await tmux('send-keys', '-t', 'bare', 'Escape');
      expect(await exitCode('bare')).toBe('0');
    } finally {
      delete env.MEMORY_PROFILE;
    }
    const piped = await runMemoryProcess([], { env });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('Usage: memory');
    expect(piped.stdout).toBe('');
    const pipedTui = await runMemoryProcess(['tui', '--profile', 'demo-reader'], { env });
    expect(pipedTui.code).toBe(2);
    expect(pipedTui.stderr).toContain('memory tui needs a terminal.');
  });

  it('memory login asks for the secret on a terminal without echoing it', async () => {
    const principal = core.creds.principals[0]!;
    const args = ['login', '--profile', 'typed', '--base-url', core.creds.base_url, '--tenant', core.creds.tenant_id];
    await start('prompt', [...args, '--client-id', principal.client_id, '--ca-file', core.creds.ca_file!, '--insecure-storage'], {
      XDG_CONFIG_HOME: join(scratch, 'prompt-config'),
    });
    await screenWith('prompt', `Client secret for ${principal.client_id}:`);
    await tmux('send-keys', '-t', 'prompt', '-l', principal.client_secret);
    await tmux('send-keys', '-t', 'prompt', 'Enter');
    const shown = await screenWith('prompt', 'Signed in: profile "typed"', 'memory exited with 0');
    expect(shown).not.toContain(principal.client_secret);
  });
});
