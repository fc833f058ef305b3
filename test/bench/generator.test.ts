import { describe, expect, it } from 'vitest';
import { countInto, emptyCounts, generateMeetings, generatePeople, meetingBatches } from '../../bench/generate.js';

const spec = { seed: 7, statements: 3000 };

describe('bench deployment generator', () => {
  it('gives the same meetings for the same seed, whatever the batch size', () => {
    const once = JSON.stringify([...generateMeetings(spec)]);
    expect(JSON.stringify([...generateMeetings(spec)])).toBe(once);
    expect(JSON.stringify([...meetingBatches(spec, 7)].flat())).toBe(once);
    expect(JSON.stringify([...generateMeetings({ ...spec, seed: 8 })])).not.toBe(once);
  });

  it('says exactly the requested number of statements and yields records from about one in ten', () => {
    const counts = emptyCounts();
    for (const doc of generateMeetings(spec)) countInto(counts, doc);
    expect(counts.statements).toBe(3000);
    const records = counts.decisions + counts.openQuestions + counts.actionItems;
    expect(records / counts.statements).toBeGreaterThan(0.07);
    expect(records / counts.statements).toBeLessThan(0.13);
    expect(counts.decisions).toBeGreaterThan(0);
    expect(counts.openQuestions).toBeGreaterThan(0);
    expect(counts.actionItems).toBeGreaterThan(0);
    expect(counts.topicLinks).toBeGreaterThanOrEqual(counts.meetings);
  });

  it('keeps every statement and record inside its meeting, said by one of its participants', () => {
    for (const doc of generateMeetings(spec)) {
      const { startedAt, endedAt } = doc.meeting;
      const speakers = new Set(doc.participants.map((p) => p.idp_id ?? 'anonymous'));
      const times = [
        ...doc.statements.map((s) => s.spokenAt),
        ...doc.decisions.map((d) => d.decidedAt),
        ...doc.openQuestions.map((q) => q.raisedAt),
        ...doc.actionItems.map((a) => a.createdAt),
      ];
      for (const time of times) {
        expect(time >= startedAt && endedAt !== null && time <= endedAt).toBe(true);
        expect(time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      }
      for (const statement of doc.statements) expect(speakers.has(statement.attribution.idp_id ?? 'anonymous')).toBe(true);
      expect(doc.meeting.organizer).toEqual(doc.participants[0]);
    }
  });

  it('names each person once, the same way for a seed', () => {
    const people = generatePeople(7);
    expect(new Set(people.map((p) => p.displayName)).size).toBe(people.length);
    expect(generatePeople(7)).toEqual(people);
  });
});
