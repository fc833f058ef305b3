import { Option, type Command } from 'commander';
import { addConnectionOptions } from '../connection.js';
import { ADMIN_NOUNS } from './admin-command-table.js';

const expanded = new WeakSet<Command>();

/**
 * Registers `memory admin` and its nouns. As with the memory commands, only names and summaries are registered up
 * front; the verbs, arguments and flags are generated from the admin operations' zod schemas when a noun is
 * dispatched to. `import` and `people set` take files, so they are written out.
 */
export function registerAdminCommands(program: Command): void {
  const admin = program
    .command('admin')
    .description('Administer a self-hosted core with an admin principal: deployments, principals, grants, import, audit');
  for (const [noun, summary] of Object.entries(ADMIN_NOUNS)) admin.command(noun).description(summary);
  registerImport(admin);
  registerReindex(admin);
  admin.hook('preSubcommand', async (_admin, subcommand) => {
    if (Object.hasOwn(ADMIN_NOUNS, subcommand.name())) await expandAdminCommands(admin, [subcommand.name()]);
  });
}

/** Fills in the verbs of the given admin nouns (all by default), once per noun; completion scripts use it. */
export async function expandAdminCommands(admin: Command, nouns: readonly string[] = Object.keys(ADMIN_NOUNS)): Promise<void> {
  const [{ buildNoun }, { ADMIN_COMMAND_SET }] = await Promise.all([
    import('./memory-command-builder.js'),
    import('./admin-action.js'),
  ]);
  for (const noun of nouns) {
    const command = admin.commands.find((candidate) => candidate.name() === noun);
    if (command === undefined || expanded.has(command)) continue;
    expanded.add(command);
    buildNoun(command, noun, ADMIN_COMMAND_SET);
    if (noun === 'people') registerPeopleSet(command);
  }
}

function registerPeopleSet(people: Command): void {
  const command = people
    .command('set')
    .description('Map speaker names to identity-provider ids from a file: [{"idp_id","display_name"}] or {"<name>": "<id>"}')
    .argument('<file>', 'the people file (JSON)')
    .addOption(new Option('--json', 'print JSON (the default when stdout is not a terminal)'));
  addConnectionOptions(command).action(async (file: string, flags: Record<string, unknown>) => {
    const { runPeopleSet } = await import('./admin-import.js');
    await runPeopleSet(file, flags);
  });
}

function registerReindex(admin: Command): void {
  const command = admin
    .command('reindex')
    .description("Re-embed the tenant's records for semantic search (all deployments, or one), with a progress bar")
    .addOption(new Option('--deployment <id>', 'only this deployment'))
    .addOption(new Option('--no-wait', 'queue the records and return; the core embeds them in the background'))
    .addOption(new Option('--json', 'print JSON (the default when stdout is not a terminal)'));
  addConnectionOptions(command).action(async (flags: Record<string, unknown>) => {
    const { runReindex } = await import('./admin-reindex.js');
    await runReindex(flags);
  });
}

function registerImport(admin: Command): void {
  const command = admin
    .command('import')
    .description('Import meetings: WebVTT transcripts (Teams, Zoom) and JSON meeting documents; re-imports change nothing')
    .argument('<file...>', '.vtt transcripts and .json meeting documents; a transcript may have a <name>.meta.json sidecar')
    .addOption(new Option('--deployment <id>', 'deployment to import into (env MEMORY_DEPLOYMENT)'))
    .addOption(new Option('--title <title>', 'meeting title of a transcript (default: sidecar, else the file name)'))
    .addOption(new Option('--started-at <timestamp>', 'when the meeting started, YYYY-MM-DDThh:mm:ssZ (or the sidecar)'))
    .addOption(new Option('--ended-at <timestamp>', 'when it ended (default: start plus the last cue)'))
    .addOption(new Option('--platform <platform>', "meeting platform (default: the deployment's)").choices(['teams', 'zoom', 'meet', 'webex']))
    .addOption(new Option('--organizer <name>', 'organizer name (default: the first speaker)'))
    .addOption(new Option('--external-id <id>', "the source system's meeting id (default: a hash of the file)"))
    .addOption(new Option('--people <file>', 'map speaker names to identity-provider ids first (see `memory admin people set`)'))
    .addOption(new Option('--json', 'print JSON (the default when stdout is not a terminal)'));
  addConnectionOptions(command).action(async (files: string[], flags: Record<string, unknown>) => {
    const { runAdminImport } = await import('./admin-import.js');
    await runAdminImport(files, flags);
  });
}
