import { randomUUID } from 'node:crypto';
import pg from 'pg';
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
  AgentBackend,
  AuditEntry,
  AuditKind,
  AuditPage,
  AuditQuery,
  AuditRetention,
  AuditVerification,
  Grant,
  ListKind,
  ListQuery,
  MeetingDocument,
  MeetingStaging,
  NewActionItem,
  NewDeployment,
  PersonName,
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
import * as admin from './postgres-admin.js';
import { appendAuditEntry, insertAuditEntry, pruneAuditEntries, queryAuditEntries, verifyAuditLog } from './postgres-audit.js';
import { APP_ROLE, Db, numbered, poolConfig, type Tx } from './postgres-db.js';
import { importMeetingDocument, insertActionItems, newRecordId, personAttribution } from './postgres-import.js';
import { migrate, type MigrationOutcome } from './postgres-migrations.js';
import { PostgresSearchIndex } from './postgres-vector.js';
import { listRecords, loadMeeting, loadRecord, recordForUpdateSql, toRecords } from './postgres-records.js';
import { searchRecords } from './postgres-search.js';
import { actionItemUpdate, newAssigneeId, UPDATE_ACTION_ITEM_SQL, updateWorkflowSql, workflowUpdate } from './record-changes.js';
import { nowTimestamp, text, type Row } from './sqlite-db.js';
import { toDeployment, toPrincipal, toTenant } from './sqlite-store.js';
import { KINDS } from './sqlite-records.js';

type WorkflowKind = 'decision' | 'open_question';


/** A row the statement just wrote and returned; its absence would be a bug, not a caller error. */
function returned(row: Row | undefined, what: string): Row {
  if (!row) throw new Error(`${what} was not written`);
  return row;
}

/** What the PostgreSQL server offers beyond the base schema, found when the store opens. */
export interface PostgresCapabilities {
  /** pgvector is installed and the semantic leg's tables with it, so the store has a search index. */
  vector: boolean;
  /** Why there is no semantic leg, when there is none. */
  vectorMissing: string | null;
}

/**
 * The Store on PostgreSQL, shared by any number of core replicas. Every method is one transaction on a pooled
 * connection, opened for the tenant it concerns (see Db): row-level security then confines it to that tenant
 * whatever its SQL says, and the connection is the app role, which owns nothing and cannot bypass the policies.
 */
export class PostgresStore implements Store {
  readonly engine = 'postgres' as const;
  /** Hybrid search's index; absent without pgvector, and the core then searches by keywords alone. */
  readonly searchIndex?: PostgresSearchIndex;
  readonly capabilities: PostgresCapabilities;

  /** `vectorSchema`: where pgvector lives (quoted) when the schema has the semantic leg. */
  constructor(
    readonly db: Db,
    vectorSchema: string | null,
    vectorMissing: string | null = null,
  ) {
    this.capabilities = { vector: vectorSchema !== null, vectorMissing: vectorSchema === null ? vectorMissing : null };
    if (vectorSchema !== null) this.searchIndex = new PostgresSearchIndex(db, vectorSchema);
  }

  async close(): Promise<void> {
    await this.db.pool.end();
  }

  async getSetting(key: string): Promise<string | null> {
    const row = await this.db.read(null, (tx) => tx.row('SELECT value FROM settings WHERE key = $1', [key]));
    return row ? text(row, 'value') : null;
  }

  /** First writer wins across replicas: a racing insert waits on the key, does nothing, and reads the winner's value. */
  async initSetting(key: string, value: string): Promise<string> {
    return this.db.write(null, async (tx) => {
      await tx.run('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, value]);
      return text(returned(await tx.row('SELECT value FROM settings WHERE key = $1', [key]), `Setting ${key}`), 'value');
    });
  }

  async setSetting(key: string, value: string | null): Promise<void> {
    await this.db.write(null, (tx) =>
      value === null
        ? tx.run('DELETE FROM settings WHERE key = $1', [key])
        : tx.run('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
            key,
            value,
          ]),
    );
  }

  async createTenant(tenant: { id?: string; name: string; region: 'us' | 'ca' }): Promise<Tenant> {
    const id = tenant.id ?? randomUUID();
    const row = await this.db.write(id, (tx) =>
      tx.row('INSERT INTO tenants (id, name, region, created_at) VALUES ($1, $2, $3, $4) RETURNING *', [
        id,
        tenant.name,
        tenant.region,
        nowTimestamp(),
      ]),
    );
    return toTenant(returned(row, `Tenant ${id}`));
  }

  async getTenant(id: string): Promise<Tenant | null> {
    const row = await this.db.read(id, (tx) => tx.row('SELECT * FROM tenants WHERE id = $1', [id]));
    return row ? toTenant(row) : null;
  }

  async createDeployment(
    tenantId: string,
    deployment: NewDeployment & { id?: string },
  ): Promise<Omit<Deployment, 'access'>> {
    const id = deployment.id ?? randomUUID();
    const row = await this.db.write(tenantId, (tx) =>
      tx.row(
        `INSERT INTO deployments (tenant_id, id, name, platform, voice, avatar_url, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
        [tenantId, id, deployment.name, deployment.platform, deployment.voice, deployment.avatarUrl ?? null, nowTimestamp()],
      ),
    );
    return toDeployment(returned(row, `Deployment ${id}`));
  }

  async createPrincipal(principal: Omit<Principal, 'createdAt'>): Promise<Principal> {
    const row = await this.db.write(principal.tenantId, (tx) =>
      tx.row(
        `INSERT INTO principals (tenant_id, oid, client_id, display_name, secret_hash, is_admin, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
        [
          principal.tenantId,
          principal.oid,
          principal.clientId,
          principal.displayName,
          principal.secretHash,
          principal.isAdmin ? 1 : 0,
          nowTimestamp(),
        ],
      ),
    );
    return toPrincipal(returned(row, `Principal ${principal.oid}`));
  }

  async getPrincipalByClientId(tenantId: string, clientId: string): Promise<Principal | null> {
    const row = await this.db.read(tenantId, (tx) =>
      tx.row('SELECT * FROM principals WHERE tenant_id = $1 AND client_id = $2', [tenantId, clientId]),
    );
    return row ? toPrincipal(row) : null;
  }

  async setPrincipalSecretHash(tenantId: string, oid: string, secretHash: string): Promise<void> {
    const changed = await this.db.write(tenantId, (tx) =>
      tx.run('UPDATE principals SET secret_hash = $1 WHERE tenant_id = $2 AND oid = $3', [secretHash, tenantId, oid]),
    );
    if (changed === 0) throw new Error(`No principal ${oid} in tenant ${tenantId}`);
  }

  async setGrant(tenantId: string, oid: string, deploymentId: string, access: Access): Promise<void> {
    await this.db.write(tenantId, (tx) =>
      tx.run(
        `INSERT INTO grants (tenant_id, oid, deployment_id, access) VALUES ($1, $2, $3, $4)
         ON CONFLICT (tenant_id, oid, deployment_id) DO UPDATE SET access = excluded.access`,
        [tenantId, oid, deploymentId, access],
      ),
    );
  }

  async getAccess(tenantId: string, oid: string, deploymentId: string): Promise<Access | null> {
    const row = await this.db.read(tenantId, (tx) =>
      tx.row(
        `SELECT g.access FROM grants g
         JOIN deployments d ON d.tenant_id = g.tenant_id AND d.id = g.deployment_id
         WHERE g.tenant_id = $1 AND g.oid = $2 AND g.deployment_id = $3`,
        [tenantId, oid, deploymentId],
      ),
    );
    return row ? (text(row, 'access') as Access) : null;
  }

  async listDeploymentsFor(tenantId: string, oid: string): Promise<Deployment[]> {
    const rows = await this.db.read(tenantId, (tx) =>
      tx.rows(
        `SELECT d.*, g.access FROM grants g
         JOIN deployments d ON d.tenant_id = g.tenant_id AND d.id = g.deployment_id
         WHERE g.tenant_id = $1 AND g.oid = $2
         ORDER BY d.name COLLATE "C", d.id`,
        [tenantId, oid],
      ),
    );
    return rows.map((row) => ({ ...toDeployment(row), access: text(row, 'access') as Access }));
  }

  async importMeeting(scope: Scope, doc: MeetingDocument): Promise<{ meetingId: string; created: boolean }> {
    return this.db.write(scope.tenantId, (tx) => importMeetingDocument(tx, scope, doc));
  }

  async list<K extends ListKind>(kind: K, scope: Scope, query: ListQuery): Promise<RecordOf<K>[]> {
    return this.db.read(scope.tenantId, (tx) => listRecords(tx, kind, scope, query));
  }

  get(kind: 'decision', scope: Scope, id: string): Promise<Decision | null>;
  get(kind: 'open_question', scope: Scope, id: string): Promise<OpenQuestion | null>;
  get(kind: 'action_item', scope: Scope, id: string): Promise<ActionItem | null>;
  async get(
    kind: 'decision' | 'open_question' | 'action_item',
    scope: Scope,
    id: string,
  ): Promise<Decision | OpenQuestion | ActionItem | null> {
    return this.db.read(scope.tenantId, (tx) => loadRecord(tx, kind, scope, id));
  }

  async getMeeting(scope: Scope, id: string): Promise<Meeting | null> {
    return this.db.read(scope.tenantId, (tx) => loadMeeting(tx, scope, id));
  }

  async meetingExists(scope: Scope, id: string): Promise<boolean> {
    const row = await this.db.read(scope.tenantId, (tx) =>
      tx.row('SELECT 1 AS found FROM meetings WHERE tenant_id = $1 AND deployment_id = $2 AND id = $3', [
        scope.tenantId,
        scope.deploymentId,
        id,
      ]),
    );
    return row !== undefined;
  }

  async search(scope: Scope, query: SearchQuery): Promise<SearchOutcome> {
    // One snapshot: the keyword function passes row addresses from its tiers to its ranking.
    return this.db.snapshot(scope.tenantId, (tx) => searchRecords(tx, scope, query));
  }

  async createActionItem(scope: Scope, item: NewActionItem, actor: Attribution, audit?: WriteAudit): Promise<ActionItem> {
    const id = newRecordId();
    const { assigneeIdpId } = item;
    return this.auditedWrite(scope, audit?.(id), async (tx) => {
      const assignee = assigneeIdpId === undefined ? null : await personAttribution(tx, scope.tenantId, assigneeIdpId);
      await insertActionItems(tx, scope, [
        {
          id,
          meetingId: item.meetingId ?? null,
          text: item.text,
          status: 'open',
          dueDate: item.dueDate ?? null,
          assignee,
          attribution: actor,
          createdAt: nowTimestamp(),
        },
      ]);
      return mustLoad(tx, 'action_item', scope, id);
    });
  }

  async updateActionItem(
    scope: Scope,
    id: string,
    change: ActionItemChange,
    actor: Attribution,
    audit?: WriteAudit,
  ): Promise<ActionItem | null> {
    return this.auditedWrite(scope, audit?.(id), async (tx) => {
      const current = await lockRecord(tx, 'action_item', scope, id);
      if (!current) return null;
      const assigneeId = newAssigneeId(current, change);
      const assignee = assigneeId === null ? current.assignee : await personAttribution(tx, scope.tenantId, assigneeId);
      const params = actionItemUpdate(scope, current, change, assignee, actor);
      if (!params) return current;
      await tx.run(numbered(UPDATE_ACTION_ITEM_SQL), params);
      return mustLoad(tx, 'action_item', scope, id);
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

  async appendAudit(entry: AuditEntry): Promise<void> {
    await appendAuditEntry(this.db, entry);
  }

  async queryAudit(tenantId: string | null, query: AuditQuery): Promise<AuditPage> {
    return queryAuditEntries(this.db, tenantId, query);
  }

  async verifyAudit(): Promise<AuditVerification> {
    return verifyAuditLog(this.db);
  }

  async pruneAudit(now: Date, retention: AuditRetention): Promise<Record<AuditKind, number>> {
    return pruneAuditEntries(this.db, now, retention);
  }

  async updateTenant(id: string, change: { name?: string; region?: 'us' | 'ca' }): Promise<Tenant | null> {
    return admin.updateTenant(this.db, id, change);
  }

  async listTenantDeployments(tenantId: string): Promise<Omit<Deployment, 'access'>[]> {
    return admin.listTenantDeployments(this.db, tenantId);
  }

  async getDeployment(tenantId: string, id: string): Promise<Omit<Deployment, 'access'> | null> {
    return admin.getDeployment(this.db, tenantId, id);
  }

  async listPrincipals(tenantId: string): Promise<Principal[]> {
    return admin.listPrincipals(this.db, tenantId);
  }

  async listGrants(tenantId: string, filter: { oid?: string; deploymentId?: string }): Promise<Grant[]> {
    return admin.listGrants(this.db, tenantId, filter);
  }

  async revokeGrant(tenantId: string, oid: string, deploymentId: string): Promise<boolean> {
    return admin.revokeGrant(this.db, tenantId, oid, deploymentId);
  }

  async setAgentBackend(scope: Scope, backend: Omit<AgentBackend, 'updatedAt'>): Promise<AgentBackend> {
    return admin.upsertAgentBackend(this.db, scope, backend);
  }

  async getAgentBackend(scope: Scope): Promise<AgentBackend | null> {
    return admin.readAgentBackend(this.db, scope);
  }

  async setPersonNames(tenantId: string, people: PersonName[]): Promise<void> {
    await admin.upsertPersonNames(this.db, tenantId, people);
  }

  async listPersonNames(tenantId: string): Promise<PersonName[]> {
    return admin.readPersonNames(this.db, tenantId);
  }

  async findPersonName(tenantId: string, displayName: string): Promise<string | null> {
    return admin.lookupPersonName(this.db, tenantId, displayName);
  }

  async stageMeeting(scope: Scope): Promise<MeetingStaging> {
    return admin.beginStaging(this.db, scope);
  }

  /** One transaction holding `write` and, unless it found no record (null), the call's audit entry. */
  private auditedWrite<T>(scope: Scope, entry: AuditEntry | undefined, write: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.write(scope.tenantId, async (tx) => {
      const result = await write(tx);
      if (entry && result !== null) await insertAuditEntry(tx, entry);
      return result;
    });
  }

  /** Status and note of a decision or open question; the change stamp moves only when one of them really changes. */
  private updateWorkflow<K extends WorkflowKind>(
    kind: K,
    scope: Scope,
    id: string,
    change: WorkflowChange<string>,
    actor: Attribution,
    audit: WriteAudit | undefined,
  ): Promise<RecordOf<K> | null> {
    return this.auditedWrite(scope, audit?.(id), async (tx) => {
      const current = await lockRecord(tx, kind, scope, id);
      if (!current) return null;
      const params = workflowUpdate(scope, current, change, actor);
      if (!params) return current;
      await tx.run(numbered(updateWorkflowSql(KINDS[kind].table)), params);
      return mustLoad(tx, kind, scope, id);
    });
  }
}

/** A record read for a change: its row stays locked until the transaction ends, so concurrent changes queue. */
async function lockRecord<K extends ListKind>(tx: Tx, kind: K, scope: Scope, id: string): Promise<RecordOf<K> | null> {
  const row = await tx.row(recordForUpdateSql(kind), [scope.tenantId, scope.deploymentId, id]);
  return row ? ((await toRecords(tx, kind, scope, [row]))[0] ?? null) : null;
}

/** A record the current transaction just wrote; its absence would be a bug, not a caller error. */
async function mustLoad<K extends ListKind>(tx: Tx, kind: K, scope: Scope, id: string): Promise<RecordOf<K>> {
  const record = await loadRecord(tx, kind, scope, id);
  if (!record) throw new Error(`${kind} ${id} vanished inside its own transaction`);
  return record;
}

/** Where and as whom the PostgreSQL store connects. */
export interface PostgresStoreOptions {
  /** The connection the core serves from. */
  url: string;
  /**
   * The schema owner's connection, for migrations. Without it `url` must be the owner: it migrates, and the
   * serving pool then acts as the app role (SET ROLE through a startup option), which suits development. With it,
   * `url` should be a login role that is a member of memory_app and owns nothing.
   */
  migrateUrl?: string;
  /** A schema of its own (created when missing); default: the connection's search_path. */
  schema?: string;
  /** Connections per replica; default 10. */
  maxConnections?: number;
}

/**
 * A database the core cannot start on for a reason the operator can fix: it cannot be reached, the credentials or
 * roles are wrong, or a newer release migrated it. `hint` is the next step.
 */
export class DatabaseSetupError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'DatabaseSetupError';
  }
}

/** The operator's version of a failure to connect or migrate, or the error itself when it is not one of theirs. */
function setupError(error: unknown, url: string): unknown {
  const { code, message } = error as { code?: string; message?: string };
  const where = new URL(url);
  const server = `PostgreSQL at ${where.hostname || 'the local socket'}${where.port ? `:${where.port}` : ''}`;
  if (code && ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH'].includes(code)) {
    return new DatabaseSetupError(`Cannot reach ${server} (${code}).`, 'check the host and port in the database URL and that the server runs');
  }
  if (code === '28P01' || code === '28000') {
    return new DatabaseSetupError(`${server} refused the login: ${message}`, 'check the user and password in the database URL');
  }
  if (code === '3D000') return new DatabaseSetupError(`${server}: ${message}`, 'create the database first, e.g. `createdb memory`');
  if (code === '42501') {
    return new DatabaseSetupError(
      `The role that migrates lacks a privilege: ${message}`,
      `migrate as the schema owner (--database-migrate-url): it needs CREATE on the database, and CREATEROLE unless ${APP_ROLE} exists`,
    );
  }
  if (message?.includes('newer than this release')) return new DatabaseSetupError(message, 'upgrade meeting-memory on every replica');
  return error;
}

/**
 * Refuses to serve through a role that could step around row-level security: a superuser, a BYPASSRLS role, or
 * one that owns (or inherits the rights of the owner of) the store's tables.
 */
async function assertConfined(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ who: string; super: boolean; bypass: boolean; owns: boolean }>(
    `SELECT r.rolname AS who, r.rolsuper AS super, r.rolbypassrls AS bypass,
       EXISTS (SELECT 1 FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace
               AND c.relkind = 'r' AND pg_has_role(current_user, c.relowner, 'USAGE')) AS owns
     FROM pg_roles r WHERE r.rolname = current_user`,
  );
  const role = rows[0];
  if (!role || role.super || role.bypass || role.owns) {
    const why = !role ? 'is unknown' : role.super ? 'is a superuser' : role.bypass ? 'bypasses RLS' : 'owns the tables';
    throw new DatabaseSetupError(
      `The core must not serve as database role ${role?.who ?? '?'}: it ${why}.`,
      `connect --database-url as a role that is a member of ${APP_ROLE} and owns nothing, and pass the owner as --database-migrate-url`,
    );
  }
}

/**
 * Opens the PostgreSQL store: migrates under the advisory lock as the owner, then opens the serving pool as a role
 * confined by row-level security (checked before the first call is served).
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const ownerUrl = options.migrateUrl ?? options.url;
  const owner = new pg.Pool({ ...poolConfig(ownerUrl, { schema: options.schema }), max: 1 });
  let outcome: MigrationOutcome;
  try {
    const client = await owner.connect();
    try {
      outcome = await migrate(client, { schema: options.schema, ownerSwitches: options.migrateUrl === undefined });
    } finally {
      client.release();
    }
  } catch (error) {
    throw setupError(error, ownerUrl);
  } finally {
    await owner.end();
  }
  const role = options.migrateUrl === undefined ? APP_ROLE : undefined;
  const pool = new pg.Pool(poolConfig(options.url, { schema: options.schema, role, max: options.maxConnections }));
  // An idle connection the server drops must not take the process down; the next checkout reconnects.
  pool.on('error', () => {});
  try {
    await assertConfined(pool);
  } catch (error) {
    await pool.end();
    throw setupError(error, options.url);
  }
  return new PostgresStore(new Db(pool), outcome.features.get('vector') ?? null, outcome.missing.get('vector') ?? null);
}
