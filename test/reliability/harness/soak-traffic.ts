import { randomUUID } from 'node:crypto';
import { MCP_HEADERS, MCP_PATH } from './fuzz-mcp.js';
import { jsonRequest, type Answer, type RawRequest } from './http.js';

/** What the soak knows of the deployment it drives. */
export interface SoakTargets {
  deploymentId: string;
  decisions: string[];
  questions: string[];
  items: string[];
  meetings: string[];
}

export type TrafficKind = 'read' | 'search' | 'action' | 'mcp' | 'bad-input' | 'bad-token';

/** One planned request and the only answer that counts as expected for it. */
export interface PlannedRequest {
  kind: TrafficKind;
  request: RawRequest;
  expected(answer: Answer): boolean;
}

const WORDS = ['renewal', 'pricing', 'customer', 'launch', 'migration', 'budget', 'hiring', 'security', 'roadmap', 'the'];
const LISTS = ['decisions', 'open-questions', 'action-items', 'statements', 'topics'];

function pick<T>(values: readonly T[]): T {
  return values[Math.floor(Math.random() * values.length)]!;
}

const status = (code: number) => (answer: Answer) => answer.status === code;

function isToolSuccess(answer: Answer): boolean {
  const result = (answer.json as { result?: { isError?: boolean } } | undefined)?.result;
  return answer.status === 200 && result !== undefined && result.isError !== true;
}

function read(base: string, t: SoakTargets, token: string): PlannedRequest {
  if (Math.random() < 0.3) {
    const [path, id] = pick([
      ['decisions', pick(t.decisions)],
      ['open-questions', pick(t.questions)],
      ['action-items', pick(t.items)],
      ['meetings', pick(t.meetings)],
    ] as const);
    return { kind: 'read', request: jsonRequest('GET', `${base}/${path}/${id}`, token), expected: status(200) };
  }
  const list = pick(LISTS);
  // Topics take no date window.
  const since = list !== 'topics' && Math.random() < 0.3 ? `&since=2025-0${1 + Math.floor(Math.random() * 9)}-01` : '';
  const query = `?limit=${1 + Math.floor(Math.random() * 50)}${since}${Math.random() < 0.2 ? '&order=asc' : ''}`;
  return { kind: 'read', request: jsonRequest('GET', `${base}/${list}${query}`, token), expected: status(200) };
}

function search(base: string, token: string): PlannedRequest {
  const q = encodeURIComponent(Math.random() < 0.3 ? `${pick(WORDS)} ${pick(WORDS)}` : pick(WORDS));
  const types = Math.random() < 0.3 ? '&types=decision,action_item' : '';
  return { kind: 'search', request: jsonRequest('GET', `${base}/search?q=${q}${types}&limit=${1 + Math.floor(Math.random() * 20)}`, token), expected: status(200) };
}

function action(base: string, t: SoakTargets, token: string): PlannedRequest {
  const roll = Math.random();
  if (roll < 0.3) {
    const body = { text: `soak item ${randomUUID()}`, ...(Math.random() < 0.5 ? { due_date: '2027-01-15' } : {}) };
    return { kind: 'action', request: jsonRequest('POST', `${base}/action-items`, token, body), expected: status(201) };
  }
  if (roll < 0.6) {
    const body = pick([{ status: 'done' }, { status: 'open' }, { due_date: '2027-02-01' }, { clear_due_date: true }]);
    return { kind: 'action', request: jsonRequest('PATCH', `${base}/action-items/${pick(t.items)}`, token, body), expected: status(200) };
  }
  if (roll < 0.8) {
    const body = { status: pick(['confirmed', 'superseded']), note: `soak ${randomUUID()}` };
    return { kind: 'action', request: jsonRequest('PATCH', `${base}/decisions/${pick(t.decisions)}`, token, body), expected: status(200) };
  }
  const body = { status: pick(['open', 'resolved']), ...(Math.random() < 0.5 ? { clear_note: true } : {}) };
  return { kind: 'action', request: jsonRequest('PATCH', `${base}/open-questions/${pick(t.questions)}`, token, body), expected: status(200) };
}

function mcp(t: SoakTargets, token: string): PlannedRequest {
  const calls: [string, Record<string, unknown>][] = [
    ['listDecisions', { deployment_id: t.deploymentId, limit: 10 }],
    ['listActionItems', { deployment_id: t.deploymentId, status: 'open', limit: 20 }],
    ['searchMemory', { deployment_id: t.deploymentId, query: pick(WORDS) }],
    ['getMeeting', { deployment_id: t.deploymentId, meeting_id: pick(t.meetings) }],
    ['listTopics', { deployment_id: t.deploymentId }],
    ['updateActionItem', { deployment_id: t.deploymentId, action_item_id: pick(t.items), status: pick(['open', 'done']) }],
    ['resolveOpenQuestion', { deployment_id: t.deploymentId, open_question_id: pick(t.questions), status: pick(['open', 'resolved']) }],
  ];
  const [name, args] = pick(calls);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
  return { kind: 'mcp', request: { method: 'POST', path: MCP_PATH, headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` }, body }, expected: isToolSuccess };
}

function badInput(base: string, t: SoakTargets, token: string): PlannedRequest {
  const cases: [RawRequest, number][] = [
    [jsonRequest('GET', `${base}/decisions?limit=0`, token), 400],
    [jsonRequest('GET', `${base}/decisions?sincee=2025-01-01`, token), 400],
    [jsonRequest('GET', `${base}/statements?since=2025-02-30`, token), 400],
    [jsonRequest('GET', `${base}/search?q=`, token), 400],
    [jsonRequest('GET', `${base}/decisions?cursor=forged.cursor`, token), 400],
    [jsonRequest('PATCH', `${base}/decisions/${pick(t.decisions)}`, token, { status: 'maybe' }), 400],
    [jsonRequest('POST', `${base}/action-items`, token, { text: 'x', owner: 'me' }), 400],
    [{ ...jsonRequest('POST', `${base}/action-items`, token, {}), body: '{"text":' }, 400],
    [jsonRequest('GET', `${base}/decisions/${randomUUID()}`, token), 404],
    [jsonRequest('GET', `/v1/deployments/${randomUUID()}/decisions`, token), 403],
  ];
  const [request, code] = pick(cases);
  return { kind: 'bad-input', request, expected: status(code) };
}

/**
 * The soak's traffic mix: reads 35%, searches 20%, actions 15%, MCP tool calls 15%, refused input 15%, and a
 * forged token now and then (no more often than `badTokenEveryMs`, to stay under the per-address limit on 401s).
 */
export function trafficPlanner(t: SoakTargets, tokens: { writers: string[] }, badTokenEveryMs: number) {
  const base = `/v1/deployments/${t.deploymentId}`;
  let turn = 0;
  let lastBadToken = 0;
  return function plan(): PlannedRequest {
    const token = tokens.writers[turn++ % tokens.writers.length]!;
    const now = Date.now();
    if (now - lastBadToken > badTokenEveryMs) {
      lastBadToken = now;
      return { kind: 'bad-token', request: jsonRequest('GET', `${base}/decisions`, `${token.slice(0, -4)}AAAA`), expected: status(401) };
    }
    const roll = Math.random();
    if (roll < 0.35) return read(base, t, token);
    if (roll < 0.55) return search(base, token);
    if (roll < 0.7) return action(base, t, token);
    if (roll < 0.85) return mcp(t, token);
    return badInput(base, t, token);
  };
}
