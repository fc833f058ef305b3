import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/core/store/index.js';
import type { AuditEntry } from '../../../src/core/store/store.js';
import { startDemoCore, type TestCore } from '../../helpers/core.js';
import { call, entriesFor, mcp, oidOf, toolCall, type Answer } from './helpers.js';

const READER = 0;
const WRITER = 1;
/** Principal 2 spends its whole (lowered) budget in the 429 test; nobody else comes near it. */
const SPENDER = 2;
const LIMIT = 40;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

let t: TestCore;
let tenant: string;
let dep1: string;
let dep2: string;

beforeAll(async () => {
  t = await startDemoCore({ rateLimit: { perPrincipal: LIMIT } });
  tenant = t.creds.tenant_id;
  dep1 = t.creds.deployments[0]!.id;
  dep2 = t.creds.deployments[1]!.id;
});
afterAll(async () => t?.stop());

/** The one entry of an answered call; there must be exactly one. */
async function entryOf(answer: Answer, tenantId: string | null = tenant): Promise<AuditEntry> {
  const entries = await entriesFor(t.core.store, tenantId, answer.requestId);
  expect(entries).toHaveLength(1);
  return entries[0]!;
}

async function oid(principal: number): Promise<string> {
  return oidOf(await t.token(principal));
}

describe('audit log: one entry per call, written before the response', () => {
  it('records a REST read with principal, operation, deployment, status, time and duration', async () => {
    const answer = await call(t, 'GET', `/deployments/${dep1}/decisions?limit=1`);
    expect(answer.status).toBe(200);
    const entry = await entryOf(answer);
    expect(entry).toEqual({
      id: answer.requestId,
      at: expect.stringMatching(TIMESTAMP),
      surface: 'rest',
      tenantId: tenant,
      principalOid: await oid(READER),
      remoteAddress: null,
      operation: 'listDecisions',
      kind: 'read',
      deploymentId: dep1,
      recordIds: [],
      status: 200,
      durationMs: expect.any(Number),
    });
    expect(Math.abs(Date.parse(entry.at) - Date.now())).toBeLessThan(60_000);
  });

  it('records REST writes as actions with the ids of the records they created or changed', async () => {
    const created = await call(t, 'POST', `/deployments/${dep1}/action-items`, { principal: WRITER, body: { text: 'Audit me' } });
    expect(created.status).toBe(201);
    expect(await entryOf(created)).toMatchObject({
      operation: 'createActionItem',
      kind: 'action',
      principalOid: await oid(WRITER),
      recordIds: [created.body.id],
      status: 201,
    });
    const updated = await call(t, 'PATCH', `/deployments/${dep1}/action-items/${created.body.id}`, {
      principal: WRITER,
      body: { status: 'done' },
    });
    expect(updated.status).toBe(200);
    expect(await entryOf(updated)).toMatchObject({ operation: 'updateActionItem', kind: 'action', recordIds: [created.body.id] });
  });

  it('records a 400 under the request id its problem document names', async () => {
    const answer = await call(t, 'GET', `/deployments/${dep1}/decisions?limit=0&colour=blue`);
    expect(answer.status).toBe(400);
    expect(answer.body.request_id).toBe(answer.requestId);
    expect(await entryOf(answer)).toMatchObject({ operation: 'listDecisions', status: 400, principalOid: await oid(READER) });
  });

  it('records a 401 with the remote address, no tenant and the operation attempted, kept as long as reads', async () => {
    const answer = await call(t, 'POST', `/deployments/${dep1}/action-items`, { principal: null, body: { text: 'x' } });
    expect(answer.status).toBe(401);
    expect(answer.body.request_id).toBe(answer.requestId);
    expect(await entriesFor(t.core.store, tenant, answer.requestId)).toEqual([]);
    expect(await entryOf(answer, null)).toMatchObject({
      tenantId: null,
      principalOid: null,
      remoteAddress: '127.0.0.1',
      operation: 'createActionItem',
      kind: 'read',
      deploymentId: dep1,
      status: 401,
    });
  });

  it('records 403s on reads and on refused actions', async () => {
    const foreign = await call(t, 'GET', `/deployments/${dep2}/decisions`);
    expect(foreign.status).toBe(403);
    expect(await entryOf(foreign)).toMatchObject({ operation: 'listDecisions', kind: 'read', deploymentId: dep2, status: 403 });
    const readOnly = await call(t, 'POST', `/deployments/${dep1}/action-items`, { body: { text: 'Not mine to add' } });
    expect(readOnly.status).toBe(403);
    expect(await entryOf(readOnly)).toMatchObject({ operation: 'createActionItem', kind: 'action', status: 403, recordIds: [] });
  });

  it('records a 404 with the record id asked for, and an unknown route by its path', async () => {
    const missing = await call(t, 'GET', `/deployments/${dep1}/decisions/no-such-decision`);
    expect(missing.status).toBe(404);
    expect(await entryOf(missing)).toMatchObject({ operation: 'getDecision', recordIds: ['no-such-decision'], status: 404 });
    const route = await call(t, 'DELETE', `/deployments/${dep1}?x=1`, { principal: null });
    expect(route.status).toBe(404);
    expect(await entryOf(route, null)).toMatchObject({ operation: `DELETE /v1/deployments/${dep1}`, kind: 'read', status: 404 });
  });

  it('records a 429 under the principal that was refused', async () => {
    for (let i = 0; i < LIMIT; i += 1) expect((await call(t, 'GET', '/deployments', { principal: SPENDER })).status).toBe(200);
    const refused = await call(t, 'GET', '/deployments', { principal: SPENDER });
    expect(refused.status).toBe(429);
    expect(await entryOf(refused)).toMatchObject({
      operation: 'listDeployments',
      principalOid: await oid(SPENDER),
      remoteAddress: null,
      status: 429,
    });
  });

  it('records MCP tool calls with the status of the tool outcome, and protocol messages by their method', async () => {
    const listed = await mcp(t, toolCall('listDecisions', { deployment_id: dep1, limit: 1 }));
    expect(listed.status).toBe(200);
    expect(await entryOf(listed)).toMatchObject({
      surface: 'mcp',
      operation: 'listDecisions',
      kind: 'read',
      deploymentId: dep1,
      principalOid: await oid(READER),
      status: 200,
    });

    const refused = await mcp(t, toolCall('createActionItem', { deployment_id: dep1, text: 'Not allowed' }));
    expect(refused.status).toBe(200);
    expect(refused.body.result.isError).toBe(true);
    expect(await entryOf(refused)).toMatchObject({ surface: 'mcp', operation: 'createActionItem', kind: 'action', status: 403 });

    const created = await mcp(t, toolCall('createActionItem', { deployment_id: dep1, text: 'From MCP' }), WRITER);
    const id = created.body.result.structuredContent.id as string;
    expect(await entryOf(created)).toMatchObject({ surface: 'mcp', kind: 'action', recordIds: [id], status: 201 });

    const tools = await mcp(t, { id: 2, method: 'tools/list' });
    expect(await entryOf(tools)).toMatchObject({ surface: 'mcp', operation: 'tools/list', kind: 'read', status: 200 });

    const anonymous = await mcp(t, { id: 3, method: 'tools/list' }, null);
    expect(anonymous.status).toBe(401);
    expect(await entryOf(anonymous, null)).toMatchObject({ surface: 'mcp', remoteAddress: '127.0.0.1', status: 401 });
  });

  it('does not audit the public documents: health, OpenAPI and problem pages', async () => {
    for (const path of ['/health', '/openapi.json', '/problems/forbidden']) {
      const answer = await call(t, 'GET', path, { principal: null });
      expect(answer.status).toBe(200);
      expect(await entriesFor(t.core.store, null, answer.requestId)).toEqual([]);
    }
  });

  it('keeps the chain verifiable across all of the above', async () => {
    const verification = await t.core.store.verifyAudit();
    expect(verification.ok).toBe(true);
    expect(verification.checked).toBeGreaterThan(LIMIT);
  });

  it('answers 503 rather than acknowledge a change whose entry could not be written, and the change is not applied', async () => {
    const raw = new BetterSqlite3(join(t.dataDir, 'memory.db'));
    raw.exec("CREATE TRIGGER audit_fails BEFORE INSERT ON audit_log BEGIN SELECT RAISE(ABORT, 'disk full'); END");
    try {
      const answer = await call(t, 'POST', `/deployments/${dep1}/action-items`, { principal: WRITER, body: { text: 'Unrecorded' } });
      expect(answer.status).toBe(503);
      expect(answer.headers.get('location')).toBeNull();
      expect(answer.body).toMatchObject({ status: 503, request_id: answer.requestId });
    } finally {
      raw.exec('DROP TRIGGER audit_fails');
      raw.close();
    }
    const items = await call(t, 'GET', `/deployments/${dep1}/action-items?limit=5`);
    // The entry is written in the change's own transaction: without it, the change rolls back too.
    expect(items.body.items.map((item: { text: string }) => item.text)).not.toContain('Unrecorded');
  });
});

describe('audit retention job', () => {
  it('prunes at start: an entry past its retention is gone once the core listens, and the rest verifies', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mm-audit-start-'));
    try {
      const store = await openSqliteStore(join(dataDir, 'memory.db'));
      const old = (days: number): AuditEntry => ({
        id: randomUUID(),
        at: new Date(Date.now() - days * 24 * 60 * 60 * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        surface: 'rest',
        tenantId: null,
        principalOid: null,
        remoteAddress: '192.0.2.1',
        operation: 'listDecisions',
        kind: 'read',
        deploymentId: null,
        recordIds: [],
        status: 401,
        durationMs: 1,
      });
      const [expired, kept] = [old(91), old(89)];
      await store.appendAudit(expired);
      await store.appendAudit(kept);
      await store.close();

      const core = await startDemoCore({ dataDir });
      try {
        const left = (await core.core.store.queryAudit(null, { limit: 10 })).entries.map((entry) => entry.id);
        expect(left).toEqual([kept.id]);
        expect(await core.core.store.verifyAudit()).toMatchObject({ ok: true, checked: 1 });
      } finally {
        await core.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
