import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

/** The nearest folder up from here with bin/memory.js: the same whether this runs from source or bundled. */
function repositoryRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'bin', 'memory.js'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no bin/memory.js above ${from}`);
  }
}

/** The repository root; the bench runs the built package through a bin/memory.js, as users do. */
export const ROOT = repositoryRoot(import.meta.dirname);

export interface ChildServer {
  pid: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  stop(): Promise<void>;
}

/** Waits for the first stdout line of a child, failing with its stderr when it exits or stalls first. */
async function firstLine(child: ChildProcess, what: string, timeoutMs: number): Promise<string> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const lines = createInterface({ input: child.stdout! });
  try {
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${what} did not start within ${timeoutMs} ms: ${stderr}`)), timeoutMs);
      lines.once('line', (line) => {
        clearTimeout(timer);
        resolve(line);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${what} exited with ${code} before it was ready: ${stderr}`));
      });
    });
  } finally {
    lines.close();
  }
}

/** Ends a child with SIGTERM and waits for it (SIGKILL after a grace period, so a hung child never hangs the bench). */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts `memory serve` from the built package as a child process on a loopback port, over plain http so that it
 * compares with a bare node:http server (TLS would add the same cost to both and hide nothing of ours).
 */
export async function startCoreProcess(bin: string, dataDir: string): Promise<ChildServer & { baseUrl: string }> {
  const child = spawn(
    process.execPath,
    [bin, 'serve', '--no-tls', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--json'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
  );
  const ready = JSON.parse(await firstLine(child, 'memory serve', 120_000)) as { base_url: string };
  child.stdout?.resume();
  const baseUrl = ready.base_url;
  return { pid: child.pid!, origin: new URL(baseUrl).origin, baseUrl, stop: () => stopChild(child) };
}

/** The script of the baseline: a bare node:http server answering every request with one JSON body from memory. */
const BARE_SERVER = `
const http = require('node:http');
const body = require('node:fs').readFileSync(process.argv[1]);
const server = http.createServer((request, response) => {
  request.resume();
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  response.end(body);
});
server.keepAliveTimeout = 72000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

/** Starts the bare node:http baseline in its own process, so it competes for the CPU as the core does. */
export async function startBareServer(bodyFile: string): Promise<ChildServer> {
  const child = spawn(process.execPath, ['-e', BARE_SERVER, bodyFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = Number(await firstLine(child, 'the bare node:http server', 30_000));
  child.stdout?.resume();
  return { pid: child.pid!, origin: `http://127.0.0.1:${port}`, stop: () => stopChild(child) };
}

export interface ResidentMemory {
  /** Resident set size now (VmRSS), in MiB. */
  rssMiB: number;
  /** Peak resident set size since start (VmHWM), in MiB. */
  peakMiB: number;
}

/** The resident memory of a process as the kernel counts it (Linux /proc), measured from outside the process. */
export async function residentMemory(pid: number): Promise<ResidentMemory | null> {
  let status: string;
  try {
    status = await readFile(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}

/** Asks the built-in issuer for a client-credentials token, as any OAuth client would. */
export async function requestToken(origin: string, tenantId: string, clientId: string, secret: string): Promise<string> {
  const response = await fetch(`${origin}/${tenantId}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
      scope: 'api://meeting-memory/.default',
    }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (!response.ok || !body.access_token) throw new Error(`token request failed: ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}
