import { spawn } from 'node:child_process';
import { BIN } from '../helpers/build.js';

export { BIN as bin, ensureBuilt } from '../helpers/build.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time of the run. */
  ms: number;
}

export interface RunOptions {
  /** The whole environment of the child (nothing is inherited but PATH). */
  env: Record<string, string | undefined>;
  /** Written to stdin, which is then closed; `'open'` leaves stdin an open pipe that never sends anything. */
  input?: string | 'open';
  timeoutMs?: number;
}

/** Runs the built `memory` as a child process with piped stdio (so never on a terminal), like a script would. */
export function runMemoryProcess(args: string[], options: RunOptions): Promise<CliRun> {
  const started = Date.now();
  const env = Object.fromEntries(Object.entries({ PATH: process.env.PATH, ...options.env }).filter(([, value]) => value !== undefined));
  const child = spawn(process.execPath, [BIN, ...args], { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  if (options.input !== 'open') child.stdin.end(options.input ?? '');
  const timeout = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timeout);
      child.stdin.destroy();
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), ms: Date.now() - started });
    });
  });
}

/** The claims of a JWT, unverified: enough to see who a token is for. */
export function jwtClaims(token: string): Record<string, unknown> {
  const payload = token.split('.')[1] ?? '';
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
}
