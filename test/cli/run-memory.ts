import { vi } from 'vitest';
import { runCli } from '../../src/cli/run.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `memory <args>` in this process with `env` layered over the environment (MEMORY_* variables not named in
 * `env` are removed), capturing stdout and stderr.
 */
export async function runMemory(args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  const saved = { ...process.env };
  for (const name of Object.keys(process.env)) if (name.startsWith('MEMORY_')) delete process.env[name];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  const out: string[] = [];
  const err: string[] = [];
  const capture = (into: string[]) => (chunk: string | Uint8Array) => {
    into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  };
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(capture(out) as typeof process.stdout.write);
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(capture(err) as typeof process.stderr.write);
  try {
    const code = await runCli(['node', 'memory', ...args]);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
    process.env = saved;
  }
}
