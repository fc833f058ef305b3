import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { BIN } from '../../helpers/build.js';

/** A `memory serve` process of the built package, as an operator runs it. */
export interface ServeChild {
  pid: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  dataDir: string;
  /** Resolves when the process has exited, with its code or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What the process wrote to stderr, for failure reports. */
  stderr(): string;
}

/**
 * Starts `node bin/memory.js serve --data-dir D --no-tls --port 0 --json` (with `--demo` when asked) and resolves
 * once its ready line is printed. Rejects if it exits or stays silent for `timeoutMs` first.
 */
export function startServe(dataDir: string, options: { demo: boolean; timeoutMs?: number }): Promise<ServeChild> {
  const args = [BIN, 'serve', '--data-dir', dataDir, '--no-tls', '--port', '0', '--json', ...(options.demo ? ['--demo'] : [])];
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`memory serve printed no ready line within ${options.timeoutMs ?? 30_000} ms\n${stderr}`));
    }, options.timeoutMs ?? 30_000);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`memory serve exited (${code ?? signal}) before it was ready\n${stderr}`));
    });
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      try {
        const ready = JSON.parse(line) as { base_url: string };
        resolve({ pid: child.pid!, origin: new URL(ready.base_url).origin, dataDir, exited, stderr: () => stderr });
      } catch {
        child.kill('SIGKILL');
        reject(new Error(`memory serve printed ${line} instead of its ready line\n${stderr}`));
      }
    });
  });
}

/** Ends a child this suite started, by its pid, and waits until it is gone. */
export async function killServe(child: ServeChild, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  try {
    process.kill(child.pid, signal);
  } catch {
    // Already gone: nothing to end.
  }
  await child.exited;
}

/** The resident set size of a process in KiB, from /proc (Linux). */
export function residentKib(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]);
}
