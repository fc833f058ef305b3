import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  chainHash,
  DEFAULT_RETENTION,
  GENESIS_HASH,
  getAuditRetention,
  queryAuditLog,
  setAuditRetention,
  verifyAuditInDataDir,
} from '../../../src/core/audit/index.js';
import { CursorCodec } from '../../../src/core/server/cursor.js';
import { HttpProblem } from '../../../src/core/server/problem.js';
import { openSqliteStore, type Store } from '../../../src/core/store/index.js';
import type { AuditEntry, AuditKind } from '../../../src/core/store/store.js';

const TENANT = randomUUID();
const OTHER_TENANT = randomUUID();
const NOW = new Date('2030-06-01T12:00:00Z');
const DAY = 24 * 60 * 60 * 1000;

let dir: string;
let file: string;
let store: Store;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mm-audit-'));
  file = join(dir, 'memory.db');
  store = await openSqliteStore(file);
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function daysBefore(days: number): string {
  return new Date(NOW.getTime() - days * DAY).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function entry(kind: AuditKind, ageDays: number, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id: randomUUID(),
    at: daysBefore(ageDays),
    surface: 'rest',
    tenantId: TENANT,
    principalOid: randomUUID(),
    remoteAddress: null,
    operation: kind === 'read' ? 'listDecisions' : 'createActionItem',
    kind,
    deploymentId: randomUUID(),
    recordIds: kind === 'read' ? [] : [randomUUID()],
    status: 200,
    durationMs: 3,
    ...overrides,
  };
}

async function append(...entries: AuditEntry[]): Promise<AuditEntry[]> {
  for (const item of entries) await store.appendAudit(item);
  return entries;
}

/** A second connection on the same file, as an intruder (or an operator with sqlite3) would have. */
function rawConnection(): BetterSqlite3.Database {
  return new BetterSqlite3(file);
}

describe('audit store: append-only in the database', () => {
  it('refuses UPDATE and DELETE of entries and anchors from any connection', async () => {
    const [first] = await append(entry('read', 1), entry('action', 1));
    const raw = rawConnection();
    try {
      expect(() => raw.prepare('UPDATE audit_log SET status = 500 WHERE id = ?').run(first!.id)).toThrow(/append-only/);
      expect(() => raw.prepare('DELETE FROM audit_log WHERE id = ?').run(first!.id)).toThrow(/retention job/);
      expect(() => raw.exec('DELETE FROM audit_log')).toThrow(/retention job/);
      expect(() => raw.exec(`UPDATE audit_chains SET anchor_hash = '${'1'.repeat(64)}'`)).toThrow(/retention job/);
      expect(() => raw.exec('DELETE FROM audit_chains')).toThrow(/permanent/);
      expect(() => raw.exec('DELETE FROM audit_gate')).toThrow(/permanent/);
    } finally {
      raw.close();
    }
    expect((await store.queryAudit(TENANT, { limit: 10 })).entries).toHaveLength(2);
    expect((await store.verifyAudit()).ok).toBe(true);
  });
});

describe('audit store: hash chain', () => {
  it('verifies an untouched log, reporting how many entries it checked and each chain head', async () => {
    expect(await store.verifyAudit()).toEqual({ ok: true, checked: 0, heads: { read: GENESIS_HASH, action: GENESIS_HASH } });
    await append(entry('read', 3), entry('action', 2), entry('read', 1));
    const verification = await store.verifyAudit();
    expect(verification).toMatchObject({ ok: true, checked: 3 });
    expect(verification.heads.read).toMatch(/^[0-9a-f]{64}$/);
    expect(verification.heads.read).not.toBe(GENESIS_HASH);
  });

  it('names the edited entry when a row is changed behind the triggers', async () => {
    const entries = await append(entry('read', 3), entry('action', 2), entry('read', 2), entry('read', 1));
    const raw = rawConnection();
    raw.exec('DROP TRIGGER audit_log_no_update');
    raw.prepare('UPDATE audit_log SET status = 200, principal_oid = ? WHERE id = ?').run(randomUUID(), entries[2]!.id);
    raw.close();
    // Each chain is walked up to its first bad entry: two reads, one action.
    expect(await store.verifyAudit()).toMatchObject({ ok: false, checked: 3, firstBadId: entries[2]!.id, reason: 'content changed' });
    expect(verifyAuditInDataDir(dir)).toMatchObject({ ok: false, first_bad_request_id: entries[2]!.id, reason: 'content changed' });
  });

  it('shows an edit whose row hash was recomputed as a broken link at the next entry', async () => {
    const entries = await append(entry('action', 3), entry('action', 2), entry('action', 1));
    const raw = rawConnection();
    raw.exec('DROP TRIGGER audit_log_no_update');
    const { prev_hash: prev } = raw.prepare('SELECT prev_hash FROM audit_log WHERE id = ?').get(entries[1]!.id) as { prev_hash: string };
    const forged = chainHash(prev, { ...entries[1]!, status: 500 });
    raw.prepare('UPDATE audit_log SET status = 500, hash = ? WHERE id = ?').run(forged, entries[1]!.id);
    raw.close();
    expect(await store.verifyAudit()).toMatchObject({ ok: false, firstBadId: entries[2]!.id, reason: 'link broken' });
  });

  it('shows an entry removed from the middle or the front outside the retention job', async () => {
    const entries = await append(entry('read', 4), entry('read', 3), entry('read', 2), entry('read', 1));
    const raw = rawConnection();
    raw.exec('DROP TRIGGER audit_log_no_delete');
    raw.prepare('DELETE FROM audit_log WHERE id = ?').run(entries[1]!.id);
    expect(await store.verifyAudit()).toMatchObject({ ok: false, firstBadId: entries[2]!.id, reason: 'link broken' });
    raw.prepare('DELETE FROM audit_log WHERE id IN (?, ?)').run(entries[0]!.id, entries[2]!.id);
    raw.close();
    // Only the newest is left; it no longer links to the chain's recorded anchor.
    expect(await store.verifyAudit()).toMatchObject({ ok: false, firstBadId: entries[3]!.id, reason: 'link broken' });
  });

  it('verifies a data dir read-only beside a running store, and refuses a dir without a database', async () => {
    await append(entry('read', 1));
    expect(verifyAuditInDataDir(dir)).toMatchObject({ ok: true, checked: 1 });
    await append(entry('action', 1));
    expect(verifyAuditInDataDir(dir)).toMatchObject({ ok: true, checked: 2 });
    const empty = mkdtempSync(join(tmpdir(), 'mm-audit-empty-'));
    try {
      expect(() => verifyAuditInDataDir(empty)).toThrow();
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('audit store: retention', () => {
  const retention = { readsDays: 90, actionsDays: 2557 };

  it('prunes each kind after its own period and the remaining chains still verify', async () => {
    const [oldRead, , oldAction, newAction, newRead] = await append(
      entry('read', 120),
      entry('read', 91),
      entry('action', 2600),
      entry('action', 100),
      entry('read', 10),
    );
    expect(await store.pruneAudit(NOW, retention)).toEqual({ read: 2, action: 1 });
    const left = (await store.queryAudit(TENANT, { limit: 10 })).entries.map((item) => item.id);
    expect(left).toEqual([newRead!.id, newAction!.id]);
    expect(left).not.toContain(oldRead!.id);
    expect(left).not.toContain(oldAction!.id);
    expect(await store.verifyAudit()).toMatchObject({ ok: true, checked: 2 });

    await append(entry('read', 0), entry('action', 0));
    expect(await store.verifyAudit()).toMatchObject({ ok: true, checked: 4 });
    expect(await store.pruneAudit(NOW, retention)).toEqual({ read: 0, action: 0 });
  });

  it('continues a chain from its anchor when every entry of it was pruned', async () => {
    await append(entry('read', 200), entry('read', 100));
    const head = (await store.verifyAudit()).heads.read;
    expect(await store.pruneAudit(NOW, retention)).toEqual({ read: 2, action: 0 });
    expect(await store.verifyAudit()).toEqual({ ok: true, checked: 0, heads: { read: head, action: GENESIS_HASH } });
    await append(entry('read', 1));
    expect(await store.verifyAudit()).toMatchObject({ ok: true, checked: 1 });
  });

  it('keeps an entry appended after a newer one (a long call) rather than remove anything still inside retention', async () => {
    const [, kept, straggler] = await append(entry('read', 100), entry('read', 89), entry('read', 95));
    expect(await store.pruneAudit(NOW, retention)).toEqual({ read: 1, action: 0 });
    const left = (await store.queryAudit(TENANT, { limit: 10 })).entries.map((item) => item.id);
    expect(left).toEqual([straggler!.id, kept!.id]);
    expect((await store.verifyAudit()).ok).toBe(true);
  });

  it('closes the gate again: after a prune, deletes are refused as before', async () => {
    await append(entry('read', 200), entry('read', 1));
    expect(await store.pruneAudit(NOW, retention)).toEqual({ read: 1, action: 0 });
    const raw = rawConnection();
    try {
      expect(raw.prepare('SELECT open FROM audit_gate').get()).toEqual({ open: 0 });
      expect(() => raw.exec('DELETE FROM audit_log')).toThrow(/retention job/);
    } finally {
      raw.close();
    }
  });

  it('keeps retention as a setting with the contract defaults, refuses bad values and applies a change at once', async () => {
    expect(await getAuditRetention(store)).toEqual(DEFAULT_RETENTION);
    expect(DEFAULT_RETENTION).toEqual({ readsDays: 90, actionsDays: 2557 });
    await append(entry('read', 40), entry('read', 20), entry('action', 400));
    expect(await setAuditRetention(store, { reads_days: 30 }, NOW)).toEqual({ readsDays: 30, actionsDays: 2557 });
    expect((await store.queryAudit(TENANT, { limit: 10 })).entries).toHaveLength(2);
    expect(await setAuditRetention(store, { actions_days: 365 }, NOW)).toEqual({ readsDays: 30, actionsDays: 365 });
    expect((await store.queryAudit(TENANT, { limit: 10 })).entries).toHaveLength(1);
    expect(await getAuditRetention(store)).toEqual({ readsDays: 30, actionsDays: 365 });
    for (const bad of [{}, { reads_days: 0 }, { actions_days: 1.5 }, { reads_days: 10, months: 2 }, { reads_days: '30' }]) {
      await expect(setAuditRetention(store, bad, NOW)).rejects.toMatchObject({ status: 400 });
    }
    expect((await store.verifyAudit()).ok).toBe(true);
  });
});

describe('audit store: queries', () => {
  it('scopes entries to their tenant; calls without a principal are their own scope', async () => {
    const [mine, foreign, anonymous] = await append(
      entry('read', 1),
      entry('read', 1, { tenantId: OTHER_TENANT }),
      entry('read', 1, { tenantId: null, principalOid: null, remoteAddress: '192.0.2.7', status: 401 }),
    );
    expect((await store.queryAudit(TENANT, { limit: 10 })).entries).toEqual([mine]);
    expect((await store.queryAudit(OTHER_TENANT, { limit: 10 })).entries).toEqual([foreign]);
    expect((await store.queryAudit(null, { limit: 10 })).entries).toEqual([anonymous]);
  });

  it('filters by day, principal, deployment, operation, kind, surface, status and request id', async () => {
    const oid = randomUUID();
    const [early, late, action, mcp] = await append(
      entry('read', 5, { principalOid: oid }),
      entry('read', 1, { status: 403 }),
      entry('action', 3, { principalOid: oid }),
      entry('read', 2, { surface: 'mcp', operation: 'tools/list' }),
    );
    const ids = async (query: Parameters<Store['queryAudit']>[1]) =>
      (await store.queryAudit(TENANT, query)).entries.map((item) => item.id);
    expect(await ids({ limit: 10, since: daysBefore(3).slice(0, 10), until: daysBefore(2).slice(0, 10) })).toEqual([mcp!.id, action!.id]);
    expect(await ids({ limit: 10, principalOid: oid })).toEqual([action!.id, early!.id]);
    expect(await ids({ limit: 10, deploymentId: late!.deploymentId! })).toEqual([late!.id]);
    expect(await ids({ limit: 10, operation: 'tools/list' })).toEqual([mcp!.id]);
    expect(await ids({ limit: 10, kind: 'action' })).toEqual([action!.id]);
    expect(await ids({ limit: 10, surface: 'mcp' })).toEqual([mcp!.id]);
    expect(await ids({ limit: 10, status: 403 })).toEqual([late!.id]);
    expect(await ids({ limit: 10, requestId: early!.id })).toEqual([early!.id]);
  });

  it('pages newest first with bound cursors through queryAuditLog, refusing tampered or re-filtered cursors', async () => {
    const entries = await append(...Array.from({ length: 5 }, (_, i) => entry('read', 5 - i)));
    const deps = { store, cursors: new CursorCodec(Buffer.from(CursorCodec.newSecret(), 'base64url')) };
    const first = await queryAuditLog(deps, TENANT, { limit: 2, kind: 'read' });
    expect(first.items.map((item) => item.request_id)).toEqual([entries[4]!.id, entries[3]!.id]);
    expect(first.items[0]).toMatchObject({ surface: 'rest', tenant_id: TENANT, kind: 'read', record_ids: [], status: 200 });
    const second = await queryAuditLog(deps, TENANT, { limit: 2, kind: 'read', cursor: first.next_cursor });
    const third = await queryAuditLog(deps, TENANT, { limit: 2, kind: 'read', cursor: second.next_cursor });
    expect(second.items.map((item) => item.request_id)).toEqual([entries[2]!.id, entries[1]!.id]);
    expect(third).toEqual({ items: [expect.objectContaining({ request_id: entries[0]!.id })], next_cursor: null });

    const refusals = [
      queryAuditLog(deps, TENANT, { limit: 2, kind: 'action', cursor: first.next_cursor }),
      queryAuditLog(deps, OTHER_TENANT, { limit: 2, kind: 'read', cursor: first.next_cursor }),
      queryAuditLog(deps, TENANT, { limit: 2, kind: 'read', cursor: `x${first.next_cursor}` }),
      queryAuditLog(deps, TENANT, { limit: 0 }),
      queryAuditLog(deps, TENANT, { since: '2030-05-02', until: '2030-05-01' }),
      queryAuditLog(deps, TENANT, { colour: 'blue' }),
    ];
    for (const refusal of refusals) {
      const error = await refusal.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(HttpProblem);
      expect((error as HttpProblem).status).toBe(400);
    }
  });
});
