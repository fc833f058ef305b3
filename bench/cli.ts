import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { summarize, type LatencySummary } from './load.js';
import { ROOT } from './processes.js';

export interface ColdStart {
  tool: 'hyperfine' | 'spawn';
  node: LatencySummary;
  memory: LatencySummary;
}

/** Wall time of one run of a command, failing loudly when it does not exit 0 (timing a failure would mislead). */
function timedRun(command: string, args: string[], env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const run = spawnSync(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const elapsed = performance.now() - started;
  if (run.status !== 0) {
    throw new Error(`${[command, ...args].join(' ')} exited ${run.status}: ${run.stderr.toString().slice(0, 500)}`);
  }
  return elapsed;
}

function hasHyperfine(): boolean {
  return spawnSync('hyperfine', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** hyperfine's own statistics, which correct for the shell it spawns through. */
function hyperfineColdStart(bin: string, runs: number): ColdStart {
  const dir = mkdtempSync(join(tmpdir(), 'mm-bench-hf-'));
  try {
    const file = join(dir, 'out.json');
    const node = JSON.stringify(process.execPath);
    const run = spawnSync(
      'hyperfine',
      ['--warmup', '3', '--runs', String(runs), '--export-json', file, '--style', 'none',
        `${node} -e 0`, `${node} ${JSON.stringify(bin)} --version`],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    if (run.status !== 0) throw new Error(`hyperfine failed: ${run.stderr.toString()}`);
    const { results } = JSON.parse(readFileSync(file, 'utf8')) as { results: { times: number[] }[] };
    const [nodeTimes, memoryTimes] = results.map((result) => result.times.map((seconds) => seconds * 1000));
    return { tool: 'hyperfine', node: summarize(nodeTimes ?? []), memory: summarize(memoryTimes ?? []) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `memory --version` against `node -e 0`, each started as a fresh process: hyperfine when installed, else spawned
 * here in alternation (after warm-up runs, so both start from a warm file cache).
 */
export function measureColdStart(bin: string, runs: number): ColdStart {
  if (hasHyperfine()) return hyperfineColdStart(bin, runs);
  const node: number[] = [];
  const memory: number[] = [];
  for (let round = 0; round < runs + 3; round += 1) {
    const nodeTime = timedRun(process.execPath, ['-e', '0'], process.env);
    const memoryTime = timedRun(process.execPath, [bin, '--version'], process.env);
    if (round < 3) continue;
    node.push(nodeTime);
    memory.push(memoryTime);
  }
  return { tool: 'spawn', node: summarize(node), memory: summarize(memory) };
}

/** Wall time of `memory decisions list --json` against a local core, with the token from MEMORY_TOKEN. */
export function measureDecisionsList(
  bin: string,
  connection: { baseUrl: string; token: string; deploymentId: string },
  runs: number,
): LatencySummary {
  const env = {
    ...process.env,
    MEMORY_BASE_URL: connection.baseUrl,
    MEMORY_TOKEN: connection.token,
    MEMORY_DEPLOYMENT: connection.deploymentId,
    NO_COLOR: '1',
  };
  const times: number[] = [];
  for (let round = 0; round < runs + 1; round += 1) {
    const elapsed = timedRun(process.execPath, [bin, 'decisions', 'list', '--json'], env);
    if (round > 0) times.push(elapsed);
  }
  return summarize(times);
}
