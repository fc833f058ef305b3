import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderReliabilitySection, type RunResults } from './report.js';
import { LAST_RUN_FILE, RESULTS_DIR, clearParts, readSuiteResults } from './results.js';

/** The long run's README section, next to the results it is generated from. */
export const README_SECTION_FILE = join(RESULTS_DIR, 'readme-section.md');

function commit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/**
 * vitest globalSetup of the long run: clears the parts of an earlier run before the suites start, and afterwards
 * merges what each suite wrote into last-run.json and renders the README section from it.
 */
export function setup(): () => void {
  clearParts();
  const startedAt = new Date().toISOString();
  return () => {
    const results: RunResults = {
      mode: 'long',
      started_at: startedAt,
      finished_at: new Date().toISOString(),
      commit: commit(),
      node: process.versions.node,
      suites: readSuiteResults(),
    };
    writeFileSync(LAST_RUN_FILE, `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(README_SECTION_FILE, renderReliabilitySection(results));
    process.stdout.write(`reliability results: ${LAST_RUN_FILE}\nREADME section: ${README_SECTION_FILE}\n`);
  };
}
