import { randomUUID } from 'node:crypto';
import type { ActionItem, Decision, OpenQuestion } from '../../../src/contract/index.js';
import { collectPages, jsonRequest, send, type Answer, type RawRequest } from './http.js';

/** The fields of an action item a writer sets. */
export interface ItemState {
  text: string;
  status: 'open' | 'done';
  due_date: string | null;
  assignee: string | null;
}

/** The fields of a decision or open question a writer sets. */
export interface NoteState {
  status: string;
  note: string | null;
}

interface Tracked<S> {
  /** As the record was first known (created, or before any writer touched it). */
  original: S;
  /** The last state a 2xx acknowledged. */
  acked: S;
  /** The state a request without an answer would have set (the process died under it). */
  inFlight: S | null;
}

/**
 * Everything the writers were told, and what they were not told yet: after a crash every record must be in its
 * acknowledged state, or wholly in the state of the one request that got no answer.
 */
export class WriteLedger {
  readonly items = new Map<string, Tracked<ItemState>>();
  /** Creations that got no answer, by their unique text. */
  readonly pendingCreates = new Map<string, ItemState>();
  readonly decisions = new Map<string, Tracked<NoteState>>();
  readonly questions = new Map<string, Tracked<NoteState>>();
  /** Request ids of every acknowledged answer (2xx or refusal): each must have its audit entry after a crash. */
  readonly answeredRequestIds = new Set<string>();
  acknowledgedWrites = 0;
  unanswered = 0;
  /** Answers no writer should get before the kill (anything but 2xx), with what was sent. */
  readonly unexpected: string[] = [];

  constructor(readonly label: string) {}

  /** Whether a text belongs to an item some writer of this run created. */
  ownsText(text: string): boolean {
    return text.startsWith(`${this.label} `);
  }
}

/** One writing client: its token, and the records only it changes (so each record sees one request at a time). */
export interface Writer {
  name: string;
  token: string;
  decisions: string[];
  questions: string[];
  items: string[];
}

type Kind = 'item' | 'decision' | 'question';

interface Step {
  kind: Kind | 'create';
  request: RawRequest;
  intended: ItemState | NoteState;
  id?: string;
}

function pick<T>(values: readonly T[]): T {
  return values[Math.floor(Math.random() * values.length)]!;
}

function randomDate(): string {
  return new Date(Date.UTC(2025 + Math.floor(Math.random() * 3), Math.floor(Math.random() * 12), 1 + Math.floor(Math.random() * 28)))
    .toISOString()
    .slice(0, 10);
}

/** The fields a writer sets, read off an action item. */
export function itemState(item: ActionItem): ItemState {
  return { text: item.text, status: item.status, due_date: item.due_date, assignee: item.assignee?.idp_id ?? null };
}

/** The fields a writer sets, read off a decision or open question. */
export function noteState(record: Decision | OpenQuestion): NoteState {
  return { status: record.status, note: record.note };
}

function same(a: object, b: object): boolean {
  return JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
}

function createStep(base: string, ledger: WriteLedger, writer: Writer, n: number): Step {
  const text = `${ledger.label} ${writer.name} #${n} ${randomUUID()}`;
  const due = Math.random() < 0.5 ? randomDate() : null;
  const assignee = Math.random() < 0.5 ? randomUUID() : null;
  const body = { text, ...(due ? { due_date: due } : {}), ...(assignee ? { assignee_idp_id: assignee } : {}) };
  return { kind: 'create', request: jsonRequest('POST', `${base}/action-items`, writer.token, body), intended: { text, status: 'open', due_date: due, assignee } };
}

function itemStep(base: string, ledger: WriteLedger, writer: Writer): Step {
  const id = pick(writer.items);
  const current = ledger.items.get(id)!.acked;
  const change = pick(['status', 'due', 'clear', 'assignee'] as const);
  const intended: ItemState = { ...current };
  let body: Record<string, unknown>;
  if (change === 'status') {
    intended.status = current.status === 'open' ? 'done' : 'open';
    body = { status: intended.status };
  } else if (change === 'due') {
    intended.due_date = randomDate();
    body = { due_date: intended.due_date };
  } else if (change === 'clear') {
    intended.due_date = null;
    body = { clear_due_date: true };
  } else {
    intended.assignee = randomUUID();
    body = { assignee_idp_id: intended.assignee };
  }
  return { kind: 'item', id, request: jsonRequest('PATCH', `${base}/action-items/${id}`, writer.token, body), intended };
}

function noteStep(base: string, ledger: WriteLedger, writer: Writer, kind: 'decision' | 'question'): Step {
  const id = pick(kind === 'decision' ? writer.decisions : writer.questions);
  const current = (kind === 'decision' ? ledger.decisions : ledger.questions).get(id)!.acked;
  const status = pick(kind === 'decision' ? ['confirmed', 'superseded'] : ['open', 'resolved']);
  const roll = Math.random();
  const note = roll < 0.5 ? `${ledger.label} note ${randomUUID()}` : roll < 0.75 ? null : current.note;
  const body = { status, ...(roll < 0.5 ? { note } : roll < 0.75 ? { clear_note: true } : {}) };
  const path = `${base}/${kind === 'decision' ? 'decisions' : 'open-questions'}/${id}`;
  return { kind, id, request: jsonRequest('PATCH', path, writer.token, body), intended: { status, note } };
}

function nextStep(base: string, ledger: WriteLedger, writer: Writer, n: number): Step {
  const roll = Math.random();
  if (roll < 0.4 || writer.items.length === 0) return createStep(base, ledger, writer, n);
  if (roll < 0.7) return itemStep(base, ledger, writer);
  if (roll < 0.85 && writer.decisions.length > 0) return noteStep(base, ledger, writer, 'decision');
  if (writer.questions.length > 0) return noteStep(base, ledger, writer, 'question');
  return itemStep(base, ledger, writer);
}

function trackedOf(ledger: WriteLedger, step: Step): Tracked<ItemState | NoteState> | undefined {
  if (step.kind === 'item') return ledger.items.get(step.id!);
  if (step.kind === 'decision') return ledger.decisions.get(step.id!);
  if (step.kind === 'question') return ledger.questions.get(step.id!);
  return undefined;
}

function answeredState(step: Step, answer: Answer): ItemState | NoteState {
  return step.kind === 'create' || step.kind === 'item' ? itemState(answer.json as ActionItem) : noteState(answer.json as Decision);
}

/** Books an answer: a 2xx moves the record to its intended state; a 503 leaves the outcome open, as the contract says. */
function book(ledger: WriteLedger, writer: Writer, step: Step, answer: Answer): void {
  const requestId = answer.headers['x-request-id'];
  if (typeof requestId === 'string') ledger.answeredRequestIds.add(requestId);
  const tracked = trackedOf(ledger, step);
  if (answer.status === 503) return;
  if (step.kind === 'create') ledger.pendingCreates.delete((step.intended as ItemState).text);
  if (tracked) tracked.inFlight = null;
  if (answer.status >= 300) {
    ledger.unexpected.push(`${step.request.method} ${step.request.path} ${step.request.body ?? ''} answered ${answer.status} ${answer.text.slice(0, 200)}`);
    return;
  }
  ledger.acknowledgedWrites += 1;
  if (!same(answeredState(step, answer), step.intended)) {
    ledger.unexpected.push(`${step.request.method} ${step.request.path} answered ${JSON.stringify(answeredState(step, answer))}, not ${JSON.stringify(step.intended)}`);
  }
  if (step.kind === 'create') {
    const id = (answer.json as ActionItem).id;
    ledger.items.set(id, { original: step.intended as ItemState, acked: step.intended as ItemState, inFlight: null });
    writer.items.push(id);
  } else if (tracked) {
    tracked.acked = step.intended;
  }
}

/**
 * Writes as fast as the core answers, one request at a time, until the connection fails (the core was killed).
 * Before each request its intended state is booked as in flight, so a request the kill cuts off stays in flight.
 */
export async function runWriter(origin: string, deploymentId: string, writer: Writer, ledger: WriteLedger): Promise<void> {
  const base = `/v1/deployments/${deploymentId}`;
  for (let n = 0; ; n += 1) {
    const step = nextStep(base, ledger, writer, n);
    if (step.kind === 'create') ledger.pendingCreates.set((step.intended as ItemState).text, step.intended as ItemState);
    const tracked = trackedOf(ledger, step);
    if (tracked) tracked.inFlight = step.intended;
    let answer: Answer;
    try {
      answer = await send(origin, step.request, 10_000);
    } catch {
      ledger.unanswered += 1;
      return;
    }
    book(ledger, writer, step, answer);
  }
}

/** What a verification after a restart found. */
export interface RecoveryCheck {
  problems: string[];
  /** Requests without an answer whose change is there in full. */
  appliedUnanswered: number;
  /** Requests without an answer whose change is not there at all. */
  lostUnanswered: number;
  recordsChecked: number;
}

function settle<S extends ItemState | NoteState>(
  what: string,
  tracked: Tracked<S>,
  now: S,
  updatedAt: string | null,
  check: RecoveryCheck,
): void {
  const atAcked = same(now, tracked.acked);
  const atInFlight = tracked.inFlight !== null && same(now, tracked.inFlight);
  if (!atAcked && !atInFlight) {
    check.problems.push(`${what} is ${JSON.stringify(now)}: neither the acknowledged ${JSON.stringify(tracked.acked)} nor the unanswered ${JSON.stringify(tracked.inFlight)}`);
  } else if (tracked.inFlight !== null && !same(tracked.inFlight, tracked.acked)) {
    if (atInFlight) check.appliedUnanswered += 1;
    else check.lostUnanswered += 1;
  }
  if (!same(now, tracked.original) && updatedAt === null) check.problems.push(`${what} changed but has no updated_at: a half-applied change`);
  tracked.acked = now;
  tracked.inFlight = null;
  check.recordsChecked += 1;
}

/**
 * Reads everything back over REST after a restart and holds it against the ledger: every acknowledged write is
 * there with its acknowledged content; every unanswered one is there in full or not at all; no item exists that no
 * writer created; and no creation exists twice. Then the ledger takes what is there as the new acknowledged state.
 */
export async function verifyRecovery(origin: string, deploymentId: string, token: () => string, ledger: WriteLedger): Promise<RecoveryCheck> {
  const base = `/v1/deployments/${deploymentId}`;
  const check: RecoveryCheck = { problems: [], appliedUnanswered: 0, lostUnanswered: 0, recordsChecked: 0 };
  const items = (await collectPages<ActionItem>(origin, `${base}/action-items`, token())).filter((item) => ledger.ownsText(item.text));
  const seenTexts = new Set<string>();
  for (const item of items) {
    if (seenTexts.has(item.text)) check.problems.push(`action item "${item.text}" exists twice`);
    seenTexts.add(item.text);
    const tracked = ledger.items.get(item.id);
    if (tracked) {
      settle(`action item ${item.id}`, tracked, itemState(item), item.updated_at, check);
      continue;
    }
    const pending = ledger.pendingCreates.get(item.text);
    if (!pending) check.problems.push(`action item ${item.id} "${item.text}" was never created by a writer`);
    else if (!same(itemState(item), pending)) check.problems.push(`action item ${item.id} is ${JSON.stringify(itemState(item))}, a half-made ${JSON.stringify(pending)}`);
    else check.appliedUnanswered += 1;
    ledger.items.set(item.id, { original: itemState(item), acked: itemState(item), inFlight: null });
    check.recordsChecked += 1;
  }
  check.lostUnanswered += [...ledger.pendingCreates.keys()].filter((text) => !seenTexts.has(text)).length;
  ledger.pendingCreates.clear();
  const present = new Set(items.map((item) => item.id));
  for (const id of ledger.items.keys()) {
    if (!present.has(id)) check.problems.push(`acknowledged action item ${id} is gone`);
  }
  for (const [path, tracked] of [['decisions', ledger.decisions], ['open-questions', ledger.questions]] as const) {
    const records = await collectPages<Decision | OpenQuestion>(origin, `${base}/${path}`, token());
    const byId = new Map(records.map((record) => [record.id, record]));
    for (const [id, state] of tracked) {
      const record = byId.get(id);
      if (!record) check.problems.push(`${path} ${id} is gone`);
      else settle(`${path} ${id}`, state, noteState(record), record.updated_at, check);
    }
  }
  return check;
}
