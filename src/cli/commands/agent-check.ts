import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { CliError, usageError } from '../errors.js';
import { commandSecret } from './agent-stub.js';

interface AgentCheckFlags {
  secret?: string;
  ca?: string;
  insecureLoopbackHttp?: boolean;
  timeoutMs: string;
}

async function readCa(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new CliError(`cannot read the CA certificate ${file} (${code})`, { hint: 'pass the PEM file of the CA that issued the backend certificate' });
  }
}

async function runAgentCheck(url: string, flags: AgentCheckFlags): Promise<void> {
  const timeoutMs = Number(flags.timeoutMs);
  const stub = await import('../../agent-stub/index.js');
  const secret = await commandSecret(stub, flags.secret);
  const ca = flags.ca ? await readCa(flags.ca) : undefined;
  let outcomes;
  try {
    outcomes = await stub.checkAgentBackend({ url, secret, ca, allowLoopbackHttp: flags.insecureLoopbackHttp, timeoutMs });
  } catch (error) {
    if (error instanceof stub.CheckConfigError) throw usageError(error.message);
    throw error;
  }
  for (const outcome of outcomes) process.stdout.write(`${stub.formatRuleOutcome(outcome)}\n`);
  const failed = outcomes.filter((outcome) => !outcome.pass).length;
  if (failed > 0) {
    throw new CliError(`${failed} of ${outcomes.length} contract rules failed`, { hint: 'fix the backend and run agent-check again' });
  }
}

/** `memory agent-check <url>`: sends a backend signed contract requests and prints a PASS/FAIL line per rule. */
export function registerAgentCheck(program: Command): void {
  program
    .command('agent-check')
    .description('Check an agent backend against the contract; one PASS/FAIL line per rule, exit code 1 on any failure')
    .argument('<url>', 'the backend URL, as it would be registered')
    .option('--secret <reference>', 'shared secret: env:NAME, file:/path or keychain:service/account (default: $MEMORY_AGENT_SECRET)')
    .option('--ca <file>', 'PEM CA certificate to trust instead of the system ones (e.g. the agent stub\'s ca.pem)')
    .option('--insecure-loopback-http', 'allow an http:// URL on a loopback address')
    .option('--timeout-ms <ms>', 'metadata.timeout_ms of the requests and how long each may take (1000..30000)', '15000')
    .action(runAgentCheck);
}
