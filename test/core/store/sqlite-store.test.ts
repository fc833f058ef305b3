import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type ListQuery, type Scope, type Store } from '../../../src/core/store/index.js';
import { facetToken, keywordPlan, queryTerms } from '../../../src/core/store/sqlite-fts.js';
import { SCHEMA_VERSION } from '../../../src/core/store/sqlite-migrations.js';
import { buildListSql } from '../../../src/core/store/sqlite-records.js';
import { describeStoreContract } from './store-contract.js';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'mm-store-'));
}

describeStoreContract('sqlite', async () => {
  const dir = tempDir();
  const store = await openSqliteStore(join(dir, 'nested', 'memory.db'));
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('SQLite store specifics', () => {
  let dir: string;
  let file: string;
  let store: Store;
  let scope: Scope;

  beforeEach(async () => {
    dir = tempDir();
    file = join(dir, 'memory.db');
    store = await openSqliteStore(file);
    const tenant = await store.createTenant({ name: 'T', region: 'us' });
    const deployment = await store.createDeployment(tenant.id, { name: 'D', platform: 'teams', voice: 'v' });
    scope = { tenantId: tenant.id, deploymentId: deployment.id };
    await store.importMeeting(scope, {
      meeting: {
        externalId: 'm1',
        title: 'Kick-off',
        platform: 'teams',
        startedAt: '2024-03-01T09:00:00.123Z',
        endedAt: '2024-03-01T10:00:00+01:00',
        organizer: { kind: 'anonymous' },
      },
      participants: [],
      statements: [{ attribution: { kind: 'anonymous' }, text: 'We keep the budget', spokenAt: '2024-03-01T09:01:00Z' }],
      decisions: [{ attribution: { kind: 'anonymous' }, text: 'Budget approved', decidedAt: '2024-03-01T09:02:00Z' }],
      openQuestions: [],
      actionItems: [],
      topics: [{ name: 'Budget', kind: 'theme', attribution: { kind: 'anonymous' } }],
    });
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function raw(): BetterSqlite3.Database {
    return new BetterSqlite3(file);
  }

  it('runs in WAL mode', () => {
    const db = raw();
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
  });

  it('migrates once: reopening keeps the schema version, the schema and the data', async () => {
    const schemaOf = (db: BetterSqlite3.Database) => db.prepare('SELECT type, name, sql FROM sqlite_schema ORDER BY name').all();
    let db = raw();
    const before = schemaOf(db);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
    await store.close();
    await (await openSqliteStore(file)).close();
    store = await openSqliteStore(file);
    db = raw();
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(schemaOf(db)).toEqual(before);
    } finally {
      db.close();
    }
    expect(await store.list('statement', scope, { order: 'desc', limit: 10 })).toHaveLength(1);
  });

  it('refuses a database written by a newer schema', async () => {
    const db = raw();
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    await expect(openSqliteStore(file)).rejects.toThrow(/newer than this release/);
  });

  it('stores timestamps in the contract form, whatever offset or fraction ingest sent', async () => {
    const db = raw();
    try {
      expect(db.prepare('SELECT started_at, ended_at FROM meetings').get()).toEqual({
        started_at: '2024-03-01T09:00:00Z',
        ended_at: '2024-03-01T09:00:00Z',
      });
    } finally {
      db.close();
    }
  });

  it('refuses, by trigger, any UPDATE or DELETE of statements and meeting provenance', () => {
    const db = raw();
    try {
      const refused = [
        "UPDATE statements SET text = 'rewritten'",
        'DELETE FROM statements',
        "UPDATE meetings SET title = 'rewritten'",
        "UPDATE meetings SET external_id = 'other'",
        'DELETE FROM meetings',
        "UPDATE decisions SET text = 'rewritten'",
        "UPDATE decisions SET attribution_kind = 'platform_identity'",
        'DELETE FROM decisions',
        "UPDATE topics SET name = 'other'",
        'DELETE FROM topics',
      ];
      for (const statement of refused) expect(() => db.exec(statement), statement).toThrow(/immutable/);
      db.exec("UPDATE decisions SET status = 'superseded', note = 'workflow state may change'");
      expect(db.prepare('SELECT count(*) AS n FROM statements').get()).toEqual({ n: 1 });
    } finally {
      db.close();
    }
  });

  it('enforces tenant and deployment consistency with foreign keys', () => {
    const db = raw();
    db.pragma('foreign_keys = ON');
    try {
      expect(() =>
        db
          .prepare(
            `INSERT INTO decisions (tenant_id, deployment_id, id, meeting_id, text, decided_at, status, attribution_kind, created_at)
             VALUES (?, ?, ?, ?, 'x', '2024-01-01T00:00:00Z', 'confirmed', 'anonymous', '2024-01-01T00:00:00Z')`,
          )
          .run(scope.tenantId, randomUUID(), randomUUID(), randomUUID()),
      ).toThrow(/FOREIGN KEY/);
    } finally {
      db.close();
    }
  });

  describe('list queries are index range scans without a sort', () => {
    const shapes: [string, Parameters<typeof buildListSql>[0], Partial<ListQuery>][] = [
      ['decisions, desc', 'decision', {}],
      [
        'decisions by date window, asc, after',
        'decision',
        { since: '2024-01-01', until: '2024-02-01', order: 'asc', after: { ts: 'x', id: 'y' } },
      ],
      ['open questions of a meeting', 'open_question', { meetingId: 'm', after: { ts: 'x', id: 'y' } }],
      ['statements of a meeting in transcript order', 'statement', { meetingId: 'm', order: 'asc', since: '2024-01-01' }],
      ['statements, desc, after', 'statement', { after: { ts: 'x', id: 'y' }, until: '2024-01-01' }],
      ['action items by status', 'action_item', { status: 'open', after: { ts: 'x', id: 'y' } }],
      ['action items by assignee', 'action_item', { assigneeIdpId: 'p', order: 'asc' }],
      ['topics', 'topic', { after: { ts: 'x', id: 'y' } }],
    ];

    it.each(shapes)('%s', (_name, kind, partial) => {
      const { sql, params } = buildListSql(kind, scope, { order: 'desc', limit: 10, ...partial });
      const db = raw();
      try {
        const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
        const plan = rows.map((r) => r.detail);
        expect(plan.join('\n')).toMatch(/USING (COVERING )?INDEX \w+ \(tenant_id=\? AND deployment_id=\?/);
        expect(plan.join('\n')).not.toMatch(/TEMP B-TREE|SCAN/);
      } finally {
        db.close();
      }
    });
  });

  describe('FTS5 query building', () => {
    it('quotes terms, keeps phrases and prefixes, and drops what has no letters or digits', () => {
      expect(queryTerms('budget "hiring freeze" acme* ( ) AND 🙂')).toEqual([
        '"budget"',
        '"hiring freeze"',
        '"acme"*',
        '"AND"',
      ]);
      expect(queryTerms('NEAR(a b) col:x "unclosed')).toEqual(['"NEAR"', '"a"', '"b"', '"col"', '"x"', '"unclosed"']);
      expect(queryTerms('"" * ** 🙂 ()')).toEqual([]);
      expect(queryTerms('word '.repeat(10) + Array.from({ length: 100 }, (_, i) => `w${i}`).join(' '))).toHaveLength(64);
    });

    it('gives each scope and kind its own facet token (the PostgreSQL engine confines its match with it)', () => {
      const other = { ...scope, deploymentId: randomUUID() };
      expect(facetToken(scope, 'decision')).toMatch(/^\d+$/);
      expect(facetToken(scope, 'decision')).not.toBe(facetToken(other, 'decision'));
      expect(facetToken(scope, 'decision')).not.toBe(facetToken(scope, 'statement'));
    });

    it('ranks on every term first, then on any, leaving stopwords out', () => {
      expect(keywordPlan('what did we decide about the budget')).toEqual({
        all: '"decide" AND "budget"',
        any: '"decide" OR "budget"',
      });
      expect(keywordPlan('budget')).toEqual({ all: '"budget"', any: null });
      expect(keywordPlan('()')).toBeNull();
    });

    it('keeps the search index in step with the records', async () => {
      await store.createActionItem(scope, { text: 'Budget review' }, { kind: 'service_principal', display_name: 'bot' });
      const db = raw();
      try {
        const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
        const records =
          count('SELECT count(*) AS n FROM statements') +
          count('SELECT count(*) AS n FROM decisions') +
          count('SELECT count(*) AS n FROM action_items') +
          count('SELECT count(*) AS n FROM topics');
        expect(count('SELECT count(*) AS n FROM search_docs')).toBe(records);
      } finally {
        db.close();
      }
      const types = ['statement', 'decision', 'action_item', 'topic'] as const;
      const { hits } = await store.search(scope, { text: 'budget', types, candidateCap: 10 });
      expect(hits.map((h) => h.record.type).sort()).toEqual(['action_item', 'decision', 'statement', 'topic']);
    });
  });
});
