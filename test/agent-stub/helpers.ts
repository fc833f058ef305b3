import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { SEARCH_MEMORY_TOOL, SIGNATURE_HEADER, signBody, type BackendRequest } from '../../src/contract/index.js';
import type { CallLogEntry } from '../../src/agent-stub/call-log.js';
import { startAgentStub, type AgentStub, type AgentStubOptions } from '../../src/agent-stub/server.js';
import { toTimestamp } from '../../src/agent-stub/timestamp.js';
import { createEphemeralTlsMaterial } from '../../src/tls/index.js';

export const SECRET = 'test-shared-secret-0123456789abcdef';

/** One CA and server certificate for every stub in a test file: generating keys is the slow part. */
export const TLS = createEphemeralTlsMaterial(['127.0.0.1']);

export interface TestStub extends AgentStub {
  calls: CallLogEntry[];
  dispatcher: Agent;
}

/** A stub over real TLS on 127.0.0.1, a port of its own, its call log collected, and a client that trusts it. */
export async function startTestStub(options: Partial<AgentStubOptions> = {}): Promise<TestStub> {
  const calls: CallLogEntry[] = [];
  const stub = await startAgentStub({
    secret: SECRET,
    port: 0,
    tls: { key: TLS.key, cert: TLS.cert },
    log: (entry) => calls.push(entry),
    ...options,
  });
  const dispatcher = new Agent({ connect: { ca: TLS.ca } });
  return {
    ...stub,
    calls,
    dispatcher,
    close: async () => {
      await dispatcher.close();
      await stub.close();
    },
  };
}

/** A valid round-one request; `overrides.metadata` merges into the metadata. */
export function backendRequest(overrides: Partial<Omit<BackendRequest, 'metadata'>> & { metadata?: Partial<BackendRequest['metadata']> } = {}): BackendRequest {
  const { metadata, ...rest } = overrides;
  return {
    system: 'You are Ada, a teammate.',
    messages: [{ role: 'user', content: 'What did we decide about pricing?' }],
    tools: [SEARCH_MEMORY_TOOL],
    ...rest,
    metadata: {
      deployment_id: randomUUID(),
      invocation_id: randomUUID(),
      meeting_id: randomUUID(),
      timeout_ms: 5000,
      sent_at: toTimestamp(Date.now()),
      round: 1,
      ...metadata,
    },
  };
}

export interface PostResult {
  status: number;
  json: unknown;
}

/** POSTs raw bytes with a given signature header (none when undefined). */
export async function postRaw(
  stub: TestStub,
  body: string | Buffer,
  signature: string | undefined,
  headers: Record<string, string> = {},
): Promise<PostResult> {
  const response = await request(stub.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signature ? { [SIGNATURE_HEADER]: signature } : {}), ...headers },
    body,
    dispatcher: stub.dispatcher,
  });
  const text = await response.body.text();
  return { status: response.statusCode, json: text ? JSON.parse(text) : undefined };
}

/** POSTs a request signed with `secret` (the test secret by default). */
export function postSigned(stub: TestStub, payload: unknown, secret = SECRET): Promise<PostResult> {
  const body = JSON.stringify(payload);
  return postRaw(stub, body, signBody(secret, body));
}

export interface CapturedOutput {
  stdout(): string;
  stderr(): string;
  restore(): void;
}

/** Collects what the CLI writes to stdout and stderr (instead of printing it) until restored. */
export function captureOutput(): CapturedOutput {
  const out: string[] = [];
  const err: string[] = [];
  const originalOut = process.stdout.write.bind(process.stdout);
  const originalErr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => out.push(String(chunk)) > 0) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => err.push(String(chunk)) > 0) as typeof process.stderr.write;
  return {
    stdout: () => out.join(''),
    stderr: () => err.join(''),
    restore: () => {
      process.stdout.write = originalOut;
      process.stderr.write = originalErr;
    },
  };
}

/** Runs `memory <args>` in this process and returns its exit code and output. */
export async function runMemory(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { runCli } = await import('../../src/cli/run.js');
  const output = captureOutput();
  try {
    const code = await runCli(['node', 'memory', ...args]);
    return { code, stdout: output.stdout(), stderr: output.stderr() };
  } finally {
    output.restore();
  }
}

/** Polls until `read()` matches `pattern` (e.g. a CLI's start-up line), or fails after `timeoutMs`. */
export async function waitForMatch(read: () => string, pattern: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = read().match(pattern);
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`no ${pattern} in: ${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
