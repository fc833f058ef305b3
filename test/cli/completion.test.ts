import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMemory } from './run-memory.js';

const run = promisify(execFile);
let dir: string;
const scripts: Record<string, string> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memory-completion-'));
  for (const shell of ['bash', 'zsh', 'fish']) {
    const result = await runMemory(['completion', shell]);
    expect(result.code).toBe(0);
    scripts[shell] = result.stdout;
  }
  await writeFile(join(dir, 'memory.bash'), scripts.bash!);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What bash completes for the words typed so far (the last one being completed). */
async function bashComplete(words: string[]): Promise<string[]> {
  const script = `source ${JSON.stringify(join(dir, 'memory.bash'))}
COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_memory_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const { stdout } = await run('bash', ['--norc', '--noprofile', '-c', script]);
  return stdout.split('\n').filter(Boolean);
}

describe('completion scripts', () => {
  it('are generated for every shell and name the commands and their flags', () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const script = scripts[shell]!;
      for (const word of ['deployments', 'decisions', 'questions', 'action-items', 'statements', 'topics', 'meetings', 'search', 'serve', 'completion']) {
        expect(script, `${shell} mentions ${word}`).toContain(word);
      }
      for (const word of ['supersede', 'resolve', 'done', 'reopen', 'meeting-id', 'clear-due-date']) {
        expect(script, `${shell} mentions ${word}`).toContain(word);
      }
    }
    expect(scripts.bash).toContain('complete -F _memory_complete memory meeting-memory');
    expect(scripts.zsh).toMatch(/^#compdef memory meeting-memory/);
    expect(scripts.zsh).toContain("'supersede:Mark a decision superseded'");
    expect(scripts.fish).toContain(`__memory_at "memory decisions"`);
    expect(scripts.fish).toContain('-l clear-due-date');
  });

  it('parse as bash', async () => {
    await expect(run('bash', ['-n', join(dir, 'memory.bash')])).resolves.toBeDefined();
  });

  it('complete nouns, verbs, flags and flag values in bash', async () => {
    expect(await bashComplete(['memory', 'dec'])).toEqual(['decisions']);
    expect(await bashComplete(['memory', 'decisions', ''])).toEqual(expect.arrayContaining(['list', 'get', 'confirm', 'supersede']));
    expect(await bashComplete(['memory', 'action-items', 'update', 'ai-1', '--c'])).toEqual(
      expect.arrayContaining(['--clear-due-date', '--ca-file']),
    );
    expect(await bashComplete(['memory', 'decisions', 'list', '--order', ''])).toEqual(['desc', 'asc']);
    expect(await bashComplete(['memory', 'search', 'x', '--types', 'dec'])).toEqual([]);
    expect(await bashComplete(['memory', 'decisions', 'list', '--deployment', ''])).toEqual([]);
  });

  it('refuses an unknown shell (exit 2)', async () => {
    expect((await runMemory(['completion', 'tcsh'])).code).toBe(2);
  });
});
