import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { DEFAULT_FALLBACK_LINE } from '../../contract/admin-params.js';
import type { AgentInvocation, RoundTrace } from '../../contract/agent-invocation.js';
import {
  BackendRequest,
  BackendResponse,
  DEFAULT_RESPONSE_CAP_BYTES,
  LIMITS,
  MAX_TOOL_ROUNDS,
  SEARCH_MEMORY_TOOL,
  SIGNATURE_HEADER,
  signBody,
  type BackendMessage,
  type ToolCall,
} from '../../contract/index.js';
import { packageVersion } from '../../contract/package-info.js';
import { resolveSecretReference } from '../../contract/secret-reference.js';
import type { AgentBackend, Scope, Store } from '../store/store.js';
import { PUBLIC_BACKENDS_ONLY } from './address-policy.js';
import { createBackendTransport, ExchangeFailure, type BackendTransport, type BackendTransportOptions } from './backend-transport.js';
import { backendUrlProblem } from './backend-url.js';
import { InvocationFailure } from './invocation-failure.js';

/** Most tool calls one backend answer may ask for; each runs a memory search inside the budget. */
export const MAX_TOOL_CALLS_PER_ROUND = 4;
/** Largest request body the service sends; the reference backend refuses bodies over 1 MB. */
export const MAX_REQUEST_BYTES = DEFAULT_RESPONSE_CAP_BYTES;

/** The memory query behind the `searchMemory` tool, confined to one deployment; answers the tool's JSON result. */
export type MemorySearch = (scope: Scope, query: string) => Promise<{ results: unknown[]; was_capped: boolean }>;

/** One line per invocation for the operator's log: the outcome and, on a fallback, why. Never the secret. */
export interface InvocationLogEntry {
  event: 'agent_backend_invocation';
  invocation_id: string;
  tenant_id: string;
  deployment_id: string;
  meeting_id: string;
  outcome: 'answered' | 'fallback';
  reason: AgentInvocation['failure'];
  rounds: number;
  last_status: number | null;
  elapsed_ms: number;
}

export interface BackendInvokerOptions extends BackendTransportOptions {
  store: Store;
  search: MemorySearch;
  log?: (entry: InvocationLogEntry) => void;
  /** The process environment secret references are resolved against. */
  env?: NodeJS.ProcessEnv;
}

export interface AskInput {
  tenantId: string;
  deployment: { id: string; name: string };
  /** The meeting the utterance is said in; a fresh id (an ad-hoc meeting) when absent. */
  meetingId?: string;
  utterance: string;
}

export interface BackendInvoker {
  /** What the teammate says to the utterance: the backend's answer, or the fallback line on any failure. Never throws on a backend failure. */
  ask(input: AskInput): Promise<AgentInvocation>;
  close(): Promise<void>;
}

const SearchArguments = z.object({ query: z.string().trim().min(1).max(LIMITS.query) });

/** The system prompt sent when the deployment registered none. */
export function defaultSystemPrompt(name: string): string {
  return (
    `You are ${name}, a teammate taking part in a meeting. Someone has just addressed you. Answer in one to three ` +
    'short spoken sentences. For anything decided, asked, assigned or said in earlier meetings, call searchMemory ' +
    'first and answer only from what it returns; if memory has nothing, say so.'
  );
}

/**
 * Invokes deployments' agent backends (the agent backend contract): builds the request, signs its exact bytes with
 * the secret resolved at call time, POSTs it under the registered budget, runs the `searchMemory` calls the backend
 * asks for inside the deployment, and returns what the teammate says with a trace of every round. Any failure
 * speaks the fallback line and is logged with its reason; nothing is retried.
 */
export function createBackendInvoker(options: BackendInvokerOptions): BackendInvoker {
  const transport = createBackendTransport(options);
  const log = options.log ?? logToStderr;
  return {
    async ask(input) {
      const result = await invoke(input, options, transport);
      log(logEntry(input, result));
      return result;
    },
    close: () => transport.close(),
  };
}

interface Invocation {
  input: AskInput;
  scope: Scope;
  backend: AgentBackend;
  invocationId: string;
  meetingId: string;
  rounds: RoundTrace[];
  /** The round whose request is on the wire, and when it left. */
  inFlight: { trace: RoundTrace; started: number } | null;
}

async function invoke(input: AskInput, options: BackendInvokerOptions, transport: BackendTransport): Promise<AgentInvocation> {
  const started = performance.now();
  const scope = { tenantId: input.tenantId, deploymentId: input.deployment.id };
  const invocationId = randomUUID();
  const meetingId = input.meetingId ?? randomUUID();
  const backend = await options.store.getAgentBackend(scope);
  const base = { type: 'agent_invocation' as const, invocation_id: invocationId, deployment_id: scope.deploymentId, meeting_id: meetingId };
  if (backend === null) {
    const failure = { code: 'no-backend' as const, detail: 'no agent backend is registered for this deployment' };
    return { ...base, spoken: DEFAULT_FALLBACK_LINE, fallback: true, failure, backend_url: null, timeout_ms: null, elapsed_ms: since(started), rounds: [] };
  }
  const invocation: Invocation = { input, scope, backend, invocationId, meetingId, rounds: [], inFlight: null };
  // One deadline for the whole exchange: secret, every round and every tool call.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), backend.timeoutMs);
  const outcome = await withinBudget(converse(invocation, options, transport, controller.signal), controller.signal).finally(() => clearTimeout(timer));
  if (outcome instanceof InvocationFailure && invocation.inFlight) failInFlight(invocation.inFlight, outcome);
  const said =
    outcome instanceof InvocationFailure
      ? { spoken: backend.fallbackLine, fallback: true, failure: outcome.toJSON() }
      : { spoken: outcome, fallback: false, failure: null };
  return {
    ...base,
    ...said,
    backend_url: backend.url,
    timeout_ms: backend.timeoutMs,
    elapsed_ms: since(started),
    // A copy: an exchange cut short by the budget may still settle and touch its trace afterwards.
    rounds: structuredClone(invocation.rounds),
  };
}

/** The exchange's outcome, or a timeout failure the moment the budget runs out, whatever the exchange is waiting on. */
function withinBudget(exchange: Promise<string>, signal: AbortSignal): Promise<string | InvocationFailure> {
  const failed = exchange.catch((error: unknown) => asFailure(error, signal));
  const expired = new Promise<InvocationFailure>((resolve) => {
    const onAbort = () => resolve(new InvocationFailure('timeout', 'no answer within the budget'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([failed, expired]);
}

/** Anything that ends the exchange is a failure to speak the fallback for, a bug of the service's included. */
function asFailure(error: unknown, signal: AbortSignal): InvocationFailure {
  if (error instanceof InvocationFailure) return error;
  if (signal.aborted) return new InvocationFailure('timeout', 'no answer within the budget');
  return new InvocationFailure('service-error', (error as Error).message ?? String(error));
}

/** The round still on the wire when the budget ran out ends with the budget's failure. */
function failInFlight(inFlight: { trace: RoundTrace; started: number }, failure: InvocationFailure): void {
  inFlight.trace.latency_ms = since(inFlight.started);
  inFlight.trace.verdict = 'failed';
  inFlight.trace.failure = failure.toJSON();
}

/** The conversation with the backend: round one, then one round per answer that asks for tools. */
async function converse(invocation: Invocation, options: BackendInvokerOptions, transport: BackendTransport, signal: AbortSignal): Promise<string> {
  const { backend } = invocation;
  const problem = backendUrlProblem(backend.url, options.policy ?? PUBLIC_BACKENDS_ONLY);
  if (problem !== null) throw new InvocationFailure('url-refused', `${backend.url} ${problem}`);
  const url = new URL(backend.url);
  const secret = await resolveSecret(backend.secretRef, options.env);
  const messages: BackendMessage[] = [{ role: 'user', content: invocation.input.utterance }];
  for (let round = 1; ; round += 1) {
    const trace = startRound(invocation, round, messages.length);
    const reply = await exchange(invocation, trace, { url, secret, messages, transport, signal });
    const calls = reply.tool_calls ?? [];
    if (calls.length === 0) {
      if (reply.finish_reason === 'tool_calls') fail(trace, new InvocationFailure('invalid-response', 'finish_reason is tool_calls but no tool_calls were sent'));
      if (reply.content.trim() === '') fail(trace, new InvocationFailure('empty-content', 'the final answer has empty content'));
      trace.verdict = 'answered';
      return reply.content;
    }
    trace.verdict = 'tool_calls';
    if (round > MAX_TOOL_ROUNDS) fail(trace, new InvocationFailure('too-many-tool-rounds', `asked for tools after ${MAX_TOOL_ROUNDS} tool rounds`));
    if (calls.length > MAX_TOOL_CALLS_PER_ROUND) {
      fail(trace, new InvocationFailure('too-many-tool-calls', `asked for ${calls.length} tool calls in one answer; at most ${MAX_TOOL_CALLS_PER_ROUND}`));
    }
    const results = await runTools(invocation, trace, calls, options.search);
    messages.push({ role: 'assistant', content: reply.content, tool_calls: calls });
    calls.forEach((call, index) => messages.push({ role: 'tool', tool_call_id: call.id, content: results[index]! }));
  }
}

async function resolveSecret(reference: string, env: NodeJS.ProcessEnv | undefined): Promise<string> {
  try {
    return await resolveSecretReference(reference, env);
  } catch (error) {
    throw new InvocationFailure('secret-unresolvable', (error as Error).message);
  }
}

interface ExchangeParts {
  url: URL;
  secret: string;
  messages: BackendMessage[];
  transport: BackendTransport;
  signal: AbortSignal;
}

/** Sends one round (serialized once; the signature covers exactly those bytes) and validates the answer. */
async function exchange(invocation: Invocation, trace: RoundTrace, parts: ExchangeParts): Promise<BackendResponse> {
  const body = JSON.stringify(buildRequest(invocation, trace, parts.messages));
  trace.request_bytes = Buffer.byteLength(body);
  if (trace.request_bytes > MAX_REQUEST_BYTES) {
    fail(trace, new InvocationFailure('request-too-large', `the conversation grew to ${trace.request_bytes} bytes; at most ${MAX_REQUEST_BYTES}`));
  }
  const headers = {
    'content-type': 'application/json',
    [SIGNATURE_HEADER]: signBody(parts.secret, body),
    'user-agent': `meeting-memory/${packageVersion()}`,
  };
  // Nothing leaves once the budget is spent, even when a step before this one ignored the deadline.
  parts.signal.throwIfAborted();
  const started = performance.now();
  invocation.inFlight = { trace, started };
  let answer;
  try {
    answer = await parts.transport.post(parts.url, body, headers, parts.signal, DEFAULT_RESPONSE_CAP_BYTES);
  } catch (error) {
    trace.latency_ms = since(started);
    if (error instanceof ExchangeFailure) trace.status = error.status;
    throw fail(trace, asFailure(error, parts.signal));
  } finally {
    invocation.inFlight = null;
  }
  trace.latency_ms = since(started);
  trace.status = answer.status;
  trace.response_bytes = answer.body.length;
  return parseReply(trace, answer.body);
}

function buildRequest(invocation: Invocation, trace: RoundTrace, messages: BackendMessage[]): BackendRequest {
  const { backend, input } = invocation;
  // Parsed before sending, so the service never sends a request outside the contract.
  const parsed = BackendRequest.safeParse({
    system: backend.systemPrompt ?? defaultSystemPrompt(input.deployment.name),
    messages,
    tools: [SEARCH_MEMORY_TOOL],
    metadata: {
      deployment_id: invocation.scope.deploymentId,
      invocation_id: invocation.invocationId,
      meeting_id: invocation.meetingId,
      timeout_ms: backend.timeoutMs,
      sent_at: trace.sent_at,
      round: trace.round,
    },
  });
  if (!parsed.success) throw new Error(`the service built a request outside the contract: ${parsed.error.message}`);
  return parsed.data;
}

function parseReply(trace: RoundTrace, raw: Buffer): BackendResponse {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    throw fail(trace, new InvocationFailure('invalid-json', 'the answer is not JSON'));
  }
  const parsed = BackendResponse.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map(String).join('.') || '(body)';
    throw fail(trace, new InvocationFailure('invalid-response', `not a backend response: ${where}: ${issue?.message}`));
  }
  return parsed.data;
}

/** Runs each call (only `searchMemory`, only in the invoking deployment) and answers its result as JSON text. */
async function runTools(invocation: Invocation, trace: RoundTrace, calls: ToolCall[], search: MemorySearch): Promise<string[]> {
  const contents: string[] = [];
  for (const call of calls) {
    const entry = { id: call.id, name: call.name, query: null as string | null, results: null as number | null };
    trace.tool_calls.push(entry);
    if (call.name !== SEARCH_MEMORY_TOOL.name) fail(trace, new InvocationFailure('unknown-tool', `asked for tool "${call.name.slice(0, 100)}", which the service did not declare`));
    const args = SearchArguments.safeParse(call.arguments);
    if (!args.success) fail(trace, new InvocationFailure('invalid-tool-arguments', `${SEARCH_MEMORY_TOOL.name} needs a query string of 1..${LIMITS.query} characters`));
    entry.query = args.data.query;
    let result;
    try {
      result = await search(invocation.scope, entry.query);
    } catch (error) {
      throw fail(trace, new InvocationFailure('tool-failed', `the memory search failed: ${(error as Error).message}`));
    }
    entry.results = result.results.length;
    contents.push(JSON.stringify({ results: result.results, next_cursor: null, was_capped: result.was_capped }));
  }
  return contents;
}

function startRound(invocation: Invocation, round: number, messages: number): RoundTrace {
  const trace: RoundTrace = {
    round,
    sent_at: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    request_bytes: 0,
    messages,
    status: null,
    latency_ms: 0,
    response_bytes: null,
    tool_calls: [],
    verdict: 'failed',
    failure: null,
  };
  invocation.rounds.push(trace);
  return trace;
}

/** Marks the round failed and throws the failure (typed to return it, so callers can `throw fail(...)` too). */
function fail(trace: RoundTrace, failure: InvocationFailure): never {
  trace.verdict = 'failed';
  trace.failure = failure.toJSON();
  throw failure;
}

function since(start: number): number {
  return Math.round(performance.now() - start);
}

function logEntry(input: AskInput, result: AgentInvocation): InvocationLogEntry {
  const last = result.rounds[result.rounds.length - 1];
  return {
    event: 'agent_backend_invocation',
    invocation_id: result.invocation_id,
    tenant_id: input.tenantId,
    deployment_id: result.deployment_id,
    meeting_id: result.meeting_id,
    outcome: result.fallback ? 'fallback' : 'answered',
    reason: result.failure,
    rounds: result.rounds.length,
    last_status: last?.status ?? null,
    elapsed_ms: result.elapsed_ms,
  };
}

function logToStderr(entry: InvocationLogEntry): void {
  process.stderr.write(`${JSON.stringify(entry)}\n`);
}
