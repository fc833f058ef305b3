import { describe, expect, it } from 'vitest';
import { readLines } from '../../../src/core/ingest/lines.js';
import { createOrderedIds } from '../../../src/core/ingest/ordered-ids.js';
import { nameBasedPersonId } from '../../../src/core/ingest/speakers.js';
import { createWebVttParser, voicesOf, type Cue } from '../../../src/core/ingest/webvtt.js';
import { HttpProblem } from '../../../src/core/server/problem.js';

function parse(text: string): Cue[] {
  const cues: Cue[] = [];
  const parser = createWebVttParser((cue) => cues.push(cue));
  const lines = text.split('\n');
  lines.forEach((line, index) => parser.line(line, index + 1));
  parser.end(lines.length);
  return cues;
}

async function collect(chunks: string[], maxLineChars = 100): Promise<string[]> {
  async function* source() {
    for (const chunk of chunks) yield Buffer.from(chunk);
  }
  const lines: string[] = [];
  for await (const line of readLines(source(), { maxLineChars, maxBytes: 1 << 20 })) lines.push(`${line.number}:${line.text}`);
  return lines;
}

describe('voices of a cue', () => {
  it('splits Teams voice tags, with classes, without closing tags and several in one cue', () => {
    expect(voicesOf(['<v.loud Ana Silva>Stop</v> <v Bo>What?</v>'])).toEqual([
      { speaker: 'Ana Silva', text: 'Stop' },
      { speaker: 'Bo', text: 'What?' },
    ]);
    expect(voicesOf(['<v Ana Silva>no closing tag', 'on two lines'])).toEqual([{ speaker: 'Ana Silva', text: 'no closing tag on two lines' }]);
  });

  it('drops markup and inline timestamps and decodes entities', () => {
    expect(voicesOf(['<v Ana><c.yellow>Q&amp;A</c> at <00:00:01.500><i>five</i> &lt;sharp&gt;&#33;</v>'])).toEqual([
      { speaker: 'Ana', text: 'Q&A at five <sharp>!' },
    ]);
  });

  it('reads Zoom speakers from `Name: text` and continues them on lines without a name', () => {
    expect(voicesOf(['Ana Silva: first', 'still Ana', 'Bo Chen: second'])).toEqual([
      { speaker: 'Ana Silva', text: 'first still Ana' },
      { speaker: 'Bo Chen', text: 'second' },
    ]);
    expect(voicesOf(['see https://example.com/a:b', '10: 30 people came'])).toEqual([
      { speaker: null, text: 'see https://example.com/a:b 10: 30 people came' },
    ]);
  });
});

describe('WebVTT structure', () => {
  it('reads header, identifiers, settings, hours-less times, and skips NOTE and STYLE blocks', () => {
    const cues = parse(
      'WEBVTT - exported\nKind: captions\n\nSTYLE\n::cue { color: red }\n\nNOTE a note\nspanning lines\n\nc1\n01:02.500 --> 01:04.000 align:start\n<v A>hi</v>\n\n\n10:00:00.000 --> 10:00:01.000\n<v B>late</v>',
    );
    expect(cues).toEqual([
      { line: 11, startMs: 62_500, endMs: 64_000, voices: [{ speaker: 'A', text: 'hi' }] },
      { line: 15, startMs: 36_000_000, endMs: 36_001_000, voices: [{ speaker: 'B', text: 'late' }] },
    ]);
  });

  it('skips empty cues and refuses bad timings with the line', () => {
    expect(parse('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n\n00:00:03.000 --> 00:00:04.000\n<v A>x</v>')).toHaveLength(1);
    for (const [text, line] of [
      ['WEBVTT\n\n00:00:61.000 --> 00:00:62.000\nx', 3],
      ['WEBVTT\n\n00:00:01.000 -> 00:00:02.000\nx', 3],
      ['WEBVTT\n\nid\n\n', 4],
    ] as const) {
      try {
        parse(text);
        expect.unreachable(text);
      } catch (error) {
        expect(error).toBeInstanceOf(HttpProblem);
        expect((error as HttpProblem).invalidParams![0]!.reason).toMatch(new RegExp(`^line ${line}: `));
      }
    }
  });
});

describe('lines of a stream', () => {
  it('splits LF, CRLF and CR, also when a CRLF or a character is split across chunks, and drops a BOM', async () => {
    expect(await collect(['\uFEFFa\r', '\nb\rc\n', 'd'])).toEqual(['1:a', '2:b', '3:c', '4:d']);
    const euro = Buffer.from('x€y\n');
    async function* split() {
      yield euro.subarray(0, 2);
      yield euro.subarray(2);
    }
    const lines: string[] = [];
    for await (const line of readLines(split(), { maxLineChars: 10, maxBytes: 100 })) lines.push(line.text);
    expect(lines).toEqual(['x€y']);
  });

  it('refuses a line longer than the cap, with its number, and a stream over the byte cap with 413', async () => {
    await expect(collect(['ok\n', 'x'.repeat(150)])).rejects.toMatchObject({ invalidParams: [{ reason: 'line 2: the line is longer than 100 characters' }] });
    async function* big() {
      yield Buffer.alloc(60, 0x61);
      yield Buffer.alloc(60, 0x61);
    }
    const read = async () => {
      for await (const _ of readLines(big(), { maxLineChars: 1000, maxBytes: 100 })) void _;
    };
    await expect(read()).rejects.toMatchObject({ status: 413 });
  });
});

describe('ids', () => {
  it('makes time-ordered UUIDv7 ids that sort in creation order even within one millisecond', () => {
    const next = createOrderedIds(() => 1_700_000_000_000);
    const ids = Array.from({ length: 10_000 }, () => next());
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('gives a speaker known only by name the same version-5 id per tenant, whatever the spacing or case', () => {
    const tenant = '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d';
    expect(nameBasedPersonId(tenant, 'Ana  Silva ')).toBe(nameBasedPersonId(tenant, 'ana silva'));
    expect(nameBasedPersonId(tenant, 'Ana Silva')).not.toBe(nameBasedPersonId('1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed', 'Ana Silva'));
  });
});
