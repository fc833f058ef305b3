import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminClient, type AdminClient } from '../../../src/client/admin-client.js';
import { MemoryApiError } from '../../../src/client/errors.js';
import { nameBasedPersonId } from '../../../src/core/ingest/speakers.js';
import { call, startAdminCore, type AdminCore } from './admin-helpers.js';

const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url).pathname;
const PRIYA = '0f6b2a1e-7c8d-4e5f-9a0b-1c2d3e4f5a6b';
const JONAS = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

let a: AdminCore;
let client: AdminClient;
let atlas: string;
let juniper: string;

beforeAll(async () => {
  a = await startAdminCore();
  atlas = a.t.creds.deployments[0]!.id;
  juniper = a.t.creds.deployments[1]!.id;
  client = createAdminClient({ baseUrl: a.t.core.baseUrl, token: a.adminToken });
  await client.setPeople({ people: [{ idp_id: PRIYA, display_name: 'Priya Raman' }] });
});
afterAll(async () => {
  await client?.close();
  await a?.t.stop();
});

/** Reads a v1 route with the demo principal that holds read on Atlas (0) or on Juniper (2). */
async function read(path: string, principal = 0): Promise<any> {
  const answer = await call(a.t, 'GET', path, { token: await a.t.token(principal) });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
}

function upload(path: string, contentType: string, input: Record<string, unknown>) {
  return client.importMeeting({ deployment_id: atlas, ...input } as never, {
    data: createReadStream(path),
    contentType,
  });
}

async function refusal(promise: Promise<unknown>): Promise<MemoryApiError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(MemoryApiError);
  return error as MemoryApiError;
}

/** What the database holds: statements of a deployment, meetings, and anything left staged. */
function counts(deployment: string) {
  const db = new BetterSqlite3(join(a.t.dataDir, 'memory.db'), { readonly: true });
  try {
    const one = (sql: string, ...params: unknown[]) => (db.prepare(sql).get(...params) as { n: number }).n;
    return {
      statements: one('SELECT count(*) AS n FROM statements WHERE deployment_id = ?', deployment),
      meetings: one('SELECT count(*) AS n FROM meetings WHERE deployment_id = ?', deployment),
      staged: one('SELECT count(*) AS n FROM ingest_statements') + one('SELECT count(*) AS n FROM ingest_runs'),
    };
  } finally {
    db.close();
  }
}

describe('WebVTT transcripts', () => {
  it('imports a Teams transcript: voice tags become attributed statements, readable through the v1 routes', async () => {
    const result = await upload(fixture('teams-renewal.vtt'), 'text/vtt', { title: 'Acme renewal', started_at: '2025-03-10T09:00:00Z' });
    expect(result.created).toBe(true);
    expect(result.external_id).toMatch(/^webvtt-sha256:[0-9a-f]{64}$/);
    const meetingId = result.meeting.id;
    const marcus = nameBasedPersonId(a.t.creds.tenant_id, 'Marcus Lee');

    const meeting = await read(`/deployments/${atlas}/meetings/${meetingId}`);
    expect(meeting).toMatchObject({
      title: 'Acme renewal',
      platform: 'teams',
      started_at: '2025-03-10T09:00:00Z',
      ended_at: '2025-03-10T09:00:21Z',
      attribution: { kind: 'platform_identity', display_name: 'Priya Raman', idp_id: PRIYA },
      memory: { statement: 5, decision: 0 },
    });
    expect(meeting.participants.map((p: { display_name: string }) => p.display_name)).toEqual(['Priya Raman', 'Marcus Lee', 'Dana Whitfield']);

    const statements = await read(`/deployments/${atlas}/statements?meeting_id=${meetingId}&order=asc`);
    expect(statements.items.map((s: { text: string }) => s.text)).toEqual([
      "Morning everyone, let's start with the Acme renewal.",
      'Sure. Legal sent the redlines back yesterday, mostly about the liability cap.',
      'OK. R&D also wants the SSO clause kept as is.',
      'Right.',
      "I'll draft the reply to legal by Thursday and share it here.",
    ]);
    expect(statements.items.map((s: { spoken_at: string }) => s.spoken_at)).toEqual([
      '2025-03-10T09:00:03Z',
      '2025-03-10T09:00:07Z',
      '2025-03-10T09:00:11Z',
      '2025-03-10T09:00:14Z',
      '2025-03-10T09:00:15Z',
    ]);
    expect(statements.items[0].attribution).toEqual({ kind: 'platform_identity', display_name: 'Priya Raman', idp_id: PRIYA });
    expect(statements.items[1].attribution).toEqual({ kind: 'platform_identity', display_name: 'Marcus Lee', idp_id: marcus });
    expect(marcus).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const search = await read(`/deployments/${atlas}/search?q=redlines&types=statement`);
    expect(search.results.map((r: { meeting_id: string }) => r.meeting_id)).toContain(meetingId);
  });

  it('imports a Zoom transcript (CRLF, numbered cues, Name: lines with continuations) on the platform given', async () => {
    const result = await upload(fixture('zoom-q3-review.vtt'), 'text/vtt', {
      title: 'Q3 review',
      started_at: '2025-03-12T17:30:00Z',
      platform: 'zoom',
      organizer: 'marcus lee',
    });
    const statements = await read(`/deployments/${atlas}/statements?meeting_id=${result.meeting.id}&order=asc`);
    expect(statements.items.map((s: { attribution: { display_name: string }; text: string }) => [s.attribution.display_name, s.text])).toEqual([
      ['Priya Raman', 'Okay, can everyone see my screen?'],
      ['Marcus Lee', 'Yes. The numbers for Q3 look right.'],
      ['Marcus Lee', 'One thing: the churn line still counts the pilot accounts.'],
      ['Priya Raman', 'Good catch, I will fix that before Friday.'],
    ]);
    expect(statements.items[3].spoken_at).toBe('2025-03-12T17:31:02Z');
    expect(result.meeting).toMatchObject({ platform: 'zoom', attribution: { idp_id: nameBasedPersonId(a.t.creds.tenant_id, 'Marcus Lee') } });
  });

  it('changes nothing when the same transcript is imported again', async () => {
    const first = await upload(fixture('zoom-q3-review.vtt'), 'text/vtt', { title: 'Q3 review', started_at: '2025-03-12T17:30:00Z' });
    const before = counts(atlas);
    const again = await upload(fixture('zoom-q3-review.vtt'), 'text/vtt', { title: 'Renamed', started_at: '2025-03-12T17:30:00Z' });
    expect(again).toMatchObject({ created: false, external_id: first.external_id, meeting: { id: first.meeting.id, title: 'Q3 review' } });
    expect(counts(atlas)).toEqual(before);
  });

  it('refuses a malformed transcript with its line and reason and keeps nothing of it, even after many good cues', async () => {
    const before = counts(atlas);
    const good = Array.from({ length: 1500 }, (_, i) => `00:00:${String(i % 60).padStart(2, '0')}.000 --> 00:00:${String(i % 60).padStart(2, '0')}.500\n<v Ana>cue ${i}</v>\n`);
    const body = `WEBVTT\n\n${good.join('\n')}\n00:30:00,000 --> 00:30:01.000\n<v Ana>comma instead of dot</v>\n`;
    const badLine = 3 + good.length * 3;
    const answer = await call(a.t, 'POST', `/admin/deployments/${atlas}/meetings?title=Broken&started_at=2025-03-13T10:00:00Z`, {
      token: a.adminToken,
      body,
      contentType: 'text/vtt',
    });
    expect(answer.status).toBe(400);
    expect(answer.body.invalid_params).toEqual([{ name: 'body', in: 'body', reason: expect.stringMatching(new RegExp(`^line ${badLine}: a cue timing must look like`)) }]);
    expect(answer.body.detail).toContain(`line ${badLine}`);
    expect(counts(atlas)).toEqual(before);
    expect(before.staged).toBe(0);
  });

  it('refuses each kind of malformed transcript with the line it is on', async () => {
    const cases: [string, number, RegExp][] = [
      ['1\n00:00:01.000 --> 00:00:02.000\n<v A>x</v>\n', 1, /first line must be WEBVTT/],
      ['WEBVTT\n\n00:00:05.000 --> 00:00:02.000\n<v A>x</v>\n', 3, /ends .* before it starts/],
      ['WEBVTT\n\nintro\n<v A>no timing</v>\n', 4, /identifier must be followed by its timing line/],
      ['WEBVTT\n\nNOTE only a note\n', 3, /holds no cue with text/],
    ];
    for (const [body, line, reason] of cases) {
      const answer = await call(a.t, 'POST', `/admin/deployments/${atlas}/meetings?title=T&started_at=2025-03-13T10:00:00Z`, {
        token: a.adminToken,
        body,
        contentType: 'text/vtt',
      });
      expect(answer.status, body).toBe(400);
      expect(answer.body.invalid_params[0].reason).toMatch(new RegExp(`^line ${line}: `));
      expect(answer.body.invalid_params[0].reason).toMatch(reason);
    }
    const latin1 = Buffer.concat([Buffer.from('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v A>caf'), Buffer.from([0xe9]), Buffer.from('</v>\n')]);
    const error = await refusal(client.importMeeting({ deployment_id: atlas, title: 'T', started_at: '2025-03-13T10:00:00Z' }, { data: [latin1], contentType: 'text/vtt' }));
    expect(error.invalidParams[0]!.reason).toBe('line 4: the file is not valid UTF-8');
  });

  it('needs a title and start for a transcript, and refuses other content types', async () => {
    const noStart = await refusal(upload(fixture('zoom-q3-review.vtt'), 'text/vtt', { title: 'x' }));
    expect(noStart.invalidParams).toEqual([{ name: 'started_at', in: 'query', reason: 'required for a WebVTT transcript' }]);
    const early = await refusal(upload(fixture('zoom-q3-review.vtt'), 'text/vtt', { title: 'x', started_at: '2025-03-12T17:30:00Z', ended_at: '2025-03-12T17:00:00Z' }));
    expect(early.invalidParams[0]!.name).toBe('ended_at');
    const plain = await call(a.t, 'POST', `/admin/deployments/${atlas}/meetings?title=T&started_at=2025-03-13T10:00:00Z`, {
      token: a.adminToken,
      body: 'WEBVTT\n',
      contentType: 'text/plain',
    });
    expect(plain.status).toBe(415);
    const other = await call(a.t, 'POST', `/admin/deployments/no-such/meetings?title=T&started_at=2025-03-13T10:00:00Z`, {
      token: a.adminToken,
      body: 'WEBVTT\n',
      contentType: 'text/vtt',
    });
    expect(other.status).toBe(404);
  });
});

describe('JSON meeting documents', () => {
  it('imports a meeting with its decisions, open questions, action items and topics, readable through the v1 routes', async () => {
    const result = await client.importMeeting({ deployment_id: juniper }, { data: createReadStream(fixture('acme-sync.json')), contentType: 'application/json' });
    expect(result).toMatchObject({ created: true, external_id: 'teams:19:meeting_acme-sync-2025-03-11' });
    const meetingId = result.meeting.id;
    const meeting = await read(`/deployments/${juniper}/meetings/${meetingId}`, 2);
    expect(meeting).toMatchObject({
      title: 'Acme sync',
      memory: { statement: 3, decision: 1, open_question: 1, action_item: 1, topic: 1 },
      attribution: { display_name: 'Priya Raman', idp_id: PRIYA },
    });
    expect(meeting.participants).toEqual([
      { kind: 'platform_identity', display_name: 'Priya Raman', idp_id: PRIYA },
      { kind: 'platform_identity', display_name: 'Jonas Berg', idp_id: JONAS },
      { kind: 'anonymous' },
    ]);
    const statements = await read(`/deployments/${juniper}/statements?meeting_id=${meetingId}&order=asc`, 2);
    expect(statements.items.map((s: { text: string }) => s.text)).toEqual([
      'We agreed to cap liability at twelve months of fees.',
      'Who tells their procurement team?',
      'I can, I know their buyer.',
    ]);
    const decisions = await read(`/deployments/${juniper}/decisions?meeting_id=${meetingId}`, 2);
    expect(decisions.items).toEqual([expect.objectContaining({ text: 'Cap liability at twelve months of fees for Acme.', status: 'confirmed' })]);
    const questions = await read(`/deployments/${juniper}/open-questions?meeting_id=${meetingId}`, 2);
    expect(questions.items[0]).toMatchObject({ status: 'open', attribution: { idp_id: JONAS } });
    const items = await read(`/deployments/${juniper}/action-items?assignee_idp_id=${JONAS}`, 2);
    expect(items.items).toEqual([
      expect.objectContaining({ text: 'Tell Acme procurement about the liability cap', due_date: '2025-03-14', status: 'open', meeting_id: meetingId }),
    ]);
    const topics = await read(`/deployments/${juniper}/topics`, 2);
    expect(topics.items.find((t: { name: string }) => t.name === 'Acme renewal').meetings).toEqual([
      { meeting_id: meetingId, title: 'Acme sync', started_at: '2025-03-11T15:00:00Z' },
    ]);

    const again = await client.importMeeting({ deployment_id: juniper }, { data: createReadStream(fixture('acme-sync.json')), contentType: 'application/json' });
    expect(again).toMatchObject({ created: false, meeting: { id: meetingId } });
  });

  it('refuses a syntax error with its line, a schema error with the field, and transcript fields in the query', async () => {
    const before = counts(juniper);
    const broken = '{\n  "meeting": {\n    "title": "x",\n    "started_at": "2025-03-11T15:00:00Z",,\n  }\n}\n';
    const syntax = await refusal(client.importMeeting({ deployment_id: juniper }, { data: [Buffer.from(broken)], contentType: 'application/json' }));
    expect(syntax.invalidParams[0]!.reason).toMatch(/^line 4: not valid JSON/);

    const document = JSON.parse(await readFile(fixture('acme-sync.json'), 'utf8'));
    document.meeting.external_id = 'another';
    document.statements[1].spoken_at = '2025-03-11 15:02:10';
    document.decisions[0].status = 'maybe';
    const schema = await refusal(client.importMeeting({ deployment_id: juniper }, { data: [Buffer.from(JSON.stringify(document))], contentType: 'application/json' }));
    expect(schema.invalidParams.map((param) => param.name).sort()).toEqual(['decisions.0.status', 'statements.1.spoken_at']);

    const titled = await refusal(
      client.importMeeting({ deployment_id: juniper, title: 'x' }, { data: createReadStream(fixture('acme-sync.json')), contentType: 'application/json' }),
    );
    expect(titled.invalidParams).toEqual([{ name: 'title', in: 'query', reason: 'only for WebVTT; a JSON document carries its own' }]);
    expect(counts(juniper)).toEqual(before);
  });
});

describe('large transcripts', () => {
  it('streams 50,000 cues into one meeting with bounded memory', async () => {
    const file = join(a.t.dataDir, 'large.vtt');
    const out = createWriteStream(file);
    out.write('WEBVTT\n\n');
    const speakers = ['Priya Raman', 'Marcus Lee', 'Dana Whitfield', 'Jonas Berg'];
    const CUES = 50_000;
    for (let i = 0; i < CUES; i += 1) {
      const start = i * 2;
      const stamp = (seconds: number) =>
        `${String(Math.floor(seconds / 3600)).padStart(2, '0')}:${String(Math.floor(seconds / 60) % 60).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}.000`;
      const line = `${i + 1}\n${stamp(start)} --> ${stamp(start + 1)}\n<v ${speakers[i % 4]}>Line ${i} of the long planning session about quarterly roadmap items, budget owners and hiring.</v>\n\n`;
      if (!out.write(line)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    const size = (await stat(file)).size;

    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const started = Date.now();
    let result;
    try {
      result = await client.importMeeting(
        { deployment_id: atlas, title: 'Planning marathon', started_at: '2025-03-20T08:00:00Z' },
        { data: createReadStream(file), contentType: 'text/vtt', length: size },
      );
    } finally {
      clearInterval(sampler);
    }
    const growthMb = (peak - baseline) / (1024 * 1024);
    console.log(
      `imported ${CUES} cues (${(size / 1024 / 1024).toFixed(1)} MB) in ${Date.now() - started} ms; RSS ${(baseline / 1048576).toFixed(0)} MB -> peak ${(peak / 1048576).toFixed(0)} MB (+${growthMb.toFixed(1)} MB)`,
    );
    expect(result.created).toBe(true);
    expect(result.meeting.memory.statement).toBe(CUES);
    expect(result.meeting.participants).toHaveLength(4);
    expect(growthMb).toBeLessThan(200);
    expect(counts(atlas).staged).toBe(0);

    const firstPage = await read(`/deployments/${atlas}/statements?meeting_id=${result.meeting.id}&order=asc&limit=3`);
    expect(firstPage.items.map((s: { text: string }) => s.text.split(' of ')[0])).toEqual(['Line 0', 'Line 1', 'Line 2']);
    await rm(file);
  }, 180_000);
});
