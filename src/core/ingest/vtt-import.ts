import { createHash } from 'node:crypto';
import type { Attribution, Deployment } from '../../contract/index.js';
import type { MeetingStaging, Scope, StagedStatement, Store } from '../store/store.js';
import { readLines } from './lines.js';
import { malformed } from './malformed.js';
import { meetingDocument } from './meeting-document.js';
import { createOrderedIds } from './ordered-ids.js';
import { SpeakerDirectory, SpeakerLimitError } from './speakers.js';
import { createWebVttParser, type Cue } from './webvtt.js';

/** What a transcript does not say about its meeting, from the import's query (or the CLI's flags and sidecar). */
export interface TranscriptMeta {
  title: string;
  startedAt: string;
  endedAt?: string;
  platform: Deployment['platform'];
  organizer?: string;
  externalId?: string;
}

export interface ImportOutcome {
  meetingId: string;
  created: boolean;
  externalId: string;
}

/** Statements are staged in batches of this many, which bounds what the parser holds between writes. */
const BATCH = 500;
const MAX_LINE_CHARS = 64 * 1024;

function offset(startedAt: string, ms: number): string {
  return new Date(Date.parse(startedAt) + Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Turns parsed cues into staged statements, one per speaker turn, with time-ordered ids. */
class CueStager {
  private readonly ids = createOrderedIds();
  private cues: Cue[] = [];
  statements = 0;
  lastEndMs = 0;

  constructor(
    private readonly staging: MeetingStaging,
    readonly speakers: SpeakerDirectory,
    private readonly startedAt: string,
  ) {}

  push(cue: Cue): void {
    this.cues.push(cue);
  }

  get pending(): number {
    return this.cues.length;
  }

  async flush(): Promise<void> {
    const batch: StagedStatement[] = [];
    for (const cue of this.cues) {
      for (const voice of cue.voices) {
        batch.push({
          id: this.ids(),
          attribution: await this.attribute(voice.speaker, cue.line),
          text: voice.text,
          spokenAt: offset(this.startedAt, cue.startMs),
        });
      }
      this.lastEndMs = Math.max(this.lastEndMs, cue.endMs);
    }
    this.cues = [];
    if (batch.length > 0) await this.staging.add(batch);
    this.statements += batch.length;
  }

  private async attribute(speaker: string | null, line: number): Promise<Attribution> {
    try {
      return await this.speakers.resolve(speaker === null ? null : { name: speaker });
    } catch (error) {
      if (error instanceof SpeakerLimitError) throw malformed(line, error.message);
      throw error;
    }
  }
}

/**
 * Imports one WebVTT transcript (Teams voice tags or Zoom `Name:` lines) as a meeting of statements, reading the
 * body as it streams: lines are parsed one at a time and statements staged in batches, so memory stays bounded
 * whatever the file's size. The meeting and its statements are committed in one transaction at the end; a
 * malformed line refuses the file (400 with the line) and discards what was staged. Without an external id the
 * file's SHA-256 identifies the meeting, so importing the same file again changes nothing.
 */
export async function importWebVtt(
  store: Store,
  scope: Scope,
  body: AsyncIterable<Uint8Array>,
  meta: TranscriptMeta,
  maxBytes: number,
): Promise<ImportOutcome> {
  const staging = await store.stageMeeting(scope);
  const stager = new CueStager(staging, new SpeakerDirectory(store, scope.tenantId), meta.startedAt);
  const hash = createHash('sha256');
  const parser = createWebVttParser((cue) => stager.push(cue));
  let lastLine = 0;
  try {
    for await (const line of readLines(body, { maxLineChars: MAX_LINE_CHARS, maxBytes, onChunk: (chunk) => hash.update(chunk) })) {
      parser.line(line.text, line.number);
      lastLine = line.number;
      if (stager.pending >= BATCH) await stager.flush();
    }
    parser.end(lastLine);
    await stager.flush();
    if (stager.statements === 0) throw malformed(Math.max(1, lastLine), 'the transcript holds no cue with text');
    const externalId = meta.externalId ?? `webvtt-sha256:${hash.digest('hex')}`;
    const organizer = meta.organizer === undefined ? null : await stager.speakers.resolve({ name: meta.organizer });
    const participants = stager.speakers.participants();
    const doc = meetingDocument(
      {
        externalId,
        title: meta.title,
        platform: meta.platform,
        startedAt: meta.startedAt,
        endedAt: meta.endedAt ?? offset(meta.startedAt, stager.lastEndMs),
        organizer: organizer ?? participants[0] ?? { kind: 'anonymous' },
      },
      participants,
    );
    const { meetingId, created } = await staging.commit(doc);
    return { meetingId, created, externalId };
  } finally {
    await staging.discard();
  }
}
