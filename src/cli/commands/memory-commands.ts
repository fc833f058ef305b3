import type { Command } from 'commander';
import { NOUNS } from './command-table.js';

const expanded = new WeakSet<Command>();

/**
 * Registers the memory nouns (`decisions`, `questions`, ...) on the program. Only their names and summaries are
 * registered up front: verbs, arguments and flags come from the operations' zod schemas, which are loaded when a
 * noun is dispatched to, so `memory --version` and `memory --help` never load zod, the client or undici.
 */
export function registerMemoryCommands(program: Command): void {
  for (const [noun, summary] of Object.entries(NOUNS)) program.command(noun).description(summary);
  program.hook('preSubcommand', async (_program, subcommand) => {
    if (Object.hasOwn(NOUNS, subcommand.name())) await expandMemoryCommands(program, [subcommand.name()]);
  });
}

/**
 * Fills in the verbs, arguments and flags of the given nouns (all by default), once per noun; completion scripts
 * call this to see the whole tree.
 */
export async function expandMemoryCommands(program: Command, nouns: readonly string[] = Object.keys(NOUNS)): Promise<void> {
  const { buildNoun } = await import('./memory-command-builder.js');
  for (const noun of nouns) {
    const command = program.commands.find((candidate) => candidate.name() === noun);
    if (command === undefined || expanded.has(command)) continue;
    expanded.add(command);
    buildNoun(command, noun);
  }
}
