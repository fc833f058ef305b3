import { hostname } from 'node:os';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import type { StubMode } from '../../agent-stub/index.js';
import { CliError, usageError } from '../errors.js';

interface AgentStubFlags {
  port: string;
  host: string;
  secret?: string;
  mode: 'echo' | 'canned' | 'tool-demo' | 'forward';
  canned?: string;
  forwardUrl?: string;
  forwardModel?: string;
  forwardKeyRef?: string;
  maxAge: string;
  json?: boolean;
  tls: boolean;
  tlsDir?: string;
}

/** The lazily loaded agent-stub module, passed around so its error classes can be matched. */
export type StubModule = typeof import('../../agent-stub/index.js');

/** An integer flag within bounds, or a usage error naming the flag. */
function integerFlag(flag: string, value: string, min: number, max: number): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) throw usageError(`${flag} must be an integer ${min}..${max}, not ${value}`);
  return parsed;
}

/** Flags that only make sense together, checked before anything is loaded or opened. */
function checkFlagCombinations(flags: AgentStubFlags, isLoopbackHost: (host: string) => boolean): void {
  if (!flags.tls && !isLoopbackHost(flags.host)) {
    throw usageError(`--no-tls is allowed only on a loopback host, not on ${flags.host}`, 'bind --host 127.0.0.1, or keep TLS on');
  }
  if (flags.mode === 'canned' && !flags.canned) throw usageError('--mode canned needs --canned <file.json>');
  if (flags.mode === 'forward' && (!flags.forwardUrl || !flags.forwardModel)) {
    throw usageError('--mode forward needs --forward-url <url> and --forward-model <model>');
  }
}

/** Runs `load`, turning the stub's own input errors (bad secret reference, bad canned file) into CLI errors. */
async function userInput<T>(stub: StubModule, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (error instanceof stub.SecretReferenceError) throw new CliError(error.message, { hint: 'check the secret reference' });
    if (error instanceof stub.CannedFileError) throw new CliError(error.message, { hint: 'fix the canned replies file' });
    throw error;
  }
}

async function buildMode(flags: AgentStubFlags, stub: StubModule): Promise<StubMode> {
  switch (flags.mode) {
    case 'echo':
    case 'tool-demo':
      return { kind: flags.mode };
    case 'canned':
      return { kind: flags.mode, replies: await userInput(stub, () => stub.loadCannedReplies(flags.canned!)) };
    case 'forward': {
      const apiKey = flags.forwardKeyRef ? await userInput(stub, () => stub.resolveSecretReference(flags.forwardKeyRef!)) : undefined;
      return { kind: flags.mode, target: { url: flags.forwardUrl!, model: flags.forwardModel!, apiKey } };
    }
  }
}

/** The generated CA and server certificate in --tls-dir (default: `<data dir>/agent-stub-tls`). */
async function tlsMaterial(flags: AgentStubFlags) {
  const { ensureTlsMaterial } = await import('../../tls/index.js');
  const dataDir = process.env.MEMORY_DATA_DIR ?? (await import('../../core/server/data-dir.js')).defaultDataDir();
  const dir = flags.tlsDir ?? join(dataDir, 'agent-stub-tls');
  // A wildcard bind is reached by this machine's name, so that is what the certificate must name.
  const hosts = flags.host === '0.0.0.0' || flags.host === '::' ? [hostname()] : [flags.host];
  return ensureTlsMaterial(dir, hosts);
}

/** The shared secret from --secret or MEMORY_AGENT_SECRET; neither is a usage error, a bad reference exit code 1. */
export async function commandSecret(stub: StubModule, reference: string | undefined): Promise<string> {
  if (reference === undefined && !process.env[stub.SECRET_ENV_VAR]) {
    throw usageError('no shared secret', `pass --secret env:NAME, file:/path or keychain:service/account, or set ${stub.SECRET_ENV_VAR}`);
  }
  return userInput(stub, () => stub.resolveSecretOption(reference));
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

async function runAgentStub(flags: AgentStubFlags): Promise<void> {
  const port = integerFlag('--port', flags.port, 0, 65535);
  const maxAgeSeconds = integerFlag('--max-age', flags.maxAge, 1, 86_400);
  const stub = await import('../../agent-stub/index.js');
  checkFlagCombinations(flags, stub.isLoopbackHost);
  const secret = await commandSecret(stub, flags.secret);
  const mode = await buildMode(flags, stub);
  const tls = flags.tls ? await tlsMaterial(flags) : undefined;
  const json = Boolean(flags.json) || !process.stdout.isTTY;
  let server;
  try {
    server = await stub.startAgentStub({
      secret,
      host: flags.host,
      port,
      tls: tls ? { key: tls.key, cert: tls.cert } : false,
      mode,
      maxAgeSeconds,
      log: (entry) => process.stdout.write(`${stub.formatCallLog(entry, json)}\n`),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new CliError(`port ${port} on ${flags.host} is in use`, { hint: 'pick another --port' });
    if (error instanceof stub.AgentStubConfigError) throw usageError(error.message);
    throw error;
  }
  // Messages go to stderr; stdout carries only the call log, one line per call, so it can be piped.
  process.stderr.write(`agent stub (${flags.mode}) listening on ${server.url}\n`);
  if (tls) process.stderr.write(`clients trust its certificate with the CA in ${tls.caFile} (agent-check --ca ${tls.caFile})\n`);
  await waitForSignal();
  await server.close();
}

/** `memory agent-stub`: a reference agent backend to start from and test with. Its code loads only when run. */
export function registerAgentStub(program: Command): void {
  program
    .command('agent-stub')
    .description('Run a reference agent backend: verifies signed requests from the service and answers by mode')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '8788')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--secret <reference>', 'shared secret: env:NAME, file:/path or keychain:service/account (default: $MEMORY_AGENT_SECRET)')
    .addOption(new Option('--mode <mode>', 'how to answer').choices(['echo', 'canned', 'tool-demo', 'forward']).default('echo'))
    .option('--canned <file>', 'JSON file of canned replies (with --mode canned)')
    .option('--forward-url <url>', 'OpenAI-compatible API base or /chat/completions URL (with --mode forward)')
    .option('--forward-model <model>', 'model name sent to --forward-url')
    .option('--forward-key-ref <reference>', 'API key for --forward-url, as a secret reference')
    .option('--max-age <seconds>', 'refuse requests whose metadata.sent_at is further than this from now', '300')
    .option('--json', 'log calls as JSON lines even on a terminal (always JSON when stdout is not a terminal)')
    .option('--no-tls', 'plain http; allowed only on a loopback host')
    .option('--tls-dir <dir>', 'where the generated CA and certificate live (default: <data dir>/agent-stub-tls)')
    .action(runAgentStub);
}
