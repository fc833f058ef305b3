import { Option, type Command } from 'commander';
import { operationByName, type Operation } from '../../contract/index.js';
import { addConnectionOptions, type GlobalOptions } from '../connection.js';
import { fieldSpecs, flagOf, type FieldSpec } from './command-options.js';
import { COMMANDS, type CommandSpec } from './command-table.js';

/** Flags every memory command takes besides its operation's own. */
export interface CommandFlags extends GlobalOptions {
  json?: boolean;
  all?: boolean;
}

/** One invocation of a generated command, as parsed by commander. */
export interface CommandRun {
  spec: CommandSpec<string>;
  /** The operation's input from positional arguments and the operation's own flags. */
  input: Record<string, unknown>;
  flags: CommandFlags;
}

/** A table of commands, the operations they run and how a parsed command is run: the memory set or the admin set. */
export interface CommandSet {
  specs: readonly CommandSpec<string>[];
  operation(name: string): Operation;
  run(run: CommandRun): Promise<void>;
}

/** The `memory <noun> <verb>` commands over the memory API. */
export const MEMORY_COMMAND_SET: CommandSet = {
  specs: COMMANDS,
  operation: operationByName,
  async run(run) {
    const { runMemoryCommand } = await import('./memory-action.js');
    await runMemoryCommand(run);
  },
};

/** Adds the verbs of `noun` (or, for `search`, the noun's own argument and flags) from the set's command table. */
export function buildNoun(nounCommand: Command, noun: string, set: CommandSet = MEMORY_COMMAND_SET): void {
  for (const spec of set.specs.filter((candidate) => candidate.noun === noun)) {
    const command = spec.verb === undefined ? nounCommand : nounCommand.command(spec.verb);
    configure(command.description(spec.summary), spec, set);
  }
}

/** The argument name of a positional input field: `decision_id` -> `<decision-id>`. */
export function argumentOf(field: string): string {
  return `<${field.replaceAll('_', '-')}>`;
}

function configure(command: Command, spec: CommandSpec<string>, set: CommandSet): void {
  const op = set.operation(spec.op);
  const fields = fieldSpecs(op.input);
  const positional = spec.args ?? [];
  for (const field of positional) {
    command.argument(argumentOf(field), fields.find((candidate) => candidate.field === field)?.description);
  }
  const flagged = fields.filter(
    (field) => !positional.includes(field.field) && !(field.field in (spec.fixed ?? {})) && field.field !== 'deployment_id',
  );
  const attributes = new Map(flagged.map((field) => [field.field, addFieldOption(command, field)]));
  if (fields.some((field) => field.field === 'deployment_id') && !positional.includes('deployment_id')) {
    command.addOption(new Option('--deployment <id>', 'deployment (named teammate) to use (env MEMORY_DEPLOYMENT)'));
  }
  if (fields.some((field) => field.field === 'cursor')) {
    command.addOption(new Option('--all', 'follow next_cursor and print every page (--limit sets the page size)'));
  }
  command.addOption(new Option('--json', 'print JSON (the default when stdout is not a terminal)'));
  addConnectionOptions(command);
  command.action(async (...received: unknown[]) => {
    const invoked = received.at(-1) as Command;
    const flags = invoked.opts<CommandFlags & Record<string, unknown>>();
    const input: Record<string, unknown> = {};
    positional.forEach((field, index) => (input[field] = received[index]));
    for (const [field, attribute] of attributes) if (flags[attribute] !== undefined) input[field] = flags[attribute];
    await set.run({ spec, input, flags });
  });
}

/** Adds the flag of one input field and returns the key commander stores its value under. */
function addFieldOption(command: Command, field: FieldSpec): string {
  const flag = flagOf(field.field);
  const description = field.required ? `${field.description} (required)` : field.description;
  let option: Option;
  switch (field.kind) {
    case 'boolean':
      option = new Option(flag, description);
      break;
    case 'number':
      option = new Option(`${flag} <n>`, description).argParser((value) => (value.trim() === '' ? Number.NaN : Number(value)));
      break;
    case 'enum':
      option = new Option(`${flag} <${field.field}>`, description).choices(field.choices ?? []);
      break;
    case 'array':
      option = new Option(`${flag} <list>`, `${description}; comma-separated${field.choices ? `: ${field.choices.join(',')}` : ''}`).argParser(
        (value) => value.split(',').map((item) => item.trim()).filter((item) => item !== ''),
      );
      break;
    default:
      option = new Option(`${flag} <${placeholder(field)}>`, description);
  }
  command.addOption(option);
  return option.attributeName();
}

function placeholder(field: FieldSpec): string {
  if (field.description.includes('YYYY-MM-DD')) return 'YYYY-MM-DD';
  if (field.field.endsWith('_id')) return 'id';
  return field.field;
}
