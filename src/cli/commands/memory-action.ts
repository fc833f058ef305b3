import type { z } from 'zod';
import type { MemoryClient, PageableName } from '../../client/client.js';
import { operationByName, type Operation, type OperationName } from '../../contract/index.js';
import { resolveConnection, type Connection } from '../connection.js';
import { CliError, usageError } from '../errors.js';
import { toCliError, type ErrorContext } from '../output/api-errors.js';
import { printResult } from '../output/render.js';
import { processTerminal, type Terminal } from '../output/terminal.js';
import { flagOf } from './command-options.js';
import { COMMANDS, type CommandSpec } from './command-table.js';
import { argumentOf, type CommandRun } from './memory-command-builder.js';

/** One invocation of a memory command, as parsed by commander. */
export interface MemoryCommandRun extends CommandRun {
  terminal?: Terminal;
}

/** A client as a command needs it: calls by name, and what the set does when no deployment is named. */
export interface TargetClient {
  call(name: string, input: Record<string, unknown>): Promise<unknown>;
  /** Every page of a pageable operation as one envelope (`--all`); absent where nothing pages. */
  everyPage?(name: string, input: Record<string, unknown>): Promise<object>;
  /** The deployment to use when neither a flag nor the environment names one. */
  defaultDeployment(): Promise<string>;
  close(): Promise<void>;
}

/** Where a set's commands go: its operations, the words before its nouns, and the client that calls them. */
export interface CommandTarget {
  /** Words between `memory` and the noun in hints: '' for memory commands, 'admin' for admin ones. */
  prefix: string;
  specs: readonly CommandSpec<string>[];
  operation(name: string): Operation;
  open(connection: Connection): Promise<TargetClient>;
  /** A failure the set words itself, or undefined to use the memory wording. */
  explain?(error: unknown, context: ErrorContext): CliError | undefined;
}

const MEMORY_TARGET: CommandTarget = {
  prefix: '',
  specs: COMMANDS,
  operation: operationByName,
  async open(connection) {
    const { createMemoryClient } = await import('../../client/client.js');
    const client = createMemoryClient({
      baseUrl: connection.baseUrl,
      token: connection.token,
      ca: connection.ca,
      userAgent: 'meeting-memory-cli',
      transport: 'node',
    });
    return {
      call: (name, input) => client.call(name as OperationName, input as never),
      everyPage: (name, input) => everyPage(client, name as PageableName, input),
      defaultDeployment: () => onlyDeployment(client),
      close: () => client.close(),
    };
  },
};

/**
 * Runs one memory command: checks the input against the operation's schema (a usage error names the flag), finds
 * the core and the deployment, calls the operation (every page with `--all`) and prints the result. Client failures
 * become one sentence and the next step.
 */
export async function runMemoryCommand(run: MemoryCommandRun): Promise<void> {
  await runOperationCommand(run, MEMORY_TARGET);
}

/** Runs one generated command of any set (see runMemoryCommand) against its target. */
export async function runOperationCommand(run: MemoryCommandRun, target: CommandTarget): Promise<void> {
  const { spec, flags } = run;
  const op = target.operation(spec.op);
  const schema = op.input as z.ZodObject;
  const deploymentField = schema.shape.deployment_id as z.ZodType | undefined;
  // An optional deployment (a filter) is used when named and never looked up.
  const needsDeployment = deploymentField !== undefined && !deploymentField.safeParse(undefined).success;
  const input: Record<string, unknown> = { ...run.input, ...spec.fixed };
  if (deploymentField && flags.deployment !== undefined && input.deployment_id === undefined) input.deployment_id = flags.deployment;
  const context = errorContext(spec, op, input, target);
  // Refuse bad flags before anything goes over the network. The deployment may still have to be looked up, so a
  // stand-in id takes its place in this first check.
  const pending = needsDeployment && input.deployment_id === undefined;
  validate(schema, pending ? { ...input, deployment_id: 'pending' } : input, context);

  const connection = await resolveConnection(flags);
  const client = await target.open(connection);
  try {
    if (needsDeployment && input.deployment_id === undefined) {
      input.deployment_id = connection.defaultDeployment ?? (await client.defaultDeployment());
      context.deployment = String(input.deployment_id);
    }
    const checked = validate(schema, input, context);
    const result =
      flags.all && Object.hasOwn(schema.shape, 'cursor') && client.everyPage
        ? await client.everyPage(op.name, checked)
        : await client.call(op.name, checked);
    printResult(result, run.terminal ?? processTerminal(), {
      json: flags.json === true,
      noun: spec.verb === undefined ? 'results' : spec.noun.replace('-', ' '),
      done: spec.done,
    });
  } catch (error) {
    throw target.explain?.(error, context) ?? toCliError(error, context);
  } finally {
    await client.close();
  }
}

function errorContext(
  spec: CommandSpec<string>,
  op: Operation,
  input: Record<string, unknown>,
  target: CommandTarget,
): ErrorContext {
  const positional = spec.args ?? [];
  const restToField = Object.fromEntries(Object.entries(op.restNames ?? {}).map(([field, rest]) => [rest, field]));
  const idField = positional.find((field) => field.endsWith('_id'));
  const noun = [target.prefix, spec.noun].filter(Boolean).join(' ');
  return {
    command: [noun, spec.verb].filter(Boolean).join(' '),
    noun,
    listable: target.specs.some((candidate) => candidate.noun === spec.noun && candidate.verb === 'list'),
    deployment: typeof input.deployment_id === 'string' ? input.deployment_id : undefined,
    write: op.access === 'write',
    recordId: idField === undefined ? undefined : String(input[idField]),
    flagOf: (name) => {
      const field = restToField[name] ?? name;
      if (positional.includes(field)) return argumentOf(field);
      return field === 'deployment_id' ? '--deployment' : flagOf(field);
    },
  };
}

function validate(schema: z.ZodObject, input: Record<string, unknown>, context: ErrorContext): Record<string, unknown> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data as Record<string, unknown>;
  const fields = Object.keys(schema.shape);
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path[0];
    // Cross-field rules name other fields in their message; say them as the flags the user typed.
    const message = issue.code === 'custom' ? namesAsFlags(issue.message, fields, context) : issue.message;
    return typeof field === 'string' ? `${context.flagOf(field)}: ${message}` : message;
  });
  throw usageError(problems.join('; '), `see \`memory ${context.command} --help\``);
}

function namesAsFlags(message: string, fields: string[], context: ErrorContext): string {
  return fields.reduce((text, field) => text.replace(new RegExp(`\\b${field}\\b`, 'g'), context.flagOf(field)), message);
}

/** The deployment to use when none is named: the only one the caller can reach. */
async function onlyDeployment(client: MemoryClient): Promise<string> {
  const { items } = await client.listDeployments();
  const [only] = items;
  if (only !== undefined && items.length === 1) return only.id;
  if (items.length === 0) {
    throw new CliError('You have a grant on no deployment.', { hint: 'ask an admin for a grant on a deployment' });
  }
  const choices = items.map((deployment) => `${deployment.id} (${deployment.name})`).join(', ');
  throw usageError('Which deployment? You can reach several.', `pass --deployment <id> or set MEMORY_DEPLOYMENT; one of: ${choices}`);
}

/** Every page of a list or search as one envelope with no further cursor. */
async function everyPage(client: MemoryClient, name: PageableName, input: Record<string, unknown>): Promise<object> {
  const records: unknown[] = [];
  let capped = false;
  for await (const page of client.pages(name, input as never)) {
    const body = page as { items?: unknown[]; results?: unknown[]; was_capped?: boolean };
    records.push(...(body.items ?? body.results ?? []));
    capped ||= body.was_capped === true;
  }
  return name === 'searchMemory' ? { results: records, next_cursor: null, was_capped: capped } : { items: records, next_cursor: null };
}
