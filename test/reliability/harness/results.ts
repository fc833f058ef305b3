import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODE } from './mode.js';

/** Where the long run's merged results are committed. */
export const RESULTS_DIR = join(import.meta.dirname, '..', 'results');
export const LAST_RUN_FILE = join(RESULTS_DIR, 'last-run.json');

/** Where each suite drops its part of this run; the long run's teardown merges them into last-run.json. */
export function partsDir(): string {
  return join(tmpdir(), 'meeting-memory-reliability', MODE);
}

/** Empties the parts of an earlier run, so a merge only sees this one. */
export function clearParts(): void {
  rmSync(partsDir(), { recursive: true, force: true });
}

/** Records what one suite did (cases run, kills survived, requests served, leaks found, findings). */
export function writeSuiteResult(suite: string, result: Record<string, unknown>): void {
  mkdirSync(partsDir(), { recursive: true });
  writeFileSync(join(partsDir(), `${suite}.json`), `${JSON.stringify({ ...result, finished_at: new Date().toISOString() }, null, 2)}\n`);
}

/** Every suite part written in this run, by suite name. */
export function readSuiteResults(): Record<string, Record<string, unknown>> {
  let files: string[];
  try {
    files = readdirSync(partsDir()).filter((name) => name.endsWith('.json'));
  } catch {
    return {};
  }
  return Object.fromEntries(
    files.sort().map((name) => [name.replace(/\.json$/, ''), JSON.parse(readFileSync(join(partsDir(), name), 'utf8')) as Record<string, unknown>]),
  );
}
