import type { Attribution, Topic } from '../src/contract/index.js';
import type { MeetingDocument } from '../src/core/store/store.js';
import { Random } from './random.js';
import {
  ACCOUNTS,
  ACKNOWLEDGE_LINES,
  ACTION_LINES,
  ACTION_RECORDS,
  DECISION_LINES,
  DECISION_RECORDS,
  FILLER_LINES,
  FIRST_NAMES,
  LAST_NAMES,
  MEETING_KINDS,
  NUMBERS,
  PROJECTS,
  QUESTION_LINES,
  QUESTION_RECORDS,
  ROLES,
  STATUS_LINES,
  THEMES,
  WEEKDAYS,
  type ProjectVocabulary,
} from './vocabulary.js';

/** What to generate: the same seed and size always give the same meetings, whatever the batch size. */
export interface DeploymentSpec {
  seed: number;
  /** Exactly this many statements in total. */
  statements: number;
}

export interface GeneratedPerson {
  displayName: string;
  idpId: string;
  role: string;
}

/** How many of each record a set of meeting documents holds. */
export interface RecordCounts {
  meetings: number;
  participants: number;
  statements: number;
  decisions: number;
  openQuestions: number;
  actionItems: number;
  /** Topic mentions (meeting-topic links); distinct topics are fewer. */
  topicLinks: number;
}

const PEOPLE_PER_DEPLOYMENT = 36;
/** Meetings spread over three years of business days, the history a busy team accumulates. */
const FIRST_DAY = Date.UTC(2023, 6, 3);
const BUSINESS_DAYS = 3 * 261;
const AVERAGE_TURNS =
  MEETING_KINDS.reduce((sum, kind) => sum + (kind.minTurns + kind.maxTurns) / 2, 0) / MEETING_KINDS.length;
const WORDS_PER_SECOND = 2.6;
const DAY_MS = 86_400_000;

/** The people of the deployment: stable names and identity-provider ids for a seed. */
export function generatePeople(seed: number): GeneratedPerson[] {
  const random = new Random(seed, 0x70e0);
  const names = new Set<string>();
  const people: GeneratedPerson[] = [];
  while (people.length < PEOPLE_PER_DEPLOYMENT) {
    const displayName = `${FIRST_NAMES[people.length % FIRST_NAMES.length]} ${random.pick(LAST_NAMES)}`;
    if (names.has(displayName)) continue;
    names.add(displayName);
    people.push({ displayName, idpId: random.uuid(), role: random.pick(ROLES) });
  }
  return people;
}

function personAttribution(person: GeneratedPerson): Attribution {
  return { kind: 'platform_identity', display_name: person.displayName, idp_id: person.idpId };
}

function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The start of the n-th business day after FIRST_DAY (weekends skipped). */
function businessDay(n: number): number {
  const weeks = Math.floor(n / 5);
  return FIRST_DAY + (weeks * 7 + (n % 5)) * DAY_MS;
}

/** Distinct items drawn Zipf-like, so the first projects and accounts are discussed far more than the last. */
function distinctZipf<T>(random: Random, items: readonly T[], count: number): T[] {
  const chosen = new Set<T>();
  for (let tries = 0; chosen.size < count && tries < count * 20; tries += 1) chosen.add(random.zipf(items));
  return [...chosen];
}

interface Slots {
  t: string;
  t2: string;
  a: string;
  o: string;
  x: string;
  p: string;
  d: string;
  n: string;
}

function fill(template: string, slots: Slots): string {
  return template.replace(/\{(t2|t|a|o|x|p|d|n)\}/g, (_, key: keyof Slots) => slots[key]);
}

/** Everything one meeting is built from, drawn once so that statements and records agree. */
class MeetingBuilder {
  readonly doc: MeetingDocument;
  private clock: number;

  constructor(
    private readonly random: Random,
    private readonly people: GeneratedPerson[],
    private readonly participants: GeneratedPerson[],
    private readonly projects: ProjectVocabulary[],
    private readonly accounts: string[],
    private readonly guest: boolean,
    startedAt: number,
    header: { externalId: string; title: string },
  ) {
    const organizer = participants[0];
    if (!organizer) throw new Error('a meeting needs an organizer');
    this.clock = startedAt + 90_000;
    this.doc = {
      meeting: {
        externalId: header.externalId,
        title: header.title,
        platform: 'teams',
        startedAt: timestamp(startedAt),
        endedAt: null,
        organizer: personAttribution(organizer),
      },
      participants: [...participants.map(personAttribution), ...(guest ? [{ kind: 'anonymous' as const }] : [])],
      statements: [],
      decisions: [],
      openQuestions: [],
      actionItems: [],
      topics: [],
    };
  }

  /** A speaker other than `not`, the organizer and early participants more often; sometimes the guest. */
  speaker(not?: GeneratedPerson): GeneratedPerson | null {
    if (this.guest && this.random.chance(0.08)) return null;
    for (let tries = 0; tries < 8; tries += 1) {
      const person = this.random.zipf(this.participants);
      if (person !== not) return person;
    }
    return this.participants.find((person) => person !== not) ?? this.random.pick(this.people);
  }

  slots(speaker: GeneratedPerson | null): Slots {
    const project = this.random.pick(this.projects);
    const t = this.random.zipf(project.terms);
    let t2 = this.random.zipf(project.terms);
    if (t2 === t) t2 = this.random.pick(project.terms);
    const other = this.speaker(speaker ?? undefined) ?? this.random.pick(this.participants);
    const d = this.random.chance(0.7) ? this.random.pick(WEEKDAYS) : `the end of the month`;
    return {
      t,
      t2,
      a: this.accounts.length > 0 ? this.random.pick(this.accounts) : this.random.zipf(ACCOUNTS),
      o: this.random.pick(project.options),
      x: this.random.pick(project.artifacts),
      p: other.displayName.split(' ')[0] ?? other.displayName,
      d,
      n: this.random.pick(NUMBERS),
    };
  }

  /** Adds a statement at the meeting clock and advances it by speaking time and a short gap. */
  say(speaker: GeneratedPerson | null, text: string): string {
    const spokenAt = timestamp(this.clock);
    this.doc.statements.push({ attribution: this.who(speaker), text, spokenAt });
    const words = text.split(/\s+/).length;
    this.clock += (Math.max(3, Math.round(words / WORDS_PER_SECOND)) + this.random.int(2, 22)) * 1000;
    return spokenAt;
  }

  who(speaker: GeneratedPerson | null): Attribution {
    return speaker ? personAttribution(speaker) : { kind: 'anonymous' };
  }

  personNamed(firstName: string): GeneratedPerson | undefined {
    return this.participants.find((person) => person.displayName.startsWith(`${firstName} `));
  }

  finish(): MeetingDocument {
    this.doc.meeting.endedAt = timestamp(this.clock + 30_000);
    return this.doc;
  }
}

const TICKET_PREFIXES = ['BILL', 'MOB', 'EU', 'REP', 'ONB', 'SSO', 'PAY', 'PRC', 'OPS'];

/** Sometimes a ticket number: the long tail of one-off tokens that real transcripts put in a full-text index. */
function ticketMention(random: Random): string {
  return random.chance(0.15) ? ` That's ${random.pick(TICKET_PREFIXES)}-${random.int(100, 9999)} in the tracker.` : '';
}

type TurnKind = 'status' | 'filler' | 'question' | 'decision' | 'action';

/** Share of turns of each kind; about one statement in ten yields a decision, question or action item. */
function turnKind(random: Random): TurnKind {
  const roll = random.next();
  if (roll < 0.05) return 'decision';
  if (roll < 0.1) return 'question';
  if (roll < 0.145) return 'action';
  if (roll < 0.4) return 'filler';
  return 'status';
}

function addDecision(builder: MeetingBuilder, random: Random, speaker: GeneratedPerson | null, slots: Slots): number {
  const at = builder.say(speaker, fill(random.pick(DECISION_LINES), slots));
  if (random.chance(0.8)) {
    builder.doc.decisions.push({
      attribution: builder.who(speaker),
      text: fill(random.pick(DECISION_RECORDS), slots),
      decidedAt: at,
      status: random.chance(0.1) ? 'superseded' : 'confirmed',
    });
  }
  return 1;
}

function addQuestion(builder: MeetingBuilder, random: Random, speaker: GeneratedPerson | null, slots: Slots): number {
  const at = builder.say(speaker, fill(random.pick(QUESTION_LINES), slots));
  if (random.chance(0.5)) {
    builder.doc.openQuestions.push({
      attribution: builder.who(speaker),
      text: fill(random.pick(QUESTION_RECORDS), slots),
      raisedAt: at,
      status: random.chance(0.4) ? 'resolved' : 'open',
    });
  }
  return 1;
}

/** An ask, usually acknowledged in the next turn by the person asked; returns how many statements it took. */
function addAction(
  builder: MeetingBuilder,
  random: Random,
  speaker: GeneratedPerson | null,
  slots: Slots,
  room: number,
): number {
  const at = builder.say(speaker, fill(random.pick(ACTION_LINES), slots));
  const assignee = builder.personNamed(slots.p) ?? null;
  let turns = 1;
  if (assignee && room > 1 && random.chance(0.7)) {
    builder.say(assignee, fill(random.pick(ACKNOWLEDGE_LINES), slots));
    turns += 1;
  }
  if (random.chance(0.9)) {
    const due = random.chance(0.7) ? timestamp(Date.parse(at) + random.int(2, 14) * DAY_MS).slice(0, 10) : null;
    builder.doc.actionItems.push({
      attribution: builder.who(speaker),
      text: fill(random.pick(ACTION_RECORDS), slots),
      createdAt: at,
      assignee: assignee ? personAttribution(assignee) : null,
      dueDate: due,
      status: random.chance(0.5) ? 'done' : 'open',
    });
  }
  return turns;
}

function addTopics(builder: MeetingBuilder, random: Random, projects: ProjectVocabulary[], accounts: string[]): void {
  const raisedBy = (): Attribution => builder.doc.statements[0]?.attribution ?? builder.doc.meeting.organizer;
  const topic = (name: string, kind: Topic['kind']) => builder.doc.topics.push({ name, kind, attribution: raisedBy() });
  for (const project of projects) topic(project.name, 'project');
  for (const account of accounts) topic(account, 'account');
  if (random.chance(0.3)) topic(random.zipf(THEMES), 'theme');
}

/**
 * The index-th meeting of the deployment, with at most `maxStatements` statements. Each meeting draws from its own
 * stream (seed, index), so any meeting can be rebuilt alone and batch sizes do not change the content.
 */
export function generateMeeting(
  spec: DeploymentSpec,
  people: GeneratedPerson[],
  index: number,
  maxStatements: number,
): MeetingDocument {
  const random = new Random(spec.seed, index, 0x3ee7);
  const kind = random.pick(MEETING_KINDS);
  const projects = distinctZipf(random, PROJECTS, kind.projects);
  const isCustomerCall = kind.title === 'Customer call';
  const accounts = distinctZipf(random, ACCOUNTS, isCustomerCall ? 1 : random.int(0, 2));
  const participants = distinctZipf(random, people, random.int(3, isCustomerCall ? 5 : 9));
  const estimatedMeetings = Math.max(1, Math.ceil(spec.statements / AVERAGE_TURNS));
  const day = businessDay(Math.floor((index * BUSINESS_DAYS) / estimatedMeetings));
  const startedAt = day + (8 * 60 + random.int(0, 36) * 15) * 60_000;
  const title = isCustomerCall ? `${accounts[0] ?? 'Customer'} check-in` : `${projects[0]?.name ?? 'Team'}: ${kind.title}`;
  const builder = new MeetingBuilder(random, people, participants, projects, accounts, isCustomerCall && random.chance(0.5), startedAt, {
    externalId: `bench-${spec.seed}-${index}`,
    title,
  });
  const turns = Math.min(maxStatements, random.int(kind.minTurns, kind.maxTurns));
  for (let said = 0; said < turns; ) {
    const speaker = builder.speaker();
    const slots = builder.slots(speaker);
    const kindOfTurn = turnKind(random);
    if (kindOfTurn === 'decision') said += addDecision(builder, random, speaker, slots);
    else if (kindOfTurn === 'question') said += addQuestion(builder, random, speaker, slots);
    else if (kindOfTurn === 'action') said += addAction(builder, random, speaker, slots, turns - said);
    else {
      const line =
        kindOfTurn === 'filler' ? random.pick(FILLER_LINES) : `${fill(random.pick(STATUS_LINES), slots)}${ticketMention(random)}`;
      builder.say(speaker, line);
      said += 1;
    }
  }
  addTopics(builder, random, projects, accounts);
  return builder.finish();
}

/** Every meeting of the deployment in order, until exactly `spec.statements` statements have been said. */
export function* generateMeetings(spec: DeploymentSpec, people = generatePeople(spec.seed)): Generator<MeetingDocument> {
  let said = 0;
  for (let index = 0; said < spec.statements; index += 1) {
    const doc = generateMeeting(spec, people, index, spec.statements - said);
    said += doc.statements.length;
    yield doc;
  }
}

/** The meetings in batches, so a million statements never sit in memory at once. */
export function* meetingBatches(spec: DeploymentSpec, batchSize: number): Generator<MeetingDocument[]> {
  let batch: MeetingDocument[] = [];
  for (const doc of generateMeetings(spec)) {
    batch.push(doc);
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

export function emptyCounts(): RecordCounts {
  return { meetings: 0, participants: 0, statements: 0, decisions: 0, openQuestions: 0, actionItems: 0, topicLinks: 0 };
}

/** Adds what one meeting document holds to the running counts. */
export function countInto(counts: RecordCounts, doc: MeetingDocument): RecordCounts {
  counts.meetings += 1;
  counts.participants += doc.participants.length;
  counts.statements += doc.statements.length;
  counts.decisions += doc.decisions.length;
  counts.openQuestions += doc.openQuestions.length;
  counts.actionItems += doc.actionItems.length;
  counts.topicLinks += doc.topics.length;
  return counts;
}
