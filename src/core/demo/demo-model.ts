import type { Attribution, Deployment, Topic } from '../../contract/index.js';
import type { MeetingDocument } from '../store/store.js';

/** The speaker key of a dial-in guest; their statements and records are anonymous. */
export const GUEST = 'guest';
export type Speaker<P extends string> = P | typeof GUEST;

/** A named person of a demo deployment, with a stable identity-provider object id. */
export interface DemoPerson {
  displayName: string;
  idpId: string;
  role: string;
}

/** What a turn carries besides speaker and text. */
export interface TurnMarks {
  /** A label records cite to name this statement as their support; several turns may share one label. */
  ref?: string;
  /** Seconds of uncaptured discussion before this turn (a change of subject), instead of the usual short gap. */
  pause?: number;
}

/** One speaker turn, in transcript order: who spoke, what they said, optional marks. */
export type DemoTurn<P extends string> = readonly [speaker: Speaker<P>, text: string, marks?: TurnMarks];

/** Statements of a later (or the same) meeting that show a record's state changed. */
export interface FollowUp {
  /** `externalId` of the meeting in which it happened. */
  meeting: string;
  support: readonly string[];
}

interface DemoRecord<P extends string> {
  /** Stable, unique within the deployment, so evaluations can name the record they expect. */
  key: string;
  by: Speaker<P>;
  text: string;
  /** Turn labels (`TurnMarks.ref`) of this meeting whose statements say what the record says. */
  support: readonly string[];
}

export interface DemoDecision<P extends string> extends DemoRecord<P> {
  /** Key of the later decision that reversed this one; its presence makes the status `superseded`. */
  supersededBy?: string;
}

export interface DemoQuestion<P extends string> extends DemoRecord<P> {
  /** Where the question was answered; its presence makes the status `resolved`. */
  resolvedBy?: FollowUp;
}

export interface DemoActionItem<P extends string> extends DemoRecord<P> {
  assignee: P | null;
  due: string | null;
  /** Where the work was reported done; its presence makes the status `done`. */
  doneBy?: FollowUp;
}

export interface DemoTopic<P extends string> {
  name: string;
  kind: Topic['kind'];
  /** Who first raised it: a participant of the first meeting that touched it. */
  raisedBy: P;
  /** Lowercase fragments, one of which a statement of every meeting touching the topic contains. */
  cues: readonly string[];
}

export interface DemoMeeting<P extends string, T extends string> {
  externalId: string;
  title: string;
  startedAt: string;
  endedAt: string;
  organizer: P;
  /** Identified participants; a guest is added when one speaks. */
  participants: readonly P[];
  topics: readonly T[];
  turns: readonly DemoTurn<P>[];
  decisions: readonly DemoDecision<P>[];
  openQuestions: readonly DemoQuestion<P>[];
  actionItems: readonly DemoActionItem<P>[];
}

/** Everything one demo teammate remembers, in a hand-written form that says why each record exists. */
export interface DemoDeploymentContent<P extends string = string, T extends string = string> {
  name: string;
  platform: Deployment['platform'];
  voice: string;
  people: Readonly<Record<P, DemoPerson>>;
  topics: Readonly<Record<T, DemoTopic<P>>>;
  meetings: readonly DemoMeeting<P, T>[];
}

/** Seconds between joining and the first captured statement. */
const FIRST_TURN_OFFSET = 90;
/** Speaking pace used to space statements: about 155 words a minute. */
const WORDS_PER_SECOND = 2.6;

function toTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A short, varying silence between turns (2 to 22 seconds), the same on every build. */
function pauseBefore(index: number): number {
  return 2 + ((index * 7) % 11) * 2;
}

/** When each turn of a meeting starts: spaced by speaking time, a short varying gap, and any marked pause. */
export function turnTimes(meeting: DemoMeeting<string, string>): string[] {
  const times: string[] = [];
  let at = Date.parse(meeting.startedAt) + FIRST_TURN_OFFSET * 1000;
  meeting.turns.forEach(([, text, marks], index) => {
    if (index > 0) at += (marks?.pause ?? pauseBefore(index)) * 1000;
    times.push(toTimestamp(at));
    at += Math.max(3, Math.round(text.split(/\s+/).length / WORDS_PER_SECOND)) * 1000;
  });
  return times;
}

/** Indexes of the turns carrying any of the labels, in transcript order. */
export function supportIndexes(meeting: DemoMeeting<string, string>, labels: readonly string[]): number[] {
  const indexes: number[] = [];
  meeting.turns.forEach(([, , marks], index) => {
    if (marks?.ref !== undefined && labels.includes(marks.ref)) indexes.push(index);
  });
  return indexes;
}

/** The attribution of a speaker: the person's platform identity, or anonymous for a guest. */
export function attributionOf(content: DemoDeploymentContent, speaker: string): Attribution {
  if (speaker === GUEST) return { kind: 'anonymous' };
  const person = content.people[speaker];
  if (!person) throw new Error(`demo content names an unknown person: ${speaker}`);
  return { kind: 'platform_identity', display_name: person.displayName, idp_id: person.idpId };
}

/** A record takes the time of its last supporting statement: the moment it was settled. */
function settledAt(meeting: DemoMeeting<string, string>, times: string[], support: readonly string[]): string {
  const last = supportIndexes(meeting, support).at(-1);
  const time = last === undefined ? undefined : times[last];
  if (time === undefined) throw new Error(`${meeting.externalId}: no statement carries ${support.join(', ')}`);
  return time;
}

/** Turns one hand-written meeting into the document the store imports. */
export function buildMeetingDocument(
  content: DemoDeploymentContent,
  meeting: DemoMeeting<string, string>,
): MeetingDocument {
  const who = (speaker: string): Attribution => attributionOf(content, speaker);
  const times = turnTimes(meeting);
  const at = (support: readonly string[]): string => settledAt(meeting, times, support);
  const guestSpoke = meeting.turns.some(([speaker]) => speaker === GUEST);
  return {
    meeting: {
      externalId: meeting.externalId,
      title: meeting.title,
      platform: content.platform,
      startedAt: meeting.startedAt,
      endedAt: meeting.endedAt,
      organizer: who(meeting.organizer),
    },
    participants: [...meeting.participants.map(who), ...(guestSpoke ? [who(GUEST)] : [])],
    statements: meeting.turns.map(([speaker, text], index) => ({
      attribution: who(speaker),
      text,
      spokenAt: times[index] ?? meeting.startedAt,
    })),
    decisions: meeting.decisions.map((decision) => ({
      attribution: who(decision.by),
      text: decision.text,
      decidedAt: at(decision.support),
      status: decision.supersededBy === undefined ? 'confirmed' : 'superseded',
    })),
    openQuestions: meeting.openQuestions.map((question) => ({
      attribution: who(question.by),
      text: question.text,
      raisedAt: at(question.support),
      status: question.resolvedBy === undefined ? 'open' : 'resolved',
    })),
    actionItems: meeting.actionItems.map((item) => ({
      attribution: who(item.by),
      text: item.text,
      createdAt: at(item.support),
      assignee: item.assignee === null ? null : who(item.assignee),
      dueDate: item.due,
      status: item.doneBy === undefined ? 'open' : 'done',
    })),
    topics: meeting.topics.map((key) => {
      const topic = content.topics[key];
      if (!topic) throw new Error(`${meeting.externalId}: unknown topic ${key}`);
      return { name: topic.name, kind: topic.kind, attribution: who(topic.raisedBy) };
    }),
  };
}

/** Every meeting of a demo deployment as importable documents, oldest first. */
export function demoDocuments(content: DemoDeploymentContent): MeetingDocument[] {
  return content.meetings.map((meeting) => buildMeetingDocument(content, meeting));
}
