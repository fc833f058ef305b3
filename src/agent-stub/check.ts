import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Agent, request as httpRequest } from 'undici';
import {
  BackendRequest,
  BackendResponse,
  DEFAULT_RESPONSE_CAP_BYTES,
  SEARCH_MEMORY_TOOL,
  SIGNATURE_HEADER,
  TIMEOUT_BOUNDS_MS,
  signBody,
  type BackendMessage,
} from '../contract/index.js';
import { isLoopbackHost } from './loopback.js';
import { readCapped } from './read-capped.js';
import { toTimestamp } from './timestamp.js';

export interface CheckOptions {
  /** The backend's registered URL: https, or http on loopback with `allowLoopbackHttp`. */
  url: string;
  secret: string;
  /** PEM of the CA to trust instead of the system's (for a backend with a generated certificate). */
  ca?: string | Buffer;
  allowLoopbackHttp?: boolean;
  /** `metadata.timeout_ms` of the ordinary requests, and how long each may take. */
  timeoutMs?: number;
}

/** One contract rule and whether the backend kept it. */
export interface RuleOutcome {
  rule: string;
  pass: boolean;
  reason: string;
}

/** Options the check cannot run with (bad URL, http off loopback, budget out of bounds). */
export class CheckConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckConfigError';
  }
}

/** The budget of the near-budget rule: the smallest the contract allows. */
export const NEAR_BUDGET_MS = TIMEOUT_BOUNDS_MS.min;

const QUESTION = 'What did we decide about the launch date?';

/** What one POST produced: an answer (the body undefined when over the cap) or why there was none. */
type Exchange =
  | { answered: true; status: number; body: Buffer | undefined; elapsedMs: number }
  | { answered: false; reason: string; elapsedMs: number };

interface Session {
  url: string;
  secret: string;
  timeoutMs: number;
  dispatcher: Agent;
  deploymentId: string;
  meetingId: string;
}

/**
 * Sends a backend the requests of the contract (valid, replayed, tool round, tampered, wrongly signed, unsigned,
 * near-budget) and says for each rule whether it was kept. Independent requests use fresh invocation ids, so a
 * refusal is attributable to the one thing that is wrong with the request.
 */
export async function checkAgentBackend(options: CheckOptions): Promise<RuleOutcome[]> {
  const session = openSession(options);
  try {
    return await runRules(session);
  } finally {
    await session.dispatcher.close();
  }
}

/** `PASS <rule>: <reason>` or `FAIL <rule>: <reason>`. */
export function formatRuleOutcome(outcome: RuleOutcome): string {
  return `${outcome.pass ? 'PASS' : 'FAIL'} ${outcome.rule}: ${outcome.reason}`;
}

function openSession(options: CheckOptions): Session {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new CheckConfigError(`${options.url} is not a URL`);
  }
  const loopbackHttp = url.protocol === 'http:' && options.allowLoopbackHttp && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !loopbackHttp) {
    throw new CheckConfigError('the backend URL must be https (http only on a loopback host with --insecure-loopback-http)');
  }
  const timeoutMs = options.timeoutMs ?? TIMEOUT_BOUNDS_MS.default;
  if (!Number.isInteger(timeoutMs) || timeoutMs < TIMEOUT_BOUNDS_MS.min || timeoutMs > TIMEOUT_BOUNDS_MS.max) {
    throw new CheckConfigError(`the timeout must be ${TIMEOUT_BOUNDS_MS.min}..${TIMEOUT_BOUNDS_MS.max} ms, as the contract bounds it`);
  }
  return {
    url: url.href,
    secret: options.secret,
    timeoutMs,
    dispatcher: new Agent({ connect: options.ca ? { ca: options.ca } : {} }),
    deploymentId: randomUUID(),
    meetingId: randomUUID(),
  };
}

async function runRules(session: Session): Promise<RuleOutcome[]> {
  const invocation = randomUUID();
  const valid = buildBody(session, { invocationId: invocation, round: 1, messages: [{ role: 'user', content: QUESTION }] });
  const validSignature = signBody(session.secret, valid);
  const first = await post(session, valid, validSignature);
  const replay = await post(session, valid, validSignature);
  const toolRound = await post(session, ...signed(session, toolRoundBody(session, invocation)));
  const original = freshBody(session);
  const tampered = await post(session, tamper(original), signBody(session.secret, original));
  const wrongSecret = await post(session, ...signedWith(randomBytes(32).toString('hex'), freshBody(session)));
  const unsigned = await post(session, freshBody(session), undefined);
  const nearBudget = await post(session, ...signed(session, freshBody(session, NEAR_BUDGET_MS)), NEAR_BUDGET_MS);
  const answers = { 'the valid request': first, 'the tool round': toolRound, 'the near-budget request': nearBudget };
  return [
    acceptedRule('signed-request-accepted', first),
    refusedRule('replay-refused', replay, 'the same signed request was answered twice'),
    acceptedRule('tool-round-answered', toolRound),
    refusedRule('tampered-body-refused', tampered, 'a body that does not match its signature was answered'),
    refusedRule('wrong-secret-refused', wrongSecret, 'a request signed with another secret was answered'),
    refusedRule('unsigned-request-refused', unsigned, 'a request without a signature was answered'),
    budgetRule(nearBudget),
    shapeRule(answers),
    sizeRule([first, replay, toolRound, tampered, wrongSecret, unsigned, nearBudget]),
  ];
}

function buildBody(
  session: Session,
  parts: { invocationId: string; round: number; messages: BackendMessage[]; timeoutMs?: number },
): string {
  // Parsed before sending, so the checker itself can never send something outside the contract.
  const request = BackendRequest.parse({
    system: 'You are a teammate in a meeting. This is a conformance check from `memory agent-check`; answer briefly.',
    messages: parts.messages,
    tools: [SEARCH_MEMORY_TOOL],
    metadata: {
      deployment_id: session.deploymentId,
      invocation_id: parts.invocationId,
      meeting_id: session.meetingId,
      timeout_ms: parts.timeoutMs ?? session.timeoutMs,
      sent_at: toTimestamp(Date.now()),
      round: parts.round,
    },
  });
  return JSON.stringify(request);
}

/** A valid first-round request under a new invocation id. */
function freshBody(session: Session, timeoutMs?: number): string {
  return buildBody(session, { invocationId: randomUUID(), round: 1, messages: [{ role: 'user', content: QUESTION }], timeoutMs });
}

/** Round two of an invocation: the assistant asked for searchMemory and the tool answered. */
function toolRoundBody(session: Session, invocationId: string): string {
  const callId = `call_${randomUUID()}`;
  const now = toTimestamp(Date.now());
  const result = {
    results: [
      {
        id: randomUUID(),
        type: 'decision',
        deployment_id: session.deploymentId,
        meeting_id: session.meetingId,
        attribution: { kind: 'anonymous' },
        created_at: now,
        text: 'The launch moves to the first Monday of next month.',
        decided_at: now,
        status: 'confirmed',
        note: null,
        updated_at: null,
        updated_by: null,
        score: 0.92,
      },
    ],
    next_cursor: null,
  };
  return buildBody(session, {
    invocationId,
    round: 2,
    messages: [
      { role: 'user', content: QUESTION },
      { role: 'assistant', content: '', tool_calls: [{ id: callId, name: SEARCH_MEMORY_TOOL.name, arguments: { query: QUESTION } }] },
      { role: 'tool', tool_call_id: callId, content: JSON.stringify(result) },
    ],
  });
}

/** The same body with one character of the utterance changed: still valid JSON, no longer what was signed. */
function tamper(body: string): string {
  return body.replace(QUESTION, QUESTION.replace('?', '!'));
}

function signed(session: Session, body: string): [string, string] {
  return signedWith(session.secret, body);
}

function signedWith(secret: string, body: string): [string, string] {
  return [body, signBody(secret, body)];
}

async function post(session: Session, body: string, signature: string | undefined, budgetMs = session.timeoutMs): Promise<Exchange> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature) headers[SIGNATURE_HEADER] = signature;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await httpRequest(session.url, {
      method: 'POST',
      headers,
      body,
      dispatcher: session.dispatcher,
      signal: AbortSignal.timeout(budgetMs),
    });
    const raw = await readCapped(response.body, DEFAULT_RESPONSE_CAP_BYTES);
    return { answered: true, status: response.statusCode, body: raw, elapsedMs: elapsed() };
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError';
    const reason = timedOut ? `no answer within ${budgetMs} ms` : describeFailure(error);
    return { answered: false, reason, elapsedMs: elapsed() };
  }
}

function describeFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = (error as { code?: string }).code ?? cause?.code;
  const message = cause?.message ?? (error as Error).message;
  // An untrusted certificate is the usual first failure against a backend with a generated one.
  const hint = /CERT|SIGNATURE|ISSUER/.test(code ?? '') ? ' (trust the CA that issued it with --ca)' : '';
  return `no answer: ${code ? `${code} ` : ''}${message}${hint}`;
}

function is2xx(status: number): boolean {
  return status >= 200 && status < 300;
}

/** The `content` of an answer, or why there is none. */
function contentOf(exchange: Exchange): { content: string } | { problem: string } {
  if (!exchange.answered) return { problem: exchange.reason };
  if (!is2xx(exchange.status)) return { problem: `answered ${exchange.status}` };
  if (exchange.body === undefined) return { problem: 'the answer is over 1 MB' };
  const json = parseJson(exchange.body);
  const content = (json as { content?: unknown } | undefined)?.content;
  return typeof content === 'string' ? { content } : { problem: 'the answer has no string `content`' };
}

function acceptedRule(rule: string, exchange: Exchange): RuleOutcome {
  const result = contentOf(exchange);
  if ('problem' in result) return { rule, pass: false, reason: result.problem };
  const status = exchange.answered ? exchange.status : 0;
  return { rule, pass: true, reason: `${status} with content in ${exchange.elapsedMs} ms` };
}

function refusedRule(rule: string, exchange: Exchange, whenAnswered: string): RuleOutcome {
  if (!exchange.answered) return { rule, pass: false, reason: exchange.reason };
  if (is2xx(exchange.status)) return { rule, pass: false, reason: `${whenAnswered} (${exchange.status})` };
  return { rule, pass: true, reason: `refused with ${exchange.status}` };
}

function budgetRule(exchange: Exchange): RuleOutcome {
  const rule = 'answers-within-budget';
  const result = contentOf(exchange);
  if ('problem' in result) return { rule, pass: false, reason: `with timeout_ms ${NEAR_BUDGET_MS}: ${result.problem}` };
  if (exchange.elapsedMs > NEAR_BUDGET_MS) {
    return { rule, pass: false, reason: `answered in ${exchange.elapsedMs} ms, over timeout_ms ${NEAR_BUDGET_MS}` };
  }
  return { rule, pass: true, reason: `answered in ${exchange.elapsedMs} ms of ${NEAR_BUDGET_MS}` };
}

function shapeRule(answers: Record<string, Exchange>): RuleOutcome {
  const rule = 'response-shape';
  let checked = 0;
  for (const [name, exchange] of Object.entries(answers)) {
    if (!exchange.answered || !is2xx(exchange.status) || exchange.body === undefined) continue;
    checked += 1;
    const parsed = BackendResponse.safeParse(parseJson(exchange.body));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.map(String).join('.') || '(body)';
      return { rule, pass: false, reason: `the answer to ${name} is not a BackendResponse: ${where}: ${issue?.message}` };
    }
  }
  if (checked === 0) return { rule, pass: false, reason: 'no 2xx answer to check' };
  return { rule, pass: true, reason: `${checked} answers match the contract` };
}

function sizeRule(exchanges: Exchange[]): RuleOutcome {
  const rule = 'response-size';
  const answered = exchanges.filter((exchange) => exchange.answered);
  if (answered.length === 0) return { rule, pass: false, reason: 'no answer to measure' };
  const oversized = answered.filter((exchange) => exchange.body === undefined).length;
  if (oversized > 0) return { rule, pass: false, reason: `${oversized} answers are over 1 MB` };
  return { rule, pass: true, reason: 'every answer is under 1 MB' };
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}
