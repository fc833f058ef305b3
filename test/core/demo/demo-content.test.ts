import { describe, expect, it } from 'vitest';
import { Attribution, DateOnly, Timestamp } from '../../../src/contract/index.js';
import {
  DEMO_DEPLOYMENTS,
  GUEST,
  demoDocuments,
  supportIndexes,
  turnTimes,
  type DemoDeploymentContent,
  type DemoMeeting,
} from '../../../src/core/demo/index.js';

type Meeting = DemoMeeting<string, string>;
type AnyRecord = Meeting['decisions'][number] | Meeting['openQuestions'][number] | Meeting['actionItems'][number];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const [ATLAS, JUNIPER] = DEMO_DEPLOYMENTS as [DemoDeploymentContent, DemoDeploymentContent];

function records(meeting: Meeting): AnyRecord[] {
  return [...meeting.decisions, ...meeting.openQuestions, ...meeting.actionItems];
}

function all<T>(content: DemoDeploymentContent, pick: (meeting: Meeting) => readonly T[]): T[] {
  return content.meetings.flatMap(pick);
}

function meetingOf(content: DemoDeploymentContent, externalId: string): Meeting {
  const meeting = content.meetings.find((m) => m.externalId === externalId);
  if (!meeting) throw new Error(`no meeting ${externalId}`);
  return meeting;
}

function statementCount(content: DemoDeploymentContent): number {
  return all(content, (m) => m.turns).length;
}

describe('demo content: volume', () => {
  it('has Atlas and Juniper with the meetings and statements the demo promises', () => {
    expect(DEMO_DEPLOYMENTS.map((d) => [d.name, d.platform])).toEqual([
      ['Atlas', 'teams'],
      ['Juniper', 'zoom'],
    ]);
    expect(ATLAS.meetings.length).toBeGreaterThanOrEqual(6);
    expect(JUNIPER.meetings.length).toBeGreaterThanOrEqual(3);
    expect(statementCount(ATLAS)).toBeGreaterThanOrEqual(230);
    expect(statementCount(JUNIPER)).toBeGreaterThanOrEqual(95);
    expect(statementCount(ATLAS) + statementCount(JUNIPER)).toBeGreaterThanOrEqual(300);
  });

  it('gives Atlas enough decisions, questions, action items and topics, in every state', () => {
    const decisions = all(ATLAS, (m) => m.decisions);
    const questions = all(ATLAS, (m) => m.openQuestions);
    const items = all(ATLAS, (m) => m.actionItems);
    expect(decisions.length).toBeGreaterThanOrEqual(15);
    expect(decisions.some((d) => d.supersededBy !== undefined)).toBe(true);
    expect(questions.length).toBeGreaterThanOrEqual(10);
    expect(questions.filter((q) => q.resolvedBy !== undefined).length).toBeGreaterThanOrEqual(3);
    expect(questions.filter((q) => q.resolvedBy === undefined).length).toBeGreaterThanOrEqual(2);
    expect(items.length).toBeGreaterThanOrEqual(15);
    expect(items.filter((i) => i.doneBy !== undefined).length).toBeGreaterThanOrEqual(3);
    expect(items.filter((i) => i.doneBy === undefined).length).toBeGreaterThanOrEqual(3);
    expect(items.filter((i) => i.due !== null).length).toBeGreaterThanOrEqual(5);
    expect(items.filter((i) => i.due === null).length).toBeGreaterThanOrEqual(1);
    expect(Object.keys(ATLAS.topics).length).toBeGreaterThanOrEqual(8);
  });

  it('gives Juniper records of every kind too', () => {
    expect(all(JUNIPER, (m) => m.decisions).length).toBeGreaterThanOrEqual(5);
    expect(all(JUNIPER, (m) => m.openQuestions).length).toBeGreaterThanOrEqual(3);
    expect(all(JUNIPER, (m) => m.actionItems).length).toBeGreaterThanOrEqual(5);
    expect(Object.keys(JUNIPER.topics).length).toBeGreaterThanOrEqual(4);
  });

  it('has topics of every kind, several of them spanning meetings', () => {
    for (const content of DEMO_DEPLOYMENTS) {
      const kinds = new Set(Object.values(content.topics).map((t) => t.kind));
      expect([...kinds].sort()).toEqual(['account', 'project', 'theme']);
      const spanning = Object.keys(content.topics).filter(
        (key) => content.meetings.filter((m) => m.topics.includes(key)).length > 1,
      );
      expect(spanning.length).toBeGreaterThanOrEqual(3);
    }
  });
});

describe('demo content: people', () => {
  it('has 5 to 8 named people per deployment with distinct UUID ids, nobody shared', () => {
    const ids = DEMO_DEPLOYMENTS.flatMap((content) => {
      const people = Object.values(content.people);
      expect(people.length).toBeGreaterThanOrEqual(5);
      expect(people.length).toBeLessThanOrEqual(8);
      return people.map((p) => p.idpId);
    });
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('names only known people, and every speaker, author and assignee took part in the meeting', () => {
    for (const content of DEMO_DEPLOYMENTS) {
      for (const meeting of content.meetings) {
        const present = new Set<string>([...meeting.participants, GUEST]);
        for (const key of meeting.participants) expect(content.people[key], key).toBeDefined();
        expect(meeting.participants).toContain(meeting.organizer);
        for (const [speaker] of meeting.turns) expect(present.has(speaker), `${meeting.externalId} ${speaker}`).toBe(true);
        for (const record of records(meeting)) expect(present.has(record.by), record.key).toBe(true);
        for (const item of meeting.actionItems) {
          if (item.assignee !== null) expect(meeting.participants, item.key).toContain(item.assignee);
        }
      }
    }
  });

  it('has anonymous dial-in statements and records in both deployments', () => {
    for (const content of DEMO_DEPLOYMENTS) {
      expect(all(content, (m) => m.turns).filter(([speaker]) => speaker === GUEST).length).toBeGreaterThanOrEqual(3);
    }
    expect(all(ATLAS, records).some((r) => r.by === GUEST)).toBe(true);
  });
});

describe('demo content: time', () => {
  const meetings = DEMO_DEPLOYMENTS.flatMap((content) => content.meetings);

  it('spreads meetings over about six weeks of autumn 2026, oldest first, with well-formed times', () => {
    for (const content of DEMO_DEPLOYMENTS) {
      const starts = content.meetings.map((m) => m.startedAt);
      expect(starts).toEqual([...starts].sort());
    }
    for (const meeting of meetings) {
      expect(Timestamp.safeParse(meeting.startedAt).success).toBe(true);
      expect(Timestamp.safeParse(meeting.endedAt).success).toBe(true);
      expect(meeting.startedAt < meeting.endedAt).toBe(true);
      expect(meeting.startedAt >= '2026-09-01' && meeting.endedAt < '2026-10-16').toBe(true);
    }
    const first = Math.min(...meetings.map((m) => Date.parse(m.startedAt)));
    const last = Math.max(...meetings.map((m) => Date.parse(m.startedAt)));
    expect((last - first) / 86_400_000).toBeGreaterThanOrEqual(35);
  });

  it('spaces statements seconds to minutes apart, inside the meeting', () => {
    for (const meeting of meetings) {
      const times = turnTimes(meeting).map((t) => {
        expect(Timestamp.safeParse(t).success).toBe(true);
        return Date.parse(t);
      });
      expect(times[0]).toBeGreaterThan(Date.parse(meeting.startedAt));
      expect(times.at(-1)).toBeLessThan(Date.parse(meeting.endedAt));
      for (let i = 1; i < times.length; i += 1) {
        const gap = (times[i] ?? 0) - (times[i - 1] ?? 0);
        expect(gap).toBeGreaterThanOrEqual(3000);
        expect(gap).toBeLessThanOrEqual(10 * 60_000);
      }
    }
  });

  it('sets due dates that are real days on or after the meeting', () => {
    for (const meeting of meetings) {
      for (const item of meeting.actionItems) {
        if (item.due === null) continue;
        expect(DateOnly.safeParse(item.due).success, item.key).toBe(true);
        expect(item.due >= meeting.startedAt.slice(0, 10), item.key).toBe(true);
      }
    }
  });
});

describe('demo content: every record is supported by what people said', () => {
  it('cites at least one statement of its own meeting, spoken by its author when the author is a person', () => {
    for (const content of DEMO_DEPLOYMENTS) {
      for (const meeting of content.meetings) {
        for (const record of records(meeting)) {
          const support = supportIndexes(meeting, record.support);
          expect(record.support.length, record.key).toBeGreaterThan(0);
          for (const label of record.support) {
            expect(supportIndexes(meeting, [label]).length, `${record.key} ${label}`).toBeGreaterThan(0);
          }
          const speakers = support.map((index) => meeting.turns[index]?.[0]);
          expect(speakers, record.key).toContain(record.by);
        }
      }
    }
  });

  it('says the record in other words than the statements that support it', () => {
    for (const content of DEMO_DEPLOYMENTS) {
      for (const meeting of content.meetings) {
        for (const record of records(meeting)) {
          for (const index of supportIndexes(meeting, record.support)) {
            expect(meeting.turns[index]?.[1], record.key).not.toBe(record.text);
          }
        }
      }
    }
  });

  it('backs every resolution, completion and reversal with statements of a meeting not before it', () => {
    for (const content of DEMO_DEPLOYMENTS) {
      const decisions = new Map(content.meetings.flatMap((m) => m.decisions.map((d) => [d.key, { d, m }] as const)));
      for (const meeting of content.meetings) {
        const followUps = [
          ...meeting.openQuestions.map((q) => ({ record: q, followUp: q.resolvedBy })),
          ...meeting.actionItems.map((i) => ({ record: i, followUp: i.doneBy })),
        ];
        for (const { record, followUp } of followUps) {
          if (followUp === undefined) continue;
          const later = meetingOf(content, followUp.meeting);
          expect(later.startedAt >= meeting.startedAt, record.key).toBe(true);
          const said = supportIndexes(later, followUp.support);
          expect(said.length, record.key).toBeGreaterThan(0);
          if (later === meeting) {
            expect(Math.min(...said), record.key).toBeGreaterThan(Math.max(...supportIndexes(meeting, record.support)));
          }
        }
        for (const decision of meeting.decisions) {
          if (decision.supersededBy === undefined) continue;
          const successor = decisions.get(decision.supersededBy);
          expect(successor, decision.key).toBeDefined();
          expect((successor?.m.startedAt ?? '') > meeting.startedAt, decision.key).toBe(true);
          expect(successor?.d.supersededBy).toBeUndefined();
        }
      }
    }
  });

  it('cites every labelled statement from some record, so no label is left dangling', () => {
    for (const content of DEMO_DEPLOYMENTS) {
      const cited = new Set<string>();
      for (const meeting of content.meetings) {
        for (const record of records(meeting)) {
          for (const label of record.support) cited.add(`${meeting.externalId}#${label}`);
        }
        for (const record of [...meeting.openQuestions.map((q) => q.resolvedBy), ...meeting.actionItems.map((i) => i.doneBy)]) {
          for (const label of record?.support ?? []) cited.add(`${record?.meeting}#${label}`);
        }
      }
      for (const meeting of content.meetings) {
        for (const [, , marks] of meeting.turns) {
          if (marks?.ref !== undefined) expect(cited).toContain(`${meeting.externalId}#${marks.ref}`);
        }
      }
    }
  });

  it('mentions every topic in each meeting that touches it, raised by someone in its first meeting', () => {
    for (const content of DEMO_DEPLOYMENTS) {
      for (const [key, topic] of Object.entries(content.topics)) {
        const touching = content.meetings.filter((m) => m.topics.includes(key));
        expect(touching.length, key).toBeGreaterThan(0);
        expect(touching[0]?.participants, key).toContain(topic.raisedBy);
        for (const meeting of touching) {
          const mentioned = meeting.turns.some(([, text]) => topic.cues.some((cue) => text.toLowerCase().includes(cue)));
          expect(mentioned, `${key} in ${meeting.externalId}`).toBe(true);
        }
      }
      for (const meeting of content.meetings) {
        for (const key of meeting.topics) expect(content.topics[key], key).toBeDefined();
      }
    }
  });

  it('keeps record keys, record texts and meeting ids unique', () => {
    const keys = DEMO_DEPLOYMENTS.flatMap((content) => all(content, records).map((r) => r.key));
    expect(new Set(keys).size).toBe(keys.length);
    const meetingIds = DEMO_DEPLOYMENTS.flatMap((content) => content.meetings.map((m) => m.externalId));
    expect(new Set(meetingIds).size).toBe(meetingIds.length);
    for (const content of DEMO_DEPLOYMENTS) {
      const texts = all(content, records).map((r) => r.text);
      expect(new Set(texts).size).toBe(texts.length);
    }
  });
});

describe('demo content: the documents the store imports', () => {
  it('carries every statement and record with its state, valid attributions and timestamps', () => {
    for (const content of DEMO_DEPLOYMENTS) {
      const docs = demoDocuments(content);
      expect(docs.map((d) => d.meeting.externalId)).toEqual(content.meetings.map((m) => m.externalId));
      docs.forEach((doc, index) => {
        const meeting = content.meetings[index] as Meeting;
        expect(doc.statements.map((s) => s.text)).toEqual(meeting.turns.map(([, text]) => text));
        const attributions = [
          doc.meeting.organizer,
          ...doc.participants,
          ...doc.statements.map((s) => s.attribution),
          ...doc.decisions.map((d) => d.attribution),
          ...doc.topics.map((t) => t.attribution),
        ];
        for (const attribution of attributions) expect(Attribution.safeParse(attribution).success).toBe(true);
        const stamps = [
          ...doc.statements.map((s) => s.spokenAt),
          ...doc.decisions.map((d) => d.decidedAt),
          ...doc.openQuestions.map((q) => q.raisedAt),
          ...doc.actionItems.map((a) => a.createdAt),
        ];
        for (const stamp of stamps) {
          expect(Timestamp.safeParse(stamp).success).toBe(true);
          expect(stamp >= doc.meeting.startedAt && stamp < (doc.meeting.endedAt ?? '')).toBe(true);
        }
        expect(doc.decisions.map((d) => d.status)).toEqual(
          meeting.decisions.map((d) => (d.supersededBy ? 'superseded' : 'confirmed')),
        );
        expect(doc.openQuestions.map((q) => q.status)).toEqual(
          meeting.openQuestions.map((q) => (q.resolvedBy ? 'resolved' : 'open')),
        );
        expect(doc.actionItems.map((a) => a.status)).toEqual(meeting.actionItems.map((a) => (a.doneBy ? 'done' : 'open')));
      });
    }
  });

  it('dates each record at the last statement that settled it and attributes a guest anonymously', () => {
    const meeting = meetingOf(ATLAS, 'atlas-2026-09-10-halvorsen');
    const doc = demoDocuments(ATLAS)[ATLAS.meetings.indexOf(meeting)];
    const question = doc?.openQuestions.find((q) => q.text.startsWith('Which second EU location'));
    const support = supportIndexes(meeting, ['second-copy']);
    expect(question?.raisedAt).toBe(doc?.statements[support.at(-1) ?? -1]?.spokenAt);
    expect(question?.attribution).toEqual({ kind: 'anonymous' });
    expect(doc?.participants).toContainEqual({ kind: 'anonymous' });
  });

  it('is deterministic: fixed times from the meeting start, the same documents on every build', () => {
    expect(demoDocuments(ATLAS)[0]?.statements[0]?.spokenAt).toBe('2026-09-01T15:01:30Z');
    for (const content of DEMO_DEPLOYMENTS) expect(demoDocuments(content)).toEqual(demoDocuments(content));
  });

  it('shares some words between the deployments, so isolation tests can search them', () => {
    for (const content of DEMO_DEPLOYMENTS) {
      expect(all(content, (m) => m.turns).some(([, text]) => /\brenewal\b/i.test(text))).toBe(true);
    }
  });
});
