import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { problem, startRecordingServer, type CannedResponse, type RecordedRequest, type RecordingServer } from '../client/recording-server.js';
import { runMemory } from './run-memory.js';

let server: RecordingServer;
/** What the stand-in core answers next; each test sets it. */
let answer: (request: RecordedRequest) => CannedResponse;
let env: Record<string, string>;

const decision = { id: 'dec-1', type: 'decision', status: 'confirmed', text: 'Ship Friday' };

beforeAll(async () => {
  server = await startRecordingServer((request) => answer(request));
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  server.requests.length = 0;
  answer = () => ({ status: 200, body: { items: [decision], next_cursor: null } });
  env = { MEMORY_BASE_URL: server.baseUrl, MEMORY_TOKEN: 'tok', MEMORY_DEPLOYMENT: 'd1' };
});

const last = () => server.requests.at(-1)!;

describe('reading', () => {
  it('lists decisions as JSON with flags in the query string', async () => {
    const run = await runMemory(['decisions', 'list', '--json', '--since', '2025-01-01', '--meeting-id', 'm1', '--limit', '5'], env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ items: [decision], next_cursor: null });
    expect(last().path).toBe('/v1/deployments/d1/decisions');
    expect(Object.fromEntries(last().query)).toEqual({ since: '2025-01-01', meeting_id: 'm1', limit: '5' });
    expect(last().headers.authorization).toBe('Bearer tok');
  });

  it('prints JSON without --json when stdout is not a terminal', async () => {
    const run = await runMemory(['questions', 'list'], env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).items).toHaveLength(1);
    expect(last().path).toBe('/v1/deployments/d1/open-questions');
  });

  it('takes --deployment over MEMORY_DEPLOYMENT, and ids as arguments', async () => {
    answer = () => ({ status: 200, body: decision });
    const run = await runMemory(['decisions', 'get', 'dec-1', '--deployment', 'd2'], env);
    expect(run.code).toBe(0);
    expect(last().path).toBe('/v1/deployments/d2/decisions/dec-1');
  });

  it('uses the only reachable deployment when none is named', async () => {
    answer = (request) =>
      request.path === '/v1/deployments'
        ? { status: 200, body: { items: [{ id: 'only', name: 'Sales bot' }] } }
        : { status: 200, body: { items: [], next_cursor: null } };
    const run = await runMemory(['topics', 'list'], { ...env, MEMORY_DEPLOYMENT: undefined } as never);
    expect(run.code).toBe(0);
    expect(server.requests.map((request) => request.path)).toEqual(['/v1/deployments', '/v1/deployments/only/topics']);
  });

  it('asks which deployment when several are reachable (exit 2)', async () => {
    answer = () => ({ status: 200, body: { items: [{ id: 'a', name: 'A' }, { id: 'b', name: 'B' }] } });
    const run = await runMemory(['topics', 'list'], { ...env, MEMORY_DEPLOYMENT: undefined } as never);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--deployment');
    expect(run.stderr).toContain('a (A), b (B)');
    expect(run.stdout).toBe('');
  });

  it('searches with the query as an argument, q on the wire and --types comma-separated', async () => {
    answer = () => ({ status: 200, body: { results: [], next_cursor: null, was_capped: false } });
    const run = await runMemory(['search', 'budget plan', '--types', 'decision,topic', '--limit', '3'], env);
    expect(run.code).toBe(0);
    expect(last().path).toBe('/v1/deployments/d1/search');
    expect(Object.fromEntries(last().query)).toEqual({ q: 'budget plan', types: 'decision,topic', limit: '3' });
  });

  it('follows cursors with --all and prints one envelope', async () => {
    answer = (request) =>
      request.query.get('cursor') === 'p2'
        ? { status: 200, body: { items: [{ id: 'b' }], next_cursor: null } }
        : { status: 200, body: { items: [{ id: 'a' }], next_cursor: 'p2' } };
    const run = await runMemory(['statements', 'list', '--all', '--limit', '1', '--meeting-id', 'm1'], env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ items: [{ id: 'a' }, { id: 'b' }], next_cursor: null });
    expect(server.requests.map((request) => request.rawQuery)).toEqual([
      '?meeting_id=m1&limit=1',
      '?meeting_id=m1&limit=1&cursor=p2',
    ]);
  });

  it('lists deployments without needing one', async () => {
    answer = () => ({ status: 200, body: { items: [{ id: 'd1', name: 'Sales bot', access: 'read' }] } });
    const run = await runMemory(['deployments', 'list'], { ...env, MEMORY_DEPLOYMENT: undefined } as never);
    expect(run.code).toBe(0);
    expect(server.requests.map((request) => request.path)).toEqual(['/v1/deployments']);
  });
});

describe('changing', () => {
  it('supersedes a decision with a note: PATCH with the fixed status', async () => {
    answer = () => ({ status: 200, body: { ...decision, status: 'superseded', note: 'replaced' } });
    const run = await runMemory(['decisions', 'supersede', 'dec-1', '--note', 'replaced'], env);
    expect(run.code).toBe(0);
    expect(last().method).toBe('PATCH');
    expect(last().path).toBe('/v1/deployments/d1/decisions/dec-1');
    expect(JSON.parse(last().body)).toEqual({ status: 'superseded', note: 'replaced' });
    expect(JSON.parse(run.stdout).status).toBe('superseded');
  });

  it('resolves and reopens questions, clearing a note', async () => {
    answer = () => ({ status: 200, body: {} });
    expect((await runMemory(['questions', 'resolve', 'q1', '--note', 'answered'], env)).code).toBe(0);
    expect(JSON.parse(last().body)).toEqual({ status: 'resolved', note: 'answered' });
    expect((await runMemory(['questions', 'reopen', 'q1', '--clear-note'], env)).code).toBe(0);
    expect(JSON.parse(last().body)).toEqual({ status: 'open', clear_note: true });
  });

  it('creates an action item from the text argument and flags', async () => {
    answer = () => ({ status: 201, body: { id: 'ai-1', type: 'action_item' } });
    const run = await runMemory(
      ['action-items', 'create', 'Write the doc', '--due-date', '2025-02-01', '--assignee-idp-id', 'oid-1'],
      env,
    );
    expect(run.code).toBe(0);
    expect(last().method).toBe('POST');
    expect(JSON.parse(last().body)).toEqual({ text: 'Write the doc', due_date: '2025-02-01', assignee_idp_id: 'oid-1' });
  });

  it('marks done, reopens and updates action items', async () => {
    answer = () => ({ status: 200, body: {} });
    await runMemory(['action-items', 'done', 'ai-1'], env);
    expect(JSON.parse(last().body)).toEqual({ status: 'done' });
    await runMemory(['action-items', 'reopen', 'ai-1'], env);
    expect(JSON.parse(last().body)).toEqual({ status: 'open' });
    await runMemory(['action-items', 'update', 'ai-1', '--clear-due-date', '--status', 'done'], env);
    expect(JSON.parse(last().body)).toEqual({ clear_due_date: true, status: 'done' });
  });
});

describe('usage errors are refused locally, naming the flag (exit 2)', () => {
  const cases: [string[], RegExp][] = [
    [['action-items', 'update', 'ai-1', '--due-date', 'soon'], /--due-date: must be a date in the form YYYY-MM-DD/],
    [['action-items', 'update', 'ai-1'], /send at least one of --status, --assignee-idp-id, --due-date, --clear-due-date/],
    [['decisions', 'confirm', 'dec-1', '--note', 'x', '--clear-note'], /--clear-note: cannot be sent together with --note/],
    [['decisions', 'list', '--limit', '0'], /--limit:/],
    [['decisions', 'list', '--limit', 'many'], /--limit:/],
    [['decisions', 'list', '--since', '2025-02-01', '--until', '2025-01-01'], /--until/],
    [['search', 'x', '--types', 'decision,nonsense'], /--types:/],
    [['search', '   '], /<query>: query must not be empty/],
    [['decisions', 'get', 'bad id!'], /<decision-id>:/],
  ];
  for (const [args, message] of cases) {
    it(args.join(' '), async () => {
      const run = await runMemory(args, env);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stdout).toBe('');
      expect(server.requests).toHaveLength(0);
    });
  }

  it('refuses unknown flags and bad choices through commander', async () => {
    expect((await runMemory(['decisions', 'list', '--bogus'], env)).code).toBe(2);
    expect((await runMemory(['decisions', 'list', '--order', 'sideways'], env)).code).toBe(2);
    expect((await runMemory(['decisions', 'get'], env)).code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });
});

describe('failures from the core become a sentence and the next step', () => {
  it('401 is exit 4 and says to sign in', async () => {
    answer = () => problem(401, { detail: 'The token has expired.' });
    const run = await runMemory(['decisions', 'list'], env);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('The token has expired.');
    expect(run.stderr).toContain('memory login');
  });

  it('403 is exit 1 and says to ask for a grant on the deployment', async () => {
    answer = () => problem(403);
    const run = await runMemory(['decisions', 'confirm', 'dec-1'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/read_write grant on deployment d1/);
  });

  it('404 says to check the id with the list command', async () => {
    answer = () => problem(404);
    const run = await runMemory(['action-items', 'get', 'ai-9'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No such action item ai-9');
    expect(run.stderr).toContain('memory action-items list');
  });

  it('400 names each refused parameter as the flag or argument', async () => {
    answer = () =>
      problem(400, {
        invalid_params: [
          { name: 'q', in: 'query', reason: 'is too long' },
          { name: 'cursor', in: 'query', reason: 'does not belong to this query' },
        ],
      });
    const run = await runMemory(['search', 'x', '--cursor', 'zzz'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('<query> is too long; --cursor does not belong to this query');
  });

  it('429 says how long to wait', async () => {
    answer = () => ({ ...problem(429), headers: { 'retry-after': '120' } });
    const run = await runMemory(['topics', 'list'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('wait 120 seconds');
  });

  it('503 on a change says the outcome is unknown and how to check', async () => {
    answer = (request) => (request.method === 'PATCH' ? problem(503) : { status: 200, body: { ...decision, status: 'confirmed' } });
    const run = await runMemory(['decisions', 'supersede', 'dec-1'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('outcome of the change is unknown');
    expect(run.stderr).toContain('memory decisions get dec-1');
  });

  it('an unreachable core says to check the address', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const run = await runMemory(['decisions', 'list'], { ...env, MEMORY_BASE_URL: `http://127.0.0.1:${port}/v1` });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Cannot reach the core');
    expect(run.stderr).toContain('ECONNREFUSED');
  });

  it('no address or token is exit 4 with how to sign in', async () => {
    const run = await runMemory(['decisions', 'list'], { MEMORY_DEPLOYMENT: 'd1' });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('MEMORY_BASE_URL and MEMORY_TOKEN');
    expect(run.stderr).toContain('memory login');
  });
});

describe('help', () => {
  it('lists the nouns and, per command, flags derived from the schema', async () => {
    const top = await runMemory(['--help']);
    expect(top.code).toBe(0);
    for (const noun of ['deployments', 'decisions', 'questions', 'action-items', 'statements', 'topics', 'meetings', 'search']) {
      expect(top.stdout).toContain(noun);
    }
    const update = await runMemory(['action-items', 'update', '--help']);
    expect(update.code).toBe(0);
    for (const flag of ['--status <status>', '--assignee-idp-id <id>', '--due-date <YYYY-MM-DD>', '--clear-due-date', '--deployment <id>', '--json']) {
      expect(update.stdout).toContain(flag);
    }
    const list = await runMemory(['decisions', 'list', '--help']);
    for (const flag of ['--since', '--until', '--meeting-id', '--limit', '--cursor', '--all']) expect(list.stdout).toContain(flag);
  });
});
