import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminCore, type AdminCore } from '../core/admin/admin-helpers.js';
import { runMemory } from './run-memory.js';

const fixture = (name: string) => new URL(`../core/admin/fixtures/${name}`, import.meta.url).pathname;

let a: AdminCore;
let env: Record<string, string>;
let scratch: string;

beforeAll(async () => {
  a = await startAdminCore();
  env = { MEMORY_BASE_URL: a.t.core.baseUrl, MEMORY_TOKEN: a.adminToken };
  scratch = await mkdtemp(join(tmpdir(), 'mm-admin-cli-'));
});
afterAll(async () => {
  await a?.t.stop();
  await rm(scratch, { recursive: true, force: true });
});

async function admin(args: string[], overrides: Record<string, string> = {}) {
  return runMemory(['admin', ...args], { ...env, ...overrides });
}

function json(run: { stdout: string }): any {
  return JSON.parse(run.stdout);
}

describe('memory admin', () => {
  it('lists its nouns and generates verbs and flags from the admin table', async () => {
    const help = await runMemory(['admin', '--help']);
    expect(help.code).toBe(0);
    for (const noun of ['tenant', 'deployments', 'principals', 'grants', 'backend', 'people', 'audit', 'retention', 'v1-schedule', 'import']) {
      expect(help.stdout).toContain(noun);
    }
    const backend = await runMemory(['admin', 'backend', 'set', '--help']);
    for (const flag of ['--deployment <id>', '--url', '--secret-ref', '--timeout-ms <n>', '--fallback-line', '--system-prompt']) {
      expect(backend.stdout).toContain(flag);
    }
  });

  it('creates a deployment and a principal (secret shown once), grants it and revokes the grant', async () => {
    const deployment = json(await admin(['deployments', 'create', 'Nova', '--platform', 'teams', '--voice', 'alloy', '--json']));
    expect(deployment).toMatchObject({ name: 'Nova', platform: 'teams', type: 'deployment' });
    const principal = await admin(['principals', 'create', 'nova reader', '--json']);
    expect(principal.code).toBe(0);
    const credential = json(principal);
    expect(credential.client_secret).toMatch(/^[A-Za-z0-9_-]{40}$/);
    const listed = await admin(['principals', 'list', '--json']);
    expect(listed.stdout).not.toContain(credential.client_secret);

    const grant = await admin(['grants', 'set', credential.client_id, '--deployment', deployment.id, '--json']);
    expect(json(grant)).toMatchObject({ access: 'read', deployment_id: deployment.id });
    const grants = json(await admin(['grants', 'list', '--client-id', credential.client_id, '--json']));
    expect(grants.items).toHaveLength(1);
    const revoked = await admin(['grants', 'revoke', credential.client_id, '--deployment', deployment.id, '--json']);
    expect(revoked.code).toBe(0);
  });

  it('refuses a raw secret, a bad region and a bad budget before calling the core (exit 2)', async () => {
    const atlas = a.t.creds.deployments[0]!.id;
    const raw = await admin(['backend', 'set', '--deployment', atlas, '--url', 'https://agent.example.com', '--secret-ref', 'hunter2-raw-secret']);
    expect(raw.code).toBe(2);
    expect(raw.stderr).toContain('--secret-ref');
    expect(raw.stderr).not.toContain('hunter2-raw-secret');
    const budget = await admin(['backend', 'set', '--deployment', atlas, '--url', 'https://a.example', '--secret-ref', 'env:X', '--timeout-ms', '500']);
    expect(budget.code).toBe(2);
    expect(budget.stderr).toContain('--timeout-ms');
    const region = await admin(['tenant', 'update', '--region', 'eu']);
    expect(region.code).toBe(2);
    const ok = await admin(['backend', 'set', '--deployment', atlas, '--url', 'https://agent.example.com/hook', '--secret-ref', 'env:ATLAS_SECRET', '--json']);
    expect(json(ok)).toMatchObject({ timeout_ms: 15000, secret_ref: 'env:ATLAS_SECRET' });
  });

  it('tells a non-admin token what it needs (403, exit 1)', async () => {
    const run = await admin(['tenant', 'get'], { MEMORY_TOKEN: await a.t.token(1) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Not allowed (403)');
    expect(run.stderr).toContain('admin principal');
  });

  it('imports transcripts with a people file and a sidecar, reports a malformed one with its line, and exits 1', async () => {
    const atlas = a.t.creds.deployments[0]!.id;
    const people = join(scratch, 'people.json');
    await writeFile(people, JSON.stringify({ 'Priya Raman': '0f6b2a1e-7c8d-4e5f-9a0b-1c2d3e4f5a6b' }));
    const transcript = join(scratch, 'standup.vtt');
    await writeFile(transcript, 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v Priya Raman>Standup starts now.</v>\n');
    await writeFile(join(scratch, 'standup.meta.json'), JSON.stringify({ title: 'Daily standup', started_at: '2025-04-01T08:30:00Z' }));
    const broken = join(scratch, 'broken.vtt');
    await writeFile(broken, 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v A>fine</v>\n\n00:00:03 --> 00:00:04.000\n<v A>bad</v>\n');

    const run = await admin(['import', transcript, fixture('acme-sync.json'), broken, '--deployment', atlas, '--people', people, '--started-at', '2025-04-02T09:00:00Z']);
    expect(run.code).toBe(1);
    const outcomes = json(run);
    expect(outcomes[0]).toMatchObject({ ok: true, created: true, statements: 1 });
    expect(outcomes[1]).toMatchObject({ ok: true, created: true, external_id: 'teams:19:meeting_acme-sync-2025-03-11', statements: 3 });
    expect(outcomes[2]).toEqual({ file: broken, ok: false, error: expect.stringMatching(/^line 6: a cue timing must look like/) });
    expect(run.stderr).toContain('1 of 3 files were refused');

    const meeting = await runMemory(['meetings', 'get', outcomes[0].meeting_id, '--deployment', atlas, '--json'], {
      MEMORY_BASE_URL: a.t.core.baseUrl,
      MEMORY_TOKEN: await a.t.token(0),
    });
    expect(json(meeting)).toMatchObject({
      title: 'Daily standup',
      started_at: '2025-04-02T09:00:00Z',
      attribution: { idp_id: '0f6b2a1e-7c8d-4e5f-9a0b-1c2d3e4f5a6b' },
    });

    const again = await admin(['import', transcript, '--deployment', atlas, '--started-at', '2025-04-02T09:00:00Z', '--json']);
    expect(again.code).toBe(0);
    expect(json(again)[0]).toMatchObject({ ok: true, created: false, meeting_id: outcomes[0].meeting_id });
  });

  it('sets and lists people mappings and queries the audit log', async () => {
    const people = join(scratch, 'people-list.json');
    await writeFile(people, JSON.stringify([{ idp_id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', display_name: 'Marcus Lee' }]));
    expect((await admin(['people', 'set', people, '--json'])).code).toBe(0);
    const listed = json(await admin(['people', 'list', '--json']));
    expect(listed.items.map((p: { display_name: string }) => p.display_name)).toContain('Marcus Lee');
    const audit = json(await admin(['audit', 'list', '--operation', 'setPeople', '--json']));
    expect(audit.items[0]).toMatchObject({ operation: 'setPeople', kind: 'action', status: 200 });
  });
});

describe('memory serve init', () => {
  it('initialises a data dir once, prints the credential, and refuses a second run', async () => {
    const dataDir = join(scratch, 'fresh');
    const first = await runMemory(['serve', 'init', '--data-dir', dataDir, '--tenant-name', 'Acme', '--region', 'ca', '--json']);
    expect(first.code).toBe(0);
    expect(json(first)).toMatchObject({ tenant_name: 'Acme', region: 'ca', operator: true, scope: 'api://meeting-memory/.default' });
    const second = await runMemory(['serve', 'init', '--data-dir', dataDir]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('--force-new-admin');
    const another = await runMemory(['serve', 'init', '--data-dir', dataDir, '--force-new-admin']);
    expect(another.code).toBe(0);
    expect(another.stdout).toContain('client secret');
    expect(another.stdout).toContain('shown this once');
    const region = await runMemory(['serve', 'init', '--data-dir', join(scratch, 'other'), '--region', 'eu']);
    expect(region.code).toBe(2);
  });
});

describe('completion', () => {
  it('completes the generated admin verbs and their flags', async () => {
    const script = await runMemory(['completion', 'bash']);
    expect(script.code).toBe(0);
    expect(script.stdout).toContain('admin backend set');
    expect(script.stdout).toContain('--secret-ref');
    expect(script.stdout).toContain('rotate-secret');
  });
});
