import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type {
  Access,
  ActionItem,
  Attribution,
  Decision,
  Deployment,
  Meeting,
  OpenQuestion,
} from '../../contract/index.js';
import type {
  ActionItemChange,
  AuditEntry,
  AuditKind,
  AuditPage,
  AuditQuery,
  AuditRetention,
  AuditVerification,
  ListKind,
  ListQuery,
  MeetingDocument,
  NewActionItem,
  NewDeployment,
  Principal,
  RecordOf,
  Scope,
  SearchOutcome,
  SearchQuery,
  Store,
  Tenant,
  WorkflowChange,
  WriteAudit,
} from './store.js';
import type { AgentBackend, Grant, MeetingStaging, PersonName } from './store.js';
import {
  integer,
  maybeText,
  nowTimestamp,
  openDatabase,
  Sql,
  text,
  type Row,
} from './sqlite-db.js';
import {
  beginStaging,
  lookupPersonName,
  readAgentBackend,
  readPersonNames,
  upsertAgentBackend,
  upsertPersonNames,
} from './sqlite-admin.js';
import { appendAuditEntry, durablyFor, insertAuditEntry, pruneAuditEntries, queryAuditEntries, verifyAuditLog } from './sqlite-audit.js';
import { keywordSearch, rebuildUnkeyedDocs } from './sqlite-fts.js';
import { SqliteSearchIndex } from './sqlite-vector.js';
import { actionItemUpdate, newAssigneeId, UPDATE_ACTION_ITEM_SQL, updateWorkflowSql, workflowUpdate } from './record-changes.js';
import { importMeetingDocument, insertActionItem, personAttribution } from './sqlite-import.js';
import { buildListSql, KINDS, loadMeeting, loadRecord, toRecord } from './sqlite-records.js';

type WorkflowKind = 'decision' | 'open_question';

export function toTenant(row: Row): Tenant {
  return {
    id: text(row, 'id'),
    name: text(row, 'name'),
    region: text(row, 'region') as Tenant['region'],
    createdAt: text(row, 'created_at'),
  };
}

export function toDeployment(row: Row): Omit<Deployment, 'access'> {
  return {
    id: text(row, 'id'),
    type: 'deployment',
    name: text(row, 'name'),
    platform: text(row, 'platform') as Deployment['platform'],
    voice: text(row, 'voice'),
    avatar_url: maybeText(row, 'avatar_url'),
    created_at: text(row, 'created_at'),
  };
}

export function toPrincipal(row: Row): Principal {
  return {
    tenantId: text(row, 'tenant_id'),
    oid: text(row, 'oid'),
    clientId: text(row, 'client_id'),
    displayName: text(row, 'display_name'),
    secretHash: text(row, 'secret_hash'),
    isAdmin: integer(row, 'is_admin') === 1,
    createdAt: text(row, 'created_at'),
  };
}

/**
 * The Store on one SQLite file. better-sqlite3 is synchronous: each method runs to completion on the event loop,
 * and multi-statement writes run in one IMMEDIATE transaction.
 */
export class SqliteStore implements Store {
  readonly engine = 'sqlite' as const;
  readonly searchIndex: SqliteSearchIndex;
  private readonly sql: Sql;

  constructor(db: Database) {
    this.sql = new Sql(db);
    rebuildUnkeyedDocs(this.sql);
    this.searchIndex = new SqliteSearchIndex(this.sql);
  }

  async close(): Promise<void> {
    this.sql.db.close();
  }

  async getSetting(key: string): Promise<string | null> {
    const row = this.sql.row('SELECT value FROM settings WHERE key = ?', key);
    return row ? text(row, 'value') : null;
  }

  async initSetting(key: string, value: string): Promise<string> {
    this.sql.run('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING', key, value);
    const stored = await this.getSetting(key);
    if (stored === null) throw new Error(`Setting ${key} was not stored`);
    return stored;
  }

  async setSetting(key: string, value: string | null): Promise<void> {
    if (value === null) this.sql.run('DELETE FROM settings WHERE key = ?', key);
    else {
      this.sql.run(
        'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        key,
        value,
      );
    }
  }

  async createTenant(tenant: { id?: string; name: string; region: 'us' | 'ca' }): Promise<Tenant> {
    const id = tenant.id ?? randomUUID();
    this.sql.run(
      'INSERT INTO tenants (id, name, region, created_at) VALUES (?, ?, ?, ?)',
      id,
      tenant.name,
      tenant.region,
      nowTimestamp(),
    );
    return toTenant(this.sql.row('SELECT * FROM tenants WHERE id = ?', id) ?? {});
  }

  async getTenant(id: string): Promise<Tenant | null> {
    const row = this.sql.row('SELECT * FROM tenants WHERE id = ?', id);
    return row ? toTenant(row) : null;
  }

  async createDeployment(
    tenantId: string,
    deployment: NewDeployment & { id?: string },
  ): Promise<Omit<Deployment, 'access'>> {
    const id = deployment.id ?? randomUUID();
    this.sql.run(
      `INSERT INTO deployments (tenant_id, id, name, platform, voice, avatar_url, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      tenantId,
      id,
      deployment.name,
      deployment.platform,
      deployment.voice,
      deployment.avatarUrl ?? null,
      nowTimestamp(),
    );
    return toDeployment(this.sql.row('SELECT * FROM deployments WHERE tenant_id = ? AND id = ?', tenantId, id) ?? {});
  }

  async createPrincipal(principal: Omit<Principal, 'createdAt'>): Promise<Principal> {
    this.sql.run(
      `INSERT INTO principals (tenant_id, oid, client_id, display_name, secret_hash, is_admin, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      principal.tenantId,
      principal.oid,
      principal.clientId,
      principal.displayName,
      principal.secretHash,
      principal.isAdmin ? 1 : 0,
      nowTimestamp(),
    );
    const row = this.sql.row(
      'SELECT * FROM principals WHERE tenant_id = ? AND oid = ?',
      principal.tenantId,
      principal.oid,
    );
    return toPrincipal(row ?? {});
  }

  async getPrincipalByClientId(tenantId: string, clientId: string): Promise<Principal | null> {
    const row = this.sql.row('SELECT * FROM principals WHERE tenant_id = ? AND client_id = ?', tenantId, clientId);
    return row ? toPrincipal(row) : null;
  }

  async setPrincipalSecretHash(tenantId: string, oid: string, secretHash: string): Promise<void> {
    const changed = this.sql.run(
      'UPDATE principals SET secret_hash = ? WHERE tenant_id = ? AND oid = ?',
      secretHash,
      tenantId,
      oid,
    );
    if (changed === 0) throw new Error(`No principal ${oid} in tenant ${tenantId}`);
  }

  async setGrant(tenantId: string, oid: string, deploymentId: string, access: Access): Promise<void> {
    this.sql.run(
      `INSERT INTO grants (tenant_id, oid, deployment_id, access) VALUES (?, ?, ?, ?)
       ON CONFLICT (tenant_id, oid, deployment_id) DO UPDATE SET access = excluded.access`,
      tenantId,
      oid,
      deploymentId,
      access,
    );
  }

  async getAccess(tenantId: string, oid: string, deploymentId: string): Promise<Access | null> {
    const row = this.sql.row(
      `SELECT g.access FROM grants g
       JOIN deployments d ON d.tenant_id = g.tenant_id AND d.id = g.deployment_id
       WHERE g.tenant_id = ? AND g.oid = ? AND g.deployment_id = ?`,
      tenantId,
      oid,
      deploymentId,
    );
    return row ? (text(row, 'access') as Access) : null;
  }

  async listDeploymentsFor(tenantId: string, oid: string): Promise<Deployment[]> {
    return this.sql
      .rows(
        `SELECT d.*, g.access FROM grants g
         JOIN deployments d ON d.tenant_id = g.tenant_id AND d.id = g.deployment_id
         WHERE g.tenant_id = ? AND g.oid = ?
         ORDER BY d.name, d.id`,
        tenantId,
        oid,
      )
      .map((row) => ({ ...toDeployment(row), access: text(row, 'access') as Access }));
  }

  async importMeeting(scope: Scope, doc: MeetingDocument): Promise<{ meetingId: string; created: boolean }> {
    return importMeetingDocument(this.sql, scope, doc);
  }

  async list<K extends ListKind>(kind: K, scope: Scope, query: ListQuery): Promise<RecordOf<K>[]> {
    const { sql, params } = buildListSql(kind, scope, query);
    return this.sql.rows(sql, ...params).map((row) => toRecord(this.sql, kind, row));
  }

  get(kind: 'decision', scope: Scope, id: string): Promise<Decision | null>;
  get(kind: 'open_question', scope: Scope, id: string): Promise<OpenQuestion | null>;
  get(kind: 'action_item', scope: Scope, id: string): Promise<ActionItem | null>;
  async get(
    kind: 'decision' | 'open_question' | 'action_item',
    scope: Scope,
    id: string,
  ): Promise<Decision | OpenQuestion | ActionItem | null> {
    return loadRecord(this.sql, kind, scope, id);
  }

  async getMeeting(scope: Scope, id: string): Promise<Meeting | null> {
    return loadMeeting(this.sql, scope, id);
  }

  async meetingExists(scope: Scope, id: string): Promise<boolean> {
    const row = this.sql.row(
      'SELECT 1 AS found FROM meetings WHERE tenant_id = ? AND deployment_id = ? AND id = ?',
      scope.tenantId,
      scope.deploymentId,
      id,
    );
    return row !== undefined;
  }

  /** The keyword leg alone, every hit loaded: what an engine without hybrid search answers. */
  async search(scope: Scope, query: SearchQuery): Promise<SearchOutcome> {
    const { docs, capped } = keywordSearch(this.sql, scope, {
      text: query.text,
      types: query.types,
      since: query.since,
      until: query.until,
      cap: query.candidateCap,
      snapshot: { docs: Number.MAX_SAFE_INTEGER, vectors: Number.MAX_SAFE_INTEGER },
    });
    const found = docs.flatMap((doc) => {
      const record = loadRecord(this.sql, doc.kind, scope, doc.recordId);
      return record ? [{ record, rank: doc.score }] : [];
    });
    return { hits: found, capped };
  }

  async createActionItem(scope: Scope, item: NewActionItem, actor: Attribution, audit?: WriteAudit): Promise<ActionItem> {
    const id = randomUUID();
    const { assigneeIdpId } = item;
    return this.auditedWrite(audit?.(id), () => {
      insertActionItem(this.sql, scope, {
        id,
        meetingId: item.meetingId ?? null,
        text: item.text,
        status: 'open',
        dueDate: item.dueDate ?? null,
        assignee: assigneeIdpId === undefined ? null : personAttribution(this.sql, scope.tenantId, assigneeIdpId),
        attribution: actor,
        createdAt: nowTimestamp(),
      });
      return this.mustLoad('action_item', scope, id);
    });
  }

  /** One transaction holding `write` and, unless it found no record (null), the call's audit entry. */
  private auditedWrite<T>(entry: AuditEntry | undefined, write: () => T): T {
    return durablyFor(this.sql, entry?.kind, () =>
      this.sql.transaction(() => {
        const result = write();
        if (entry && result !== null) insertAuditEntry(this.sql, entry);
        return result;
      }),
    );
  }

  async updateActionItem(
    scope: Scope,
    id: string,
    change: ActionItemChange,
    actor: Attribution,
    audit?: WriteAudit,
  ): Promise<ActionItem | null> {
    return this.auditedWrite(audit?.(id), () => {
      const current = loadRecord(this.sql, 'action_item', scope, id);
      if (!current) return null;
      const assigneeId = newAssigneeId(current, change);
      const assignee = assigneeId === null ? current.assignee : personAttribution(this.sql, scope.tenantId, assigneeId);
      const params = actionItemUpdate(scope, current, change, assignee, actor);
      if (!params) return current;
      this.sql.run(UPDATE_ACTION_ITEM_SQL, ...params);
      return this.mustLoad('action_item', scope, id);
    });
  }

  async updateOpenQuestion(
    scope: Scope,
    id: string,
    change: WorkflowChange<'open' | 'resolved'>,
    actor: Attribution,
    audit?: WriteAudit,
  ): Promise<OpenQuestion | null> {
    return this.updateWorkflow('open_question', scope, id, change, actor, audit);
  }

  async updateDecision(
    scope: Scope,
    id: string,
    change: WorkflowChange<'confirmed' | 'superseded'>,
    actor: Attribution,
    audit?: WriteAudit,
  ): Promise<Decision | null> {
    return this.updateWorkflow('decision', scope, id, change, actor, audit);
  }

  /** Status and note of a decision or open question; the change stamp moves only when one of them really changes. */
  private updateWorkflow<K extends WorkflowKind>(
    kind: K,
    scope: Scope,
    id: string,
    change: WorkflowChange<string>,
    actor: Attribution,
    audit: WriteAudit | undefined,
  ): RecordOf<K> | null {
    return this.auditedWrite(audit?.(id), () => {
      const current = loadRecord(this.sql, kind, scope, id);
      if (!current) return null;
      const params = workflowUpdate(scope, current, change, actor);
      if (!params) return current;
      this.sql.run(updateWorkflowSql(KINDS[kind].table), ...params);
      return this.mustLoad(kind, scope, id);
    });
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    appendAuditEntry(this.sql, entry);
  }

  async queryAudit(tenantId: string | null, query: AuditQuery): Promise<AuditPage> {
    return queryAuditEntries(this.sql, tenantId, query);
  }

  async verifyAudit(): Promise<AuditVerification> {
    return verifyAuditLog(this.sql.db);
  }

  async pruneAudit(now: Date, retention: AuditRetention): Promise<Record<AuditKind, number>> {
    return pruneAuditEntries(this.sql, now, retention);
  }

  async updateTenant(id: string, change: { name?: string; region?: 'us' | 'ca' }): Promise<Tenant | null> {
    this.sql.run(
      'UPDATE tenants SET name = coalesce(?, name), region = coalesce(?, region) WHERE id = ?',
      change.name ?? null,
      change.region ?? null,
      id,
    );
    return this.getTenant(id);
  }

  async listTenantDeployments(tenantId: string): Promise<Omit<Deployment, 'access'>[]> {
    return this.sql.rows('SELECT * FROM deployments WHERE tenant_id = ? ORDER BY name, id', tenantId).map(toDeployment);
  }

  async getDeployment(tenantId: string, id: string): Promise<Omit<Deployment, 'access'> | null> {
    const row = this.sql.row('SELECT * FROM deployments WHERE tenant_id = ? AND id = ?', tenantId, id);
    return row ? toDeployment(row) : null;
  }

  async listPrincipals(tenantId: string): Promise<Principal[]> {
    return this.sql
      .rows('SELECT * FROM principals WHERE tenant_id = ? ORDER BY display_name, client_id', tenantId)
      .map(toPrincipal);
  }

  async listGrants(tenantId: string, filter: { oid?: string; deploymentId?: string }): Promise<Grant[]> {
    return this.sql
      .rows(
        `SELECT g.oid, p.client_id, g.deployment_id, g.access FROM grants g
         JOIN principals p ON p.tenant_id = g.tenant_id AND p.oid = g.oid
         WHERE g.tenant_id = ? AND (? IS NULL OR g.oid = ?) AND (? IS NULL OR g.deployment_id = ?)
         ORDER BY p.client_id, g.deployment_id`,
        tenantId,
        filter.oid ?? null,
        filter.oid ?? null,
        filter.deploymentId ?? null,
        filter.deploymentId ?? null,
      )
      .map((row) => ({
        oid: text(row, 'oid'),
        clientId: text(row, 'client_id'),
        deploymentId: text(row, 'deployment_id'),
        access: text(row, 'access') as Access,
      }));
  }

  async revokeGrant(tenantId: string, oid: string, deploymentId: string): Promise<boolean> {
    const removed = this.sql.run(
      'DELETE FROM grants WHERE tenant_id = ? AND oid = ? AND deployment_id = ?',
      tenantId,
      oid,
      deploymentId,
    );
    return removed > 0;
  }

  async setAgentBackend(scope: Scope, backend: Omit<AgentBackend, 'updatedAt'>): Promise<AgentBackend> {
    return upsertAgentBackend(this.sql, scope, backend);
  }

  async getAgentBackend(scope: Scope): Promise<AgentBackend | null> {
    return readAgentBackend(this.sql, scope);
  }

  async setPersonNames(tenantId: string, people: PersonName[]): Promise<void> {
    upsertPersonNames(this.sql, tenantId, people);
  }

  async listPersonNames(tenantId: string): Promise<PersonName[]> {
    return readPersonNames(this.sql, tenantId);
  }

  async findPersonName(tenantId: string, displayName: string): Promise<string | null> {
    return lookupPersonName(this.sql, tenantId, displayName);
  }

  async stageMeeting(scope: Scope): Promise<MeetingStaging> {
    return beginStaging(this.sql, scope);
  }

  /** A record the current transaction just wrote; its absence would be a bug, not a caller error. */
  private mustLoad<K extends ListKind>(kind: K, scope: Scope, id: string): RecordOf<K> {
    const record = loadRecord(this.sql, kind, scope, id);
    if (!record) throw new Error(`${kind} ${id} vanished inside its own transaction`);
    return record;
  }
}

/**
 * Opens (creating and migrating when needed) the SQLite store at `file`: WAL, synchronous=NORMAL, foreign keys on.
 * Reopening an up-to-date file changes nothing.
 */
export async function openSqliteStore(file: string): Promise<Store> {
  return new SqliteStore(openDatabase(file));
}
