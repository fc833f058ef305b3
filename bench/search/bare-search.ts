import BetterSqlite3 from 'better-sqlite3';
import type { SearchableType } from '../../src/contract/index.js';
import { KEYWORD_WINDOW, keyRange, keywordPlan, keywordTierSql } from '../../src/core/store/sqlite-fts.js';
import type { Scope, SearchFilter } from '../../src/core/store/store.js';

const TABLES: Record<SearchableType, string> = {
  decision: 'decisions',
  open_question: 'open_questions',
  action_item: 'action_items',
  statement: 'statements',
  topic: 'topics',
};

export interface BareKeywordSearch {
  /** The page's records for the text, best first: the engine's SQL with nothing around it. */
  run(text: string, filter: SearchFilter, limit: number): unknown[];
  close(): void;
}

/**
 * The floor the API's keyword search is compared with: the same tier SQL the engine runs (the newest matches of
 * every term and of any term, with the filters as rowid conditions inside FTS5), merged by BM25, then only the
 * page's keys mapped to records and the records read by primary key (topics with their meetings, as the record
 * has them). Read-only, beside a running core (WAL).
 */
export function openBareKeywordSearch(file: string, scope: Scope): BareKeywordSearch {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  const scopeRow = db
    .prepare('SELECT id FROM search_scopes WHERE tenant_id = ? AND deployment_id = ?')
    .get(scope.tenantId, scope.deploymentId) as { id: number } | undefined;
  if (!scopeRow) throw new Error('the deployment has no full-text table');
  const docByKey = db.prepare('SELECT kind, record_id FROM search_docs WHERE tenant_id = ? AND deployment_id = ? AND fts_key = ?');
  // A topic's record lists the meetings that touched it, so the floor reads them too.
  const topicMeetings = db.prepare(`SELECT m.id, m.title, m.started_at FROM topic_meetings tm
    JOIN meetings m ON m.tenant_id = tm.tenant_id AND m.deployment_id = tm.deployment_id AND m.id = tm.meeting_id
    WHERE tm.tenant_id = ? AND tm.deployment_id = ? AND tm.topic_id = ? ORDER BY m.started_at DESC, m.id DESC`);
  const recordBy = new Map(
    Object.entries(TABLES).map(([kind, table]) => [kind, db.prepare(`SELECT * FROM ${table} WHERE tenant_id = ? AND deployment_id = ? AND id = ?`)]),
  );
  const tiers = new Map<string, BetterSqlite3.Statement>();
  const tier = (types: readonly SearchableType[]) => {
    const sql = keywordTierSql(scopeRow.id, types);
    let statement = tiers.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      tiers.set(sql, statement);
    }
    return statement;
  };
  return {
    run(text, filter, limit) {
      const plan = keywordPlan(text);
      if (plan === null) return [];
      const [low, high] = keyRange(filter);
      const hits = new Map<number, number>();
      for (const match of plan.any === null ? [plan.all] : [plan.all, plan.any]) {
        for (const row of tier(filter.types).all(match, low, high, KEYWORD_WINDOW) as { key: number; bm25: number }[]) {
          hits.set(row.key, row.bm25);
        }
      }
      const page = [...hits.entries()].sort((a, b) => a[1] - b[1] || b[0] - a[0]).slice(0, limit);
      return page.map(([key]) => {
        const doc = docByKey.get(scope.tenantId, scope.deploymentId, key) as { kind: SearchableType; record_id: string };
        const record = recordBy.get(doc.kind)!.get(scope.tenantId, scope.deploymentId, doc.record_id) as Record<string, unknown>;
        if (doc.kind !== 'topic') return record;
        return { ...record, meetings: topicMeetings.all(scope.tenantId, scope.deploymentId, doc.record_id) };
      });
    },
    close() {
      db.close();
    },
  };
}
