import type {
  Access,
  ActionItem,
  Attribution,
  Decision,
  Deployment,
  ListableRecord,
  Meeting,
  OpenQuestion,
  SearchableType,
  Statement,
  Topic,
} from '../../contract/index.js';

/** Every memory read and write is confined to one tenant and one deployment. */
export interface Scope {
  tenantId: string;
  deploymentId: string;
}

/** Position after which the next page starts: the type's own timestamp, then id. */
export interface Keyset {
  ts: string;
  id: string;
}

export type ListKind = 'decision' | 'open_question' | 'action_item' | 'statement' | 'topic';
export type RecordOf<K extends ListKind> = {
  decision: Decision;
  open_question: OpenQuestion;
  action_item: ActionItem;
  statement: Statement;
  topic: Topic;
}[K];

export interface ListQuery {
  /** Inclusive UTC days on the type's own timestamp. */
  since?: string;
  until?: string;
  meetingId?: string;
  /** Action items only. */
  status?: string;
  assigneeIdpId?: string;
  order: 'asc' | 'desc';
  limit: number;
  after?: Keyset;
}

export interface SearchQuery {
  text: string;
  types: readonly SearchableType[];
  since?: string;
  until?: string;
  /** How many ranked candidates to consider at most; more matches set `capped`. */
  candidateCap: number;
}

export interface SearchHit {
  record: ListableRecord;
  /** Raw relevance, higher is better; the core normalises it into (0, 1]. */
  rank: number;
}

export interface SearchOutcome {
  hits: SearchHit[];
  capped: boolean;
}

/** A searchable record as the search index knows it: the index's document id, the record's kind and id. */
export interface SearchDoc {
  docId: number;
  kind: SearchableType;
  recordId: string;
}

/** A document one retrieval leg found, with that leg's relevance (higher is better). */
export interface RankedDoc extends SearchDoc {
  score: number;
}

export interface SearchFilter {
  types: readonly SearchableType[];
  /** Inclusive UTC days on the type's own timestamp. */
  since?: string;
  until?: string;
}

/**
 * What the index held when a search's first page was answered: later pages of the same search leave out documents
 * and vectors written since, so that records arriving in between do not shift the pages.
 */
export interface SearchSnapshot {
  docs: number;
  vectors: number;
}

export interface KeywordQuery extends SearchFilter {
  text: string;
  /** The candidate cap: at most this many documents are ranked; `capped` says that more matched. */
  cap: number;
  /** How many of the best to return (default `cap`): a keyword-only page needs only those up to its end. */
  depth?: number;
  snapshot: SearchSnapshot;
}

export interface VectorQuery extends SearchFilter {
  embedding: Float32Array;
  /** The embedding space (model and dimensions) the query vector is in; only vectors of that space are compared. */
  space: string;
  /** How many nearest documents to return. */
  neighbours: number;
  snapshot: SearchSnapshot;
}

export interface RankedDocs {
  docs: RankedDoc[];
  capped: boolean;
  /** How many documents are ranked (at most the cap), of which `docs` are the best. */
  total: number;
}

/** A record waiting in the durable embedding queue, with the text to embed. */
export interface EmbeddingTask {
  docId: number;
  text: string;
}

export interface EmbeddingBacklog {
  /** Records queued for embedding in the current space (including ones being retried). */
  pending: number;
  /** Records the provider refused so often that they wait for a reindex. */
  failed: number;
  /** Records with a vector in the current space. */
  embedded: number;
}

/**
 * The index behind hybrid search: a keyword leg, a vector leg, and the durable queue that feeds the vector leg.
 * Every record the store writes is queued for embedding in the same transaction, so nothing is lost across restarts.
 */
export interface SearchIndex {
  snapshot(): Promise<SearchSnapshot>;
  /** Keyword matches ranked by BM25, best first. */
  keyword(scope: Scope, query: KeywordQuery): Promise<RankedDocs>;
  /** Nearest documents by cosine similarity in the query's space, best first. */
  vector(scope: Scope, query: VectorQuery): Promise<RankedDoc[]>;
  /** Readies the vector leg of every deployment in `space` (engines that keep an in-memory index load it now). */
  warm(space: string): Promise<void>;
  /** The records of the documents, in the same order; null for one that is no longer in the scope. */
  load(scope: Scope, docs: readonly SearchDoc[]): Promise<(ListableRecord | null)[]>;

  /** Makes `space` the one vectors are written in; switching spaces queues every record again. */
  useEmbeddingSpace(space: string): Promise<{ requeued: number }>;
  /** Leases up to `limit` due tasks for `leaseMs`; a worker that dies leaves them to be claimed again later. */
  claimEmbeddingTasks(limit: number, leaseMs: number): Promise<EmbeddingTask[]>;
  /** Stores vectors in the current space and removes their tasks. */
  saveEmbeddings(space: string, vectors: readonly { docId: number; embedding: Float32Array }[]): Promise<void>;
  /**
   * Puts tasks back until `retryAt` (ms since the epoch). `countAttempt` is false when the provider, not the record,
   * failed; tasks that failed too often wait for a reindex.
   */
  deferEmbeddingTasks(docIds: readonly number[], error: string, retryAt: number, countAttempt: boolean): Promise<void>;
  /** Drops the vectors of the tenant (or one deployment) and queues its records again; returns how many. */
  requeueEmbeddings(tenantId: string, deploymentId?: string): Promise<number>;
  embeddingBacklog(tenantId?: string): Promise<EmbeddingBacklog>;
}

export interface NewActionItem {
  text: string;
  assigneeIdpId?: string;
  dueDate?: string;
  meetingId?: string;
}

export interface ActionItemChange {
  status?: 'open' | 'done';
  assigneeIdpId?: string;
  /** A date sets it, null clears it, undefined leaves it. */
  dueDate?: string | null;
}

export interface WorkflowChange<S extends string> {
  status: S;
  /** A string sets it, null clears it, undefined leaves it. */
  note?: string | null;
}

export interface Tenant {
  id: string;
  name: string;
  region: 'us' | 'ca';
  createdAt: string;
}

export interface NewDeployment {
  name: string;
  platform: Deployment['platform'];
  voice: string;
  avatarUrl?: string | null;
}

export interface Principal {
  tenantId: string;
  /** Object id: the `oid` claim of its tokens. */
  oid: string;
  clientId: string;
  displayName: string;
  /** Slow hash of the client secret (scrypt, with its parameters). */
  secretHash: string;
  isAdmin: boolean;
  createdAt: string;
}

/** A meeting with everything said and recorded in it, as ingest and the demo provide it. */
export interface MeetingDocument {
  meeting: {
    id?: string;
    /** A stable key from the source system, so re-importing the same meeting is idempotent. */
    externalId: string;
    title: string;
    platform: Deployment['platform'];
    startedAt: string;
    endedAt: string | null;
    organizer: Attribution;
  };
  participants: Attribution[];
  /** `id` orders statements spoken in the same second (ingest gives time-ordered ids); random when absent. */
  statements: { id?: string; attribution: Attribution; text: string; spokenAt: string }[];
  decisions: { attribution: Attribution; text: string; decidedAt: string; status?: 'confirmed' | 'superseded' }[];
  openQuestions: { attribution: Attribution; text: string; raisedAt: string; status?: 'open' | 'resolved' }[];
  actionItems: {
    attribution: Attribution;
    text: string;
    createdAt: string;
    assignee: Attribution | null;
    dueDate: string | null;
    status?: 'open' | 'done';
  }[];
  topics: { name: string; kind: Topic['kind']; attribution: Attribution }[];
}

/** Reads and actions are kept for separate periods, so each has its own hash chain that pruning shortens from the front. */
export type AuditKind = 'read' | 'action';

/** One call on the API as the audit log keeps it. */
export interface AuditEntry {
  /** The request id: the response's `x-request-id` and a problem document's `request_id`. */
  id: string;
  /** When the call was received, `YYYY-MM-DDThh:mm:ssZ`. */
  at: string;
  surface: 'rest' | 'mcp';
  /** The caller's tenant and object id; both null when the call carried no usable token. */
  tenantId: string | null;
  principalOid: string | null;
  /** Set only when there is no principal. */
  remoteAddress: string | null;
  /** The operation, or the method and route when none was recognised. */
  operation: string;
  kind: AuditKind;
  deploymentId: string | null;
  recordIds: string[];
  /** The HTTP status, or for MCP the status the tool outcome stands for. */
  status: number;
  durationMs: number;
}

/** The audit entry of the call making a write, given the id of the record it wrote. */
export type WriteAudit = (recordId: string) => AuditEntry;

/** Filters on a tenant's audit log; dates are inclusive UTC days on `at`. Newest first. */
export interface AuditQuery {
  since?: string;
  until?: string;
  principalOid?: string;
  deploymentId?: string;
  operation?: string;
  kind?: AuditKind;
  surface?: 'rest' | 'mcp';
  status?: number;
  requestId?: string;
  limit: number;
  /** The `next` of the previous page. */
  after?: AuditKeyset;
}

/** Position in the log after which the next (older) page starts. */
export interface AuditKeyset {
  seq: number;
}

export interface AuditPage {
  entries: AuditEntry[];
  next: AuditKeyset | null;
}

/** The outcome of walking every chain: `firstBadId` names the first entry whose link or content does not hold. */
export interface AuditVerification {
  ok: boolean;
  checked: number;
  firstBadId?: string;
  reason?: 'content changed' | 'link broken';
  /** The newest hash of each chain, to note down elsewhere: a later verify can show nothing was cut from the end. */
  heads: Record<AuditKind, string>;
}

/** Days each kind of entry is kept. */
export interface AuditRetention {
  readsDays: number;
  actionsDays: number;
}

/** One principal's access to one deployment. */
export interface Grant {
  oid: string;
  clientId: string;
  deploymentId: string;
  access: Access;
}

/** A deployment's registered agent backend, as the invoker reads it when the teammate is addressed. */
export interface AgentBackend {
  url: string;
  /** `env:NAME`, `file:/path` or `keychain:service/account`, resolved at call time; never the secret. */
  secretRef: string;
  timeoutMs: number;
  fallbackLine: string;
  /** Null: the service's default system prompt. */
  systemPrompt: string | null;
  updatedAt: string;
  /** Client id of the admin who registered it. */
  updatedBy: string;
}

/** A speaker name that transcripts attribute to an identity-provider id. */
export interface PersonName {
  idpId: string;
  displayName: string;
}

/** A statement of a meeting being imported, held aside until the whole meeting is committed. */
export interface StagedStatement {
  id: string;
  attribution: Attribution;
  text: string;
  spokenAt: string;
}

/**
 * A meeting import in progress. Statements are added in batches as a transcript is parsed and kept out of memory
 * until `commit` writes the meeting and all of them in one transaction; `discard` drops them. Either way the
 * staging is gone afterwards.
 */
export interface MeetingStaging {
  add(statements: StagedStatement[]): Promise<void>;
  /** Imports `doc` with the staged statements after its own; idempotent on externalId like importMeeting. */
  commit(doc: MeetingDocument): Promise<{ meetingId: string; created: boolean }>;
  discard(): Promise<void>;
}

/**
 * The core's persistence. SQLite implements it now and PostgreSQL later; the core never speaks SQL itself.
 * Every memory method takes the scope first and never reaches outside it. Nothing here deletes or rewrites a
 * statement, a transcript or provenance.
 */
export interface Store {
  readonly engine: 'sqlite' | 'postgres';
  /** Hybrid retrieval; absent on an engine that offers keyword search (`search`) only. */
  readonly searchIndex?: SearchIndex;
  close(): Promise<void>;

  /** Small key/value settings the core keeps in the database (signing keys, cursor secret). */
  getSetting(key: string): Promise<string | null>;
  /** Stores the value unless the key already has one; returns the value that is stored now. */
  initSetting(key: string, value: string): Promise<string>;
  /** Stores or replaces a setting; null removes it. */
  setSetting(key: string, value: string | null): Promise<void>;

  createTenant(tenant: { id?: string; name: string; region: 'us' | 'ca' }): Promise<Tenant>;
  getTenant(id: string): Promise<Tenant | null>;
  createDeployment(tenantId: string, deployment: NewDeployment & { id?: string }): Promise<Omit<Deployment, 'access'>>;
  createPrincipal(principal: Omit<Principal, 'createdAt'>): Promise<Principal>;
  getPrincipalByClientId(tenantId: string, clientId: string): Promise<Principal | null>;
  setPrincipalSecretHash(tenantId: string, oid: string, secretHash: string): Promise<void>;
  setGrant(tenantId: string, oid: string, deploymentId: string, access: Access): Promise<void>;
  /** The caller's access on a deployment, or null when there is no grant or no such deployment in the tenant. */
  getAccess(tenantId: string, oid: string, deploymentId: string): Promise<Access | null>;
  listDeploymentsFor(tenantId: string, oid: string): Promise<Deployment[]>;

  /** Writes a whole meeting in one transaction; the same externalId again changes nothing and returns the id. */
  importMeeting(scope: Scope, doc: MeetingDocument): Promise<{ meetingId: string; created: boolean }>;

  list<K extends ListKind>(kind: K, scope: Scope, query: ListQuery): Promise<RecordOf<K>[]>;
  get(kind: 'decision', scope: Scope, id: string): Promise<Decision | null>;
  get(kind: 'open_question', scope: Scope, id: string): Promise<OpenQuestion | null>;
  get(kind: 'action_item', scope: Scope, id: string): Promise<ActionItem | null>;
  getMeeting(scope: Scope, id: string): Promise<Meeting | null>;
  meetingExists(scope: Scope, id: string): Promise<boolean>;
  search(scope: Scope, query: SearchQuery): Promise<SearchOutcome>;

  /**
   * The four actions. Given `audit`, each appends the entry it builds (from the id of the record written) in the
   * action's own transaction, durably as `appendAudit` does: the change and its entry commit together or not at all.
   * An update of a record not in the scope writes neither.
   */
  createActionItem(scope: Scope, item: NewActionItem, actor: Attribution, audit?: WriteAudit): Promise<ActionItem>;
  /** Null when the record is not in the scope. `updated_*` change only when a field really changed. */
  updateActionItem(
    scope: Scope,
    id: string,
    change: ActionItemChange,
    actor: Attribution,
    audit?: WriteAudit,
  ): Promise<ActionItem | null>;
  updateOpenQuestion(
    scope: Scope,
    id: string,
    change: WorkflowChange<'open' | 'resolved'>,
    actor: Attribution,
    audit?: WriteAudit,
  ): Promise<OpenQuestion | null>;
  updateDecision(
    scope: Scope,
    id: string,
    change: WorkflowChange<'confirmed' | 'superseded'>,
    actor: Attribution,
    audit?: WriteAudit,
  ): Promise<Decision | null>;

  /**
   * Appends one entry to the chain of its kind. Resolves once the entry is committed; an action's entry is also
   * on disk (it survives power loss), so a write acknowledged after it cannot lose its audit entry.
   */
  appendAudit(entry: AuditEntry): Promise<void>;
  /** A tenant's entries (null: calls that carried no usable token), newest first. */
  queryAudit(tenantId: string | null, query: AuditQuery): Promise<AuditPage>;
  /** Walks every chain from its anchor and checks each link and each entry's hash. */
  verifyAudit(): Promise<AuditVerification>;
  /**
   * The retention job: removes entries older than their kind's retention at `now`, from the front of each chain,
   * and records the last removed hash as the chain's new anchor so the rest still verifies. The only delete.
   */
  pruneAudit(now: Date, retention: AuditRetention): Promise<Record<AuditKind, number>>;

  /** Admin surface: the tenant, its deployments, principals, grants, agent backends and people mappings. */
  updateTenant(id: string, change: { name?: string; region?: 'us' | 'ca' }): Promise<Tenant | null>;
  listTenantDeployments(tenantId: string): Promise<Omit<Deployment, 'access'>[]>;
  getDeployment(tenantId: string, id: string): Promise<Omit<Deployment, 'access'> | null>;
  listPrincipals(tenantId: string): Promise<Principal[]>;
  /** The tenant's grants, optionally of one principal and/or on one deployment. */
  listGrants(tenantId: string, filter: { oid?: string; deploymentId?: string }): Promise<Grant[]>;
  /** Removes a grant; false when there was none. */
  revokeGrant(tenantId: string, oid: string, deploymentId: string): Promise<boolean>;
  setAgentBackend(scope: Scope, backend: Omit<AgentBackend, 'updatedAt'>): Promise<AgentBackend>;
  getAgentBackend(scope: Scope): Promise<AgentBackend | null>;
  /** Adds or replaces name mappings (matched without regard to case and spacing), and names the ids in the directory. */
  setPersonNames(tenantId: string, people: PersonName[]): Promise<void>;
  listPersonNames(tenantId: string): Promise<PersonName[]>;
  /** The id mapped to this speaker name, or null. */
  findPersonName(tenantId: string, displayName: string): Promise<string | null>;
  /** Starts a streamed meeting import into the scope (see MeetingStaging). */
  stageMeeting(scope: Scope): Promise<MeetingStaging>;
}
