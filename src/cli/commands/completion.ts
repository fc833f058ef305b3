import { Argument, type Command } from 'commander';
import { expandAdminCommands } from './admin-commands.js';
import { expandMemoryCommands } from './memory-commands.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** Registers `memory completion bash|zsh|fish`, which prints a completion script for the whole command tree. */
export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('Print a shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'the shell to complete in').choices(SHELLS))
    .addHelpText(
      'after',
      '\nLoad it with:\n  bash: source <(memory completion bash)\n  zsh:  source <(memory completion zsh)   (after compinit)\n  fish: memory completion fish | source',
    )
    .action(async (shell: Shell) => {
      await expandMemoryCommands(program);
      const admin = program.commands.find((command) => command.name() === 'admin');
      if (admin) await expandAdminCommands(admin);
      const { completionScript } = await import('./completion-script.js');
      process.stdout.write(completionScript(shell, program));
    });
}
