import { Option, type Command } from 'commander';
import { addConnectionOptions, type GlobalOptions } from '../connection.js';
import { usageError } from '../errors.js';

function onTerminal(): boolean {
  return Boolean(process.stdin.isTTY && process.stdout.isTTY);
}

/**
 * Ink draws nothing but the final frame when it believes it runs in CI (`CI` or `CONTINUOUS_INTEGRATION` set, as in
 * many dev containers), and it decides once, when it loads. The TUI runs only on a terminal, where someone watches
 * the screen, so that belief is wrong here and must be dropped before Ink loads.
 */
function drawLiveEvenWithCiSet(): void {
  for (const name of ['CI', 'CONTINUOUS_INTEGRATION']) {
    if (name in process.env) process.env[name] = 'false';
  }
}

/**
 * Runs the TUI until the user quits. Refuses to start without a terminal on both ends: scripts get the
 * `memory <noun>` commands and `--json` instead.
 */
async function startTui(flags: GlobalOptions): Promise<void> {
  if (!onTerminal()) {
    throw usageError('memory tui needs a terminal.', 'run it in a terminal; scripts use `memory <noun> list --json`');
  }
  drawLiveEvenWithCiSet();
  const { runTui } = await import('../tui/run-tui.js');
  await runTui(flags);
}

/**
 * `memory tui`, and `memory` alone on a terminal: the interactive browser. Ink and React load only when it starts.
 * Without a terminal `memory` alone prints the help (on stderr, exit 2) as before; an unknown word after `memory` is
 * still an unknown command.
 */
export function registerTui(program: Command): void {
  const command = program
    .command('tui')
    .description('Browse and act on the memory in an interactive terminal UI (also: `memory` alone on a terminal)')
    .addOption(new Option('--deployment <id>', 'deployment to open (default: the profile\'s, or the only one; env MEMORY_DEPLOYMENT)'));
  addConnectionOptions(command).action(startTui);

  // The root takes the words no subcommand matched only to name them in the error commander would give.
  program
    .usage('[options] [command]')
    .argument('[command...]')
    .action(async (words: string[]) => {
      const [word] = words;
      if (word !== undefined) program.error(`error: unknown command '${word}'`, { code: 'commander.unknownCommand' });
      if (onTerminal()) return startTui({});
      program.help({ error: true });
    });
}
