import BetterSqlite3 from 'better-sqlite3';
import type { Scope } from '../src/core/store/store.js';

export interface BareSearch {
  /** The top `limit` records for the text, best first, straight from SQLite. */
  run(text: string, limit: number): unknown[];
  close(): void;
}

/** How many of the newest matches each tier ranks, as the keyword engine does, so both return the same page. */
const WINDOW = 1000;

const TABLES: Record<string, string> = {
  decision: 'decisions',
  open_question: 'open_questions',
  action_item: 'action_items',
  statement: 'statements',
  topic: 'topics',
};

/** The words of the query as quoted FTS5 terms: every term (the best matches), and any term when there are several. */
function tiers(text: string): string[] {
  const terms = [...new Set([...text.matchAll(/[\p{L}\p{N}]+/gu)].map(([word]) => `"${word}"`))];
  if (terms.length === 0) return [];
  return terms.length === 1 ? [terms[0]!] : [terms.join(' AND '), terms.join(' OR ')];
}

function tierSql(table: string): string {
  return `SELECT * FROM (SELECT rowid AS key, bm25(${table}, 1.0, 0.5) AS score FROM ${table}
    WHERE ${table} MATCH ? ORDER BY rowid DESC LIMIT ${WINDOW})`;
}

/**
 * The floor for a keyword search: the SQL a person would write by hand for the page the API answers, on the
 * deployment's own full-text table (the newest matches of every term and of any term, ranked by BM25, LIMIT), then
 * the page's records by key. Read-only on the core's own database file while the core runs (WAL lets both read).
 * Throws when the database has no per-deployment full-text index, so that a changed engine shows up as "not
 * measured" with this reason rather than as a wrong ratio.
 */
export function openBareSearch(file: string, scope: Scope): BareSearch {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    const scopeRow = db
      .prepare('SELECT id FROM search_scopes WHERE tenant_id = ? AND deployment_id = ?')
      .get(scope.tenantId, scope.deploymentId) as { id: number } | undefined;
    if (!scopeRow) throw new Error('the deployment has no full-text table (search_scopes)');
    const table = `search_fts_${scopeRow.id}`;
    // CROSS JOIN keeps the ranked page as the outer loop: a plain JOIN let SQLite walk every document of the
    // deployment and probe the page, 30 times slower at a million statements.
    const ranked = [1, 2].map((count) =>
      db.prepare(
        `SELECT d.kind AS kind, d.record_id AS record_id FROM (
          SELECT key, min(score) AS score FROM (${Array.from({ length: count }, () => tierSql(table)).join(' UNION ALL ')})
          GROUP BY key ORDER BY score, key DESC LIMIT ?
        ) AS hit CROSS JOIN search_docs d ON d.tenant_id = ? AND d.deployment_id = ? AND d.fts_key = hit.key
        ORDER BY hit.score, hit.key DESC`,
      ),
    );
    const byId = new Map(
      Object.entries(TABLES).map(([kind, name]) => [
        kind,
        db.prepare(`SELECT * FROM ${name} WHERE tenant_id = ? AND deployment_id = ? AND id = ?`),
      ]),
    );
    return {
      run(text, limit) {
        const matches = tiers(text);
        if (matches.length === 0) return [];
        const statement = ranked[matches.length - 1]!;
        const hits = statement.all(...matches, limit, scope.tenantId, scope.deploymentId) as { kind: string; record_id: string }[];
        return hits.map((hit) => byId.get(hit.kind)?.get(scope.tenantId, scope.deploymentId, hit.record_id));
      },
      close() {
        db.close();
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
