import { Command } from 'commander';
import type { z } from 'zod';
import type { AgentInvocation, RoundTrace } from '../../contract/agent-invocation.js';
import { addConnectionOptions, resolveConnection, type GlobalOptions } from '../connection.js';
import { CliError, usageError } from '../errors.js';
import { processTerminal, type Terminal } from '../output/terminal.js';

interface AskFlags extends GlobalOptions {
  meeting?: string;
  json?: boolean;
}

/** The whole exchange may take the longest budget (30 s) and the core's own work around it. */
const ASK_TIMEOUT_MS = 45_000;

/** What to try next for a fallback, by its reason. */
const NEXT_STEP: Partial<Record<string, string>> = {
  'no-backend': 'register one with `memory admin backend set`',
  'secret-unresolvable': "make the secret reference resolvable where the core runs (its environment, file or keychain)",
  'url-refused': 'register an https URL on a public address, or start the core with --allow-http-loopback-backends / --allow-private-backends',
  'address-refused': 'point the name at a public address, or start the core with --allow-http-loopback-backends / --allow-private-backends',
  tls: "start the core with --backend-ca-file <the backend's CA>, or give the backend a publicly trusted certificate",
  timeout: "answer faster, or raise the deployment's timeout_ms with `memory admin backend set`",
  'http-status': 'check that the backend holds the same secret as the reference, and run `memory agent-check <url>` against it',
};

/**
 * `memory ask "<utterance>"`: says the utterance to a deployment's teammate through the admin route and prints what
 * it would say and a trace of every round with its backend. Exit code 1 when the fallback line was spoken.
 */
async function runAsk(utterance: string, flags: AskFlags, terminal: Terminal = processTerminal()): Promise<void> {
  const [{ AskTeammateInput }, { createAdminClient, MemoryApiError }, { toCliError }] = await Promise.all([
    import('../../contract/agent-invocation.js'),
    import('../../client/index.js'),
    import('../output/api-errors.js'),
  ]);
  // Refuse bad arguments before signing in; the deployment may still come from the profile.
  checked(AskTeammateInput, { deployment_id: flags.deployment ?? 'pending', utterance, meeting_id: flags.meeting });
  const connection = await resolveConnection(flags);
  const deployment = flags.deployment ?? connection.defaultDeployment;
  if (deployment === undefined) throw usageError('Name the deployment to ask.', 'pass --deployment <id> (see `memory admin deployments list`)');
  const input = checked(AskTeammateInput, { deployment_id: deployment, utterance, meeting_id: flags.meeting });
  const client = createAdminClient({
    baseUrl: connection.baseUrl,
    token: connection.token,
    ca: connection.ca,
    userAgent: 'meeting-memory-cli',
    timeoutMs: ASK_TIMEOUT_MS,
    transport: 'node',
  });
  let invocation: AgentInvocation;
  try {
    invocation = await client.askTeammate(input);
  } catch (error) {
    if (error instanceof MemoryApiError && error.status === 403) {
      throw new CliError('Not allowed: asking a teammate needs an admin principal (403).', {
        hint: 'sign in with an admin principal, one whose token carries the Memory.Admin role',
      });
    }
    throw toCliError(error, {
      command: 'ask',
      noun: 'admin deployments',
      listable: true,
      deployment,
      write: true,
      recordId: deployment,
      flagOf: (name) => FLAGS[name] ?? `--${name}`,
    });
  } finally {
    await client.close();
  }
  terminal.out(flags.json || !terminal.isTTY ? `${JSON.stringify(invocation, null, 2)}\n` : formatInvocation(invocation));
  if (invocation.fallback) {
    const failure = invocation.failure!;
    throw new CliError(`The backend failed (${failure.code}): the fallback line was spoken.`, { hint: NEXT_STEP[failure.code] });
  }
}

/** How the user passes each input field. */
const FLAGS: Record<string, string> = { deployment_id: '--deployment', meeting_id: '--meeting', utterance: '<utterance>' };

/** The parsed input, or a usage error naming the flag of the first problem. */
function checked<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw usageError(`${FLAGS[String(issue.path[0])] ?? 'input'} ${issue.message}.`, 'see `memory ask --help`');
}

/** The teammate's words, then one line per round: status, latency, sizes, tool calls and verdict. */
export function formatInvocation(invocation: AgentInvocation): string {
  const lines = [
    invocation.fallback ? `Fallback spoken: ${invocation.spoken}` : `Teammate says: ${invocation.spoken}`,
  ];
  if (invocation.failure) lines.push(`Why: ${invocation.failure.code}: ${invocation.failure.detail}`);
  const budget = invocation.timeout_ms === null ? '' : `, budget ${invocation.timeout_ms} ms`;
  lines.push('', `Backend ${invocation.backend_url ?? '(none registered)'}${budget}, ${invocation.elapsed_ms} ms in all, invocation ${invocation.invocation_id}`);
  for (const round of invocation.rounds) lines.push(...formatRound(round));
  return `${lines.join('\n')}\n`;
}

function formatRound(round: RoundTrace): string[] {
  const status = round.status === null ? 'no answer' : String(round.status);
  const sizes = `${round.request_bytes} B sent${round.response_bytes === null ? '' : `, ${round.response_bytes} B back`}`;
  const head = `  round ${round.round}: ${status} in ${round.latency_ms} ms (${round.messages} messages, ${sizes}): ${round.verdict}`;
  const calls = round.tool_calls.map((call) => {
    const found = call.results === null ? 'not run' : `${call.results} records`;
    return `    ${call.name}(${call.query === null ? '' : JSON.stringify(call.query)}) -> ${found}`;
  });
  const failure = round.failure ? [`    ${round.failure.code}: ${round.failure.detail}`] : [];
  return [head, ...calls, ...failure];
}

/** `memory ask "<utterance>" --deployment <id> [--meeting <id>] [--json]`. */
export function registerAsk(program: Command): void {
  const command = program
    .command('ask')
    .description("Say something to a deployment's teammate and see what it would answer, with a trace of its backend rounds (admin)")
    .argument('<utterance>', 'what a participant says to the teammate')
    .option('--deployment <id>', 'the deployment whose teammate to ask (env MEMORY_DEPLOYMENT)')
    .option('--meeting <id>', 'a meeting of the deployment the utterance is said in (default: an ad-hoc one)')
    .option('--json', 'print the invocation as JSON (the default when stdout is not a terminal)');
  addConnectionOptions(command).action((utterance: string, flags: AskFlags) => runAsk(utterance, flags));
}
