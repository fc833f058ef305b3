import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import BetterSqlite3 from 'better-sqlite3';
import type { Attribution } from '../src/contract/index.js';
import { generateSecret, hashSecret } from '../src/core/auth/secret-hash.js';
import type { MeetingDocument, Scope, Store } from '../src/core/store/store.js';
import { countInto, emptyCounts, meetingBatches, type DeploymentSpec, type RecordCounts } from './generate.js';

/** Meetings generated at a time: bounds memory at a million statements while keeping generation out of the timing. */
const BATCH_MEETINGS = 200;

export interface IngestResult {
  /** Time spent inserting only; generating the documents is not counted. */
  seconds: number;
  counts: RecordCounts;
  statementsPerSecond: number;
}

/** The tenant a generated deployment lives in, with principals that hold a read grant on it. */
export interface BenchTenant {
  scope: Scope;
  /** Several principals, so that the per-principal rate limit does not cap what a load test can send. */
  principals: { clientId: string; secret: string }[];
}

/**
 * Creates the tenant, the deployment and `principalCount` read principals in the store. They share one secret so
 * that provisioning hashes it once; the core verifies it per token request like any other.
 */
export async function provisionBenchTenant(store: Store, principalCount: number): Promise<BenchTenant> {
  const tenant = await store.createTenant({ name: 'Bench Co', region: 'us' });
  const deployment = await store.createDeployment(tenant.id, {
    name: 'Bench teammate',
    platform: 'teams',
    voice: 'en-US-AvaNeural',
    avatarUrl: null,
  });
  const secret = generateSecret();
  const secretHash = await hashSecret(secret);
  const principals: BenchTenant['principals'] = [];
  for (let index = 0; index < principalCount; index += 1) {
    const oid = randomUUID();
    const clientId = randomUUID();
    await store.createPrincipal({
      tenantId: tenant.id,
      oid,
      clientId,
      displayName: `bench-reader-${index}`,
      secretHash,
      isAdmin: false,
    });
    await store.setGrant(tenant.id, oid, deployment.id, 'read');
    principals.push({ clientId, secret });
  }
  return { scope: { tenantId: tenant.id, deploymentId: deployment.id }, principals };
}

function rate(counts: RecordCounts, seconds: number): IngestResult {
  return { seconds, counts, statementsPerSecond: seconds > 0 ? counts.statements / seconds : 0 };
}

/** Writes the generated deployment through the store's importMeeting, one meeting per call as ingest does. */
export async function ingestThroughStore(store: Store, scope: Scope, spec: DeploymentSpec): Promise<IngestResult> {
  const counts = emptyCounts();
  let elapsed = 0;
  for (const batch of meetingBatches(spec, BATCH_MEETINGS)) {
    const started = performance.now();
    for (const doc of batch) await store.importMeeting(scope, doc);
    elapsed += performance.now() - started;
    for (const doc of batch) countInto(counts, doc);
  }
  return rate(counts, elapsed / 1000);
}

const BARE_SCHEMA = `
CREATE TABLE meetings (id TEXT, external_id TEXT, title TEXT, platform TEXT, started_at TEXT, ended_at TEXT,
  organizer_kind TEXT, organizer_display_name TEXT, organizer_idp_id TEXT);
CREATE TABLE participants (meeting_id TEXT, position INTEGER, kind TEXT, display_name TEXT, idp_id TEXT);
CREATE TABLE statements (id TEXT, meeting_id TEXT, text TEXT, spoken_at TEXT, kind TEXT, display_name TEXT, idp_id TEXT);
CREATE TABLE decisions (id TEXT, meeting_id TEXT, text TEXT, decided_at TEXT, status TEXT, kind TEXT, display_name TEXT, idp_id TEXT);
CREATE TABLE open_questions (id TEXT, meeting_id TEXT, text TEXT, raised_at TEXT, status TEXT, kind TEXT, display_name TEXT, idp_id TEXT);
CREATE TABLE action_items (id TEXT, meeting_id TEXT, text TEXT, created_at TEXT, status TEXT, due_date TEXT,
  assignee_idp_id TEXT, kind TEXT, display_name TEXT, idp_id TEXT);
CREATE TABLE topic_meetings (meeting_id TEXT, name TEXT, kind TEXT);
`;

function who(attribution: Attribution | null): [string | null, string | null, string | null] {
  return attribution ? [attribution.kind, attribution.display_name ?? null, attribution.idp_id ?? null] : [null, null, null];
}

/** Prepared inserts of every row a meeting document holds, into plain tables (no index, trigger or full-text). */
function bareWriter(db: BetterSqlite3.Database): (doc: MeetingDocument) => void {
  const meeting = db.prepare('INSERT INTO meetings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const participant = db.prepare('INSERT INTO participants VALUES (?, ?, ?, ?, ?)');
  const statement = db.prepare('INSERT INTO statements VALUES (?, ?, ?, ?, ?, ?, ?)');
  const decision = db.prepare('INSERT INTO decisions VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const question = db.prepare('INSERT INTO open_questions VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const action = db.prepare('INSERT INTO action_items VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const topic = db.prepare('INSERT INTO topic_meetings VALUES (?, ?, ?)');
  return (doc) => {
    const id = randomUUID();
    const m = doc.meeting;
    meeting.run(id, m.externalId, m.title, m.platform, m.startedAt, m.endedAt, ...who(m.organizer));
    doc.participants.forEach((p, position) => participant.run(id, position, ...who(p)));
    for (const s of doc.statements) statement.run(randomUUID(), id, s.text, s.spokenAt, ...who(s.attribution));
    for (const d of doc.decisions) {
      decision.run(randomUUID(), id, d.text, d.decidedAt, d.status ?? 'confirmed', ...who(d.attribution));
    }
    for (const q of doc.openQuestions) {
      question.run(randomUUID(), id, q.text, q.raisedAt, q.status ?? 'open', ...who(q.attribution));
    }
    for (const a of doc.actionItems) {
      const assignee = a.assignee?.idp_id ?? null;
      action.run(randomUUID(), id, a.text, a.createdAt, a.status ?? 'open', a.dueDate, assignee, ...who(a.attribution));
    }
    for (const t of doc.topics) topic.run(id, t.name, t.kind);
  };
}

/**
 * The floor: the same rows through better-sqlite3 prepared inserts, one transaction per batch of meetings, into
 * plain tables with the store's pragmas (WAL, synchronous=NORMAL) and nothing else.
 */
export function ingestBare(file: string, spec: DeploymentSpec): IngestResult {
  const db = new BetterSqlite3(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(BARE_SCHEMA);
    const write = bareWriter(db);
    const writeBatch = db.transaction((batch: MeetingDocument[]) => {
      for (const doc of batch) write(doc);
    });
    const counts = emptyCounts();
    let elapsed = 0;
    for (const batch of meetingBatches(spec, BATCH_MEETINGS)) {
      const started = performance.now();
      writeBatch(batch);
      elapsed += performance.now() - started;
      for (const doc of batch) countInto(counts, doc);
    }
    return rate(counts, elapsed / 1000);
  } finally {
    db.close();
  }
}
