import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ActionItem,
  Decision,
  Deployment,
  Meeting,
  OpenQuestion,
  ProblemDocument,
  SearchEnvelope,
  Statement,
  Topic,
  listEnvelope,
} from '../../../src/contract/index.js';
import { startDemoCore, type TestCore } from '../../helpers/core.js';

let t: TestCore;
let dep1: string;
let dep2: string;
const READER = 0;
const WRITER = 1;
const READER2 = 2;

beforeAll(async () => {
  t = await startDemoCore();
  dep1 = t.creds.deployments[0]!.id;
  dep2 = t.creds.deployments[1]!.id;
});
afterAll(async () => t?.stop());

interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

async function call(
  method: string,
  path: string,
  options: { principal?: number | null; body?: unknown; rawBody?: string; contentType?: string; token?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  const principal = options.principal === undefined ? READER : options.principal;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  else if (principal !== null) headers.authorization = `Bearer ${await t.token(principal)}`;
  let body: string | undefined;
  if (options.rawBody !== undefined || options.body !== undefined) {
    body = options.rawBody ?? JSON.stringify(options.body);
    headers['content-type'] = options.contentType ?? 'application/json';
  }
  const response = await fetch(`${t.core.baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // non-JSON bodies (problem pages) stay text
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

function expectProblem(answer: Answer, status: number) {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toContain('application/problem+json');
  const doc = ProblemDocument.parse(answer.body);
  expect(doc.status).toBe(status);
  expect(doc.type).toMatch(/^\/v1\/problems\/[a-z-]+$/);
  expect(doc.request_id).toBe(answer.headers.get('x-request-id'));
  return doc;
}

function expectInvalid(answer: Answer, name: string, location: string) {
  const doc = expectProblem(answer, 400);
  expect(doc.invalid_params).toEqual(expect.arrayContaining([expect.objectContaining({ name, in: location })]));
  return doc;
}

async function collectAll(path: string, principal = READER, pageSize = 7): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  const sep = path.includes('?') ? '&' : '?';
  do {
    const page = await call('GET', `${path}${sep}limit=${pageSize}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { principal });
    expect(page.status).toBe(200);
    items.push(...page.body.items);
    cursor = page.body.next_cursor;
  } while (cursor);
  return items;
}

describe('deployments', () => {
  it('lists exactly the deployments each principal holds a grant for, with its access', async () => {
    const reader = await call('GET', '/deployments', { principal: READER });
    expect(reader.status).toBe(200);
    const items = reader.body.items.map((d: unknown) => Deployment.parse(d));
    expect(items.map((d: Deployment) => [d.id, d.access])).toEqual([[dep1, 'read']]);
    const writer = await call('GET', '/deployments', { principal: WRITER });
    expect(writer.body.items.map((d: Deployment) => [d.id, d.access])).toEqual([[dep1, 'read_write']]);
    const reader2 = await call('GET', '/deployments', { principal: READER2 });
    expect(reader2.body.items.map((d: Deployment) => [d.id, d.access])).toEqual([[dep2, 'read']]);
  });
});

describe('lists', () => {
  const kinds = [
    { path: 'decisions', schema: Decision, ts: 'decided_at' },
    { path: 'open-questions', schema: OpenQuestion, ts: 'raised_at' },
    { path: 'action-items', schema: ActionItem, ts: 'created_at' },
    { path: 'statements', schema: Statement, ts: 'spoken_at' },
    { path: 'topics', schema: Topic, ts: 'last_discussed_at' },
  ] as const;

  for (const kind of kinds) {
    it(`${kind.path}: records field for field, newest first, every page once`, async () => {
      const first = await call('GET', `/deployments/${dep1}/${kind.path}`);
      expect(first.status).toBe(200);
      const envelope = listEnvelope(kind.schema).strict().parse(first.body);
      expect(envelope.items.length).toBeGreaterThan(0);
      for (const item of first.body.items) expect(kind.schema.strict().parse(item)).toBeTruthy();
      const all = await collectAll(`/deployments/${dep1}/${kind.path}`);
      expect(new Set(all.map((r) => r.id)).size).toBe(all.length);
      const keys = all.map((r) => `${r[kind.ts]}|${r.id}`);
      expect(keys).toEqual([...keys].sort().reverse());
      expect(all.every((r) => r.deployment_id === dep1)).toBe(true);
      const ascending = await collectAll(`/deployments/${dep1}/${kind.path}?order=asc`);
      expect(ascending.map((r) => r.id)).toEqual(all.map((r) => r.id).reverse());
    });
  }

  it('statements of the demo: at least 300 attributed across deployments, and scoping by meeting', async () => {
    const one = await collectAll(`/deployments/${dep1}/statements`, READER, 200);
    const two = await collectAll(`/deployments/${dep2}/statements`, READER2, 200);
    expect(one.length + two.length).toBeGreaterThanOrEqual(300);
    const meetingId = one[0].meeting_id;
    const scoped = await collectAll(`/deployments/${dep1}/statements?meeting_id=${meetingId}&order=asc`, READER, 50);
    expect(scoped.length).toBe(one.filter((s) => s.meeting_id === meetingId).length);
    expect(scoped.every((s) => s.meeting_id === meetingId)).toBe(true);
  });

  it('since and until are inclusive UTC days on the type timestamp', async () => {
    const all = await collectAll(`/deployments/${dep1}/decisions`, READER, 200);
    const day = all[Math.floor(all.length / 2)].decided_at.slice(0, 10);
    const onDay = await collectAll(`/deployments/${dep1}/decisions?since=${day}&until=${day}`);
    expect(onDay.length).toBe(all.filter((d) => d.decided_at.startsWith(day)).length);
    expect(onDay.length).toBeGreaterThan(0);
    const from = await collectAll(`/deployments/${dep1}/decisions?since=${day}`);
    expect(from.length).toBe(all.filter((d) => d.decided_at.slice(0, 10) >= day).length);
  });

  it('filters action items by status and assignee', async () => {
    const all = await collectAll(`/deployments/${dep1}/action-items`, READER, 200);
    const done = await collectAll(`/deployments/${dep1}/action-items?status=done`);
    expect(done.length).toBe(all.filter((a) => a.status === 'done').length);
    const assignee = all.find((a) => a.assignee?.idp_id)!.assignee.idp_id;
    const mine = await collectAll(`/deployments/${dep1}/action-items?assignee_idp_id=${assignee}`);
    expect(mine.length).toBe(all.filter((a) => a.assignee?.idp_id === assignee).length);
  });

  it('binds a cursor to its query: other filters or a tampered cursor are refused', async () => {
    const page = await call('GET', `/deployments/${dep1}/statements?limit=5`);
    const cursor: string = page.body.next_cursor;
    expect(cursor).toBeTruthy();
    expect((await call('GET', `/deployments/${dep1}/statements?limit=9&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);
    expectInvalid(await call('GET', `/deployments/${dep1}/statements?order=asc&cursor=${encodeURIComponent(cursor)}`), 'cursor', 'query');
    expectInvalid(await call('GET', `/deployments/${dep1}/decisions?cursor=${encodeURIComponent(cursor)}`), 'cursor', 'query');
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('A') ? 'BB' : 'AA'}`;
    expectInvalid(await call('GET', `/deployments/${dep1}/statements?cursor=${encodeURIComponent(tampered)}`), 'cursor', 'query');
    expectInvalid(await call('GET', `/deployments/${dep1}/statements?cursor=garbage`), 'cursor', 'query');
  });

  it('refuses unknown, repeated and malformed query parameters', async () => {
    const base = `/deployments/${dep1}/decisions`;
    expectInvalid(await call('GET', `${base}?colour=blue`), 'colour', 'query');
    expectInvalid(await call('GET', `${base}?limit=1&limit=2`), 'limit', 'query');
    for (const bad of ['0', '201', 'abc', '1.5', '-1']) expectInvalid(await call('GET', `${base}?limit=${bad}`), 'limit', 'query');
    expect((await call('GET', `${base}?limit=200`)).status).toBe(200);
    expectInvalid(await call('GET', `${base}?since=2026-02-30`), 'since', 'query');
    expectInvalid(await call('GET', `${base}?since=yesterday`), 'since', 'query');
    expectInvalid(await call('GET', `${base}?since=2026-10-02&until=2026-10-01`), 'until', 'query');
    expectInvalid(await call('GET', `${base}?order=sideways`), 'order', 'query');
    expectInvalid(await call('GET', `${base}?deployment_id=${dep1}`), 'deployment_id', 'query');
    expectInvalid(await call('GET', `/deployments/${dep1}/action-items?status=finished`), 'status', 'query');
    expectInvalid(await call('GET', `/deployments/${dep1}/topics?since=2026-01-01`), 'since', 'query');
    expectInvalid(await call('GET', `/deployments/${encodeURIComponent('bad id!')}/decisions`), 'deployment_id', 'path');
  });
});

describe('search', () => {
  it('finds records by keyword with scores in (0, 1], best first, and pages', async () => {
    const answer = await call('GET', `/deployments/${dep1}/search?q=${encodeURIComponent('billing migration')}&limit=5`);
    expect(answer.status).toBe(200);
    const envelope = SearchEnvelope.strict().parse(answer.body);
    expect(envelope.results.length).toBeGreaterThan(0);
    const scores = envelope.results.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(scores.every((s) => s > 0 && s <= 1)).toBe(true);
    expect(typeof envelope.was_capped).toBe('boolean');
    if (envelope.next_cursor) {
      const next = await call('GET', `/deployments/${dep1}/search?q=${encodeURIComponent('billing migration')}&limit=5&cursor=${encodeURIComponent(envelope.next_cursor)}`);
      expect(next.status).toBe(200);
      const seen = new Set(envelope.results.map((r) => r.id));
      expect(next.body.results.every((r: { id: string }) => !seen.has(r.id))).toBe(true);
    }
  });

  it('filters by types (comma-separated) and refuses unknown types and a missing q', async () => {
    const answer = await call('GET', `/deployments/${dep1}/search?q=decide&types=decision,action_item`);
    expect(answer.status).toBe(200);
    expect(answer.body.results.every((r: { type: string }) => ['decision', 'action_item'].includes(r.type))).toBe(true);
    expectInvalid(await call('GET', `/deployments/${dep1}/search?q=x&types=decision,meeting`), 'types.1', 'query');
    expectInvalid(await call('GET', `/deployments/${dep1}/search`), 'q', 'query');
    expectInvalid(await call('GET', `/deployments/${dep1}/search?query=billing`), 'query', 'query');
    expectInvalid(await call('GET', `/deployments/${dep1}/search?q=${'x'.repeat(1001)}`), 'q', 'query');
    expectInvalid(await call('GET', `/deployments/${dep1}/search?q=x&limit=101`), 'limit', 'query');
  });

  it('never breaks on hostile query text', async () => {
    for (const q of ['"', 'AND OR NOT', '(((', 'NEAR(a b)', '*', 'col:val', '🙂 émigré', "'; drop table x; --"]) {
      const answer = await call('GET', `/deployments/${dep1}/search?q=${encodeURIComponent(q)}`);
      expect(answer.status, q).toBe(200);
    }
  });
});

describe('single records', () => {
  it('gets a meeting with participants and per-type counts that match the lists', async () => {
    const decisions = await collectAll(`/deployments/${dep1}/decisions`, READER, 200);
    const meetingId = decisions[0].meeting_id;
    const answer = await call('GET', `/deployments/${dep1}/meetings/${meetingId}`);
    expect(answer.status).toBe(200);
    const meeting = Meeting.strict().parse(answer.body);
    expect(meeting.participants.length).toBeGreaterThan(1);
    expect(meeting.memory.decision).toBe(decisions.filter((d) => d.meeting_id === meetingId).length);
    const statements = await collectAll(`/deployments/${dep1}/statements?meeting_id=${meetingId}`, READER, 200);
    expect(meeting.memory.statement).toBe(statements.length);
  });

  it('gets a decision, an open question and an action item, and 404s inside an authorized deployment', async () => {
    for (const [path, schema] of [
      ['decisions', Decision],
      ['open-questions', OpenQuestion],
      ['action-items', ActionItem],
    ] as const) {
      const list = await call('GET', `/deployments/${dep1}/${path}?limit=1`);
      const id = list.body.items[0].id;
      const one = await call('GET', `/deployments/${dep1}/${path}/${id}`);
      expect(one.status).toBe(200);
      expect(schema.parse(one.body)).toEqual(list.body.items[0]);
      expectProblem(await call('GET', `/deployments/${dep1}/${path}/00000000-0000-4000-8000-000000000000`), 404);
    }
    expectProblem(await call('GET', `/deployments/${dep1}/meetings/00000000-0000-4000-8000-000000000000`), 404);
  });
});

describe('actions', () => {
  it('creates an action item: 201, Location, the record; then it reads back', async () => {
    const meeting = (await call('GET', `/deployments/${dep1}/decisions?limit=1`)).body.items[0].meeting_id;
    const created = await call('POST', `/deployments/${dep1}/action-items`, {
      principal: WRITER,
      body: { text: '  Send the revised rollout plan  ', due_date: '2026-12-01', meeting_id: meeting },
    });
    expect(created.status).toBe(201);
    const item = ActionItem.strict().parse(created.body);
    expect(item).toMatchObject({ text: 'Send the revised rollout plan', status: 'open', due_date: '2026-12-01', meeting_id: meeting });
    expect(item.attribution.kind).toBe('service_principal');
    expect(item.updated_at).toBeNull();
    expect(created.headers.get('location')).toBe(`/v1/deployments/${dep1}/action-items/${item.id}`);
    const back = await call('GET', `/deployments/${dep1}/action-items/${item.id}`);
    expect(back.body).toEqual(created.body);
  });

  it('refuses bad bodies on create and changes nothing', async () => {
    const before = (await collectAll(`/deployments/${dep1}/action-items`, READER, 200)).length;
    const path = `/deployments/${dep1}/action-items`;
    expectInvalid(await call('POST', path, { principal: WRITER, body: { text: '   ' } }), 'text', 'body');
    expectInvalid(await call('POST', path, { principal: WRITER, body: { text: 'x'.repeat(4001) } }), 'text', 'body');
    expectInvalid(await call('POST', path, { principal: WRITER, body: {} }), 'text', 'body');
    expectInvalid(await call('POST', path, { principal: WRITER, body: { text: 'ok', priority: 'high' } }), 'priority', 'body');
    expectInvalid(await call('POST', path, { principal: WRITER, body: { text: 'ok', due_date: '2026-13-01' } }), 'due_date', 'body');
    expectInvalid(await call('POST', path, { principal: WRITER, body: { text: 'ok', meeting_id: '00000000-0000-4000-8000-000000000000' } }), 'meeting_id', 'body');
    expectInvalid(await call('POST', `${path}?x=1`, { principal: WRITER, body: { text: 'ok' } }), 'x', 'query');
    expectInvalid(await call('POST', path, { principal: WRITER, body: ['text'] }), 'body', 'body');
    expectInvalid(await call('POST', path, { principal: WRITER, rawBody: '{"text": ' }), 'body', 'body');
    expectProblem(await call('POST', path, { principal: WRITER, rawBody: 'text=hi', contentType: 'text/plain' }), 415);
    expectProblem(await call('POST', path, { principal: WRITER, rawBody: JSON.stringify({ text: 'x'.repeat(1024 * 1024 + 10) }) }), 413);
    expectProblem(await call('POST', path, { principal: READER, body: { text: 'ok' } }), 403);
    expect((await collectAll(`/deployments/${dep1}/action-items`, READER, 200)).length).toBe(before);
  });

  it('updates an action item; the same state again succeeds without touching updated_at', async () => {
    const item = (await call('POST', `/deployments/${dep1}/action-items`, { principal: WRITER, body: { text: 'Check the invoice totals' } })).body;
    const path = `/deployments/${dep1}/action-items/${item.id}`;
    const done = await call('PATCH', path, { principal: WRITER, body: { status: 'done', due_date: '2026-11-30' } });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'done', due_date: '2026-11-30' });
    expect(done.body.updated_by.kind).toBe('service_principal');
    expect(done.body.updated_at).toMatch(/Z$/);
    const again = await call('PATCH', path, { principal: WRITER, body: { status: 'done' } });
    expect(again.status).toBe(200);
    expect(again.body.updated_at).toBe(done.body.updated_at);
    const cleared = await call('PATCH', path, { principal: WRITER, body: { clear_due_date: true } });
    expect(cleared.body.due_date).toBeNull();
    const assignee = (await collectAll(`/deployments/${dep1}/action-items`, READER, 200)).find((a) => a.assignee?.idp_id).assignee;
    const reassigned = await call('PATCH', path, { principal: WRITER, body: { assignee_idp_id: assignee.idp_id } });
    expect(reassigned.body.assignee).toEqual(assignee);
    expectInvalid(await call('PATCH', path, { principal: WRITER, body: { due_date: '2026-12-01', clear_due_date: true } }), 'clear_due_date', 'body');
    expectProblem(await call('PATCH', path, { principal: WRITER, body: {} }), 400);
    expectProblem(await call('PATCH', path, { principal: WRITER, body: { clear_due_date: false } }), 400);
    expectInvalid(await call('PATCH', path, { principal: WRITER, body: { status: 'closed' } }), 'status', 'body');
    expectInvalid(await call('PATCH', path, { principal: WRITER, body: { text: 'rewrite' } }), 'text', 'body');
    expectProblem(await call('PATCH', path, { principal: READER, body: { status: 'open' } }), 403);
    expectProblem(await call('PATCH', `/deployments/${dep1}/action-items/00000000-0000-4000-8000-000000000000`, { principal: WRITER, body: { status: 'open' } }), 404);
  });

  it('resolves and reopens an open question with a note, and confirms and supersedes a decision', async () => {
    const question = (await call('GET', `/deployments/${dep1}/open-questions?limit=1`)).body.items[0];
    const qPath = `/deployments/${dep1}/open-questions/${question.id}`;
    const resolved = await call('PATCH', qPath, { principal: WRITER, body: { status: 'resolved', note: 'Answered by legal' } });
    expect(resolved.status).toBe(200);
    expect(OpenQuestion.strict().parse(resolved.body)).toMatchObject({ status: 'resolved', note: 'Answered by legal' });
    const reopened = await call('PATCH', qPath, { principal: WRITER, body: { status: 'open' } });
    expect(reopened.body).toMatchObject({ status: 'open', note: 'Answered by legal' });
    const cleared = await call('PATCH', qPath, { principal: WRITER, body: { status: 'open', clear_note: true } });
    expect(cleared.body.note).toBeNull();
    expectInvalid(await call('PATCH', qPath, { principal: WRITER, body: { status: 'open', note: 'x', clear_note: true } }), 'clear_note', 'body');
    expectInvalid(await call('PATCH', qPath, { principal: WRITER, body: { note: 'x' } }), 'status', 'body');

    const decision = (await call('GET', `/deployments/${dep1}/decisions?limit=1`)).body.items[0];
    const dPath = `/deployments/${dep1}/decisions/${decision.id}`;
    const superseded = await call('PATCH', dPath, { principal: WRITER, body: { status: 'superseded', note: 'Replaced' } });
    expect(Decision.strict().parse(superseded.body)).toMatchObject({ status: 'superseded', note: 'Replaced' });
    const confirmed = await call('PATCH', dPath, { principal: WRITER, body: { status: 'confirmed' } });
    expect(confirmed.body.status).toBe('confirmed');
    expectInvalid(await call('PATCH', dPath, { principal: WRITER, body: { status: 'open' } }), 'status', 'body');
    expectProblem(await call('PATCH', dPath, { principal: READER, body: { status: 'confirmed' } }), 403);
  });
});

describe('identity and access', () => {
  it('answers 401 with WWW-Authenticate without a usable token', async () => {
    for (const token of [undefined, 'garbage', 'a.b.c']) {
      const answer = await call('GET', `/deployments/${dep1}/decisions`, token ? { token } : { principal: null });
      expectProblem(answer, 401);
      expect(answer.headers.get('www-authenticate')).toContain('Bearer');
    }
  });

  it('answers byte-identical 403s for a missing deployment and a deployment without a grant', async () => {
    const strip = (body: any) => JSON.stringify({ ...body, request_id: undefined, instance: undefined });
    const missing = await call('GET', '/deployments/00000000-0000-4000-8000-000000000000/decisions');
    const noGrant = await call('GET', `/deployments/${dep2}/decisions`);
    expectProblem(missing, 403);
    expectProblem(noGrant, 403);
    expect(strip(missing.body)).toBe(strip(noGrant.body));
    const readOnlyWrite = await call('POST', `/deployments/${dep1}/action-items`, { body: { text: 'x' } });
    expect(strip(readOnlyWrite.body)).toBe(strip(missing.body));
  });
});

describe('protocol', () => {
  it('puts a request id on every response and serves the problem type pages', async () => {
    const ok = await call('GET', '/deployments');
    expect(ok.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const problem = expectProblem(await call('GET', '/nowhere'), 404);
    const page = await fetch(`${t.core.origin}${problem.type}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('404');
    for (const slug of ['invalid-request', 'unauthorized', 'forbidden', 'rate-limited', 'unavailable']) {
      expect((await fetch(`${t.core.origin}/v1/problems/${slug}`)).status).toBe(200);
    }
  });

  it('serves an OpenAPI document with every route of the contract and a health document', async () => {
    const doc = (await call('GET', '/openapi.json', { principal: null })).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/deployments',
        '/deployments/{deployment_id}/decisions',
        '/deployments/{deployment_id}/search',
        '/deployments/{deployment_id}/action-items/{action_item_id}',
      ]),
    );
    expect(doc.paths['/deployments/{deployment_id}/search'].get.parameters.map((p: { name: string }) => p.name)).toContain('q');
    const operationIds = Object.values(doc.paths).flatMap((item: any) => Object.values(item).map((op: any) => op.operationId));
    expect(operationIds).toEqual(expect.arrayContaining(['createPrincipal', 'importMeeting', 'askTeammate']));
    expect(new Set(operationIds).size).toBe(operationIds.length);
    const health = await call('GET', '/health', { principal: null });
    expect(health.body).toMatchObject({ status: 'ok', store: 'sqlite' });
  });
});

describe('long ids', () => {
  it('refuses an over-long id with a 400 naming it, not a bare 414 from the router', async () => {
    const answer = await call('GET', `/deployments/${'a'.repeat(300)}/decisions`);
    expectInvalid(answer, 'deployment_id', 'path');
  });
});

describe('router refusals', () => {
  it('answers a path that is not valid percent-encoded UTF-8 with a 400 problem naming it, audited like any unknown route', async () => {
    const path = `/deployments/${dep1}/decisions/%ED%A0%80`;
    const answer = await call('GET', path);
    const doc = expectInvalid(answer, 'path', 'path');
    expect(doc.detail).toContain('%ED%A0%80');
    const head = await fetch(`${t.core.baseUrl}${path}`, { method: 'HEAD' });
    expect(head.status).toBe(400);
    expect(head.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    for (const requestId of [doc.request_id!, head.headers.get('x-request-id')!]) {
      const logged = await t.core.store.queryAudit(null, { requestId, limit: 2 });
      expect(logged.entries).toEqual([expect.objectContaining({ id: requestId, status: 400, kind: 'read' })]);
    }
  });
});

/** A GET over node:http on `agent`, so the test sees what a keep-alive client sees. */
function keepAliveGet(agent: Agent, path: string): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  const url = new URL(`${t.core.baseUrl}${path}`);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, agent }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('header overflow', () => {
  it('answers a 48 KB query with a 431 problem document, closes the connection cleanly and audits it', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const answer = await keepAliveGet(agent, `/deployments?q=${'a'.repeat(48 * 1024)}`);
      expect(answer.status).toBe(431);
      expect(answer.headers['content-type']).toBe('application/problem+json');
      expect(answer.headers.connection).toBe('close');
      const doc = ProblemDocument.parse(JSON.parse(answer.text));
      expect(doc).toMatchObject({ status: 431, type: '/v1/problems/request-header-fields-too-large', request_id: answer.headers['x-request-id'] });
      // The same keep-alive client goes on working: the close was seen, no request fails on a dead socket.
      expect((await keepAliveGet(agent, '/health')).status).toBe(200);
      const logged = await t.core.store.queryAudit(null, { requestId: doc.request_id!, limit: 2 });
      expect(logged.entries).toEqual([expect.objectContaining({ status: 431, kind: 'read' })]);
      const page = await fetch(`${t.core.origin}${doc.type}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('431');
    } finally {
      agent.destroy();
    }
  });
});
