import { malformed } from './malformed.js';

/** What one speaker said in a cue; `speaker` is null when the cue names nobody. */
export interface Voice {
  speaker: string | null;
  text: string;
}

/** One cue of a transcript: its line, its times (milliseconds from the start) and who said what. */
export interface Cue {
  line: number;
  startMs: number;
  endMs: number;
  voices: Voice[];
}

/** Bounds that keep one cue's memory small whatever the file holds. */
export const CUE_LIMITS = { textChars: 20000, speakerChars: 200 } as const;

const TIMESTAMP = /^(?:(\d+):)?([0-5]\d):([0-5]\d)\.(\d{3})$/;
const TIMING = /^(\S+)[ \t]+-->[ \t]+(\S+)(?:[ \t].*)?$/;
/** A line that starts with a time is a timing line gone wrong (`->`, `,` for `.`), not a cue identifier. */
const LOOKS_TIMED = /^(?:\d+:)?\d{1,2}:\d{2}[.,]\d/;
/** Teams: `<v Ana Silva>text</v>`, also with classes (`<v.loud Ana>`) and without the closing tag. */
const VOICE_TAG = /<v(?:\.[^\s>]*)?[ \t]+([^>]*)>|<\/v>/g;
/** Zoom: `Ana Silva: text`; the colon must be followed by a space, so a URL or a clock time is not a speaker. */
const ZOOM_SPEAKER = /^([^:<>]{1,200}?):[ \t]+(\S.*)$/;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', lrm: '', rlm: '' };

function parseTimestamp(value: string): number | null {
  const match = TIMESTAMP.exec(value);
  if (!match) return null;
  const [, hours, minutes, seconds, millis] = match;
  return ((Number(hours ?? 0) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000 + Number(millis);
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Cue text as people read it: markup (`<c>`, `<i>`, inline timestamps) dropped, entities decoded, spacing collapsed. */
function plainText(markup: string): string {
  return decodeEntities(markup.replace(/<[^>]*>/g, '')).replace(/\s+/g, ' ').trim();
}

function cleanSpeaker(name: string): string | null {
  const cleaned = plainText(name);
  return cleaned === '' ? null : cleaned;
}

/** Splits a cue's payload at Teams voice tags; text outside any tag belongs to nobody. */
function teamsVoices(payload: string): Voice[] {
  const voices: Voice[] = [];
  let speaker: string | null = null;
  let from = 0;
  for (const match of payload.matchAll(VOICE_TAG)) {
    voices.push({ speaker, text: payload.slice(from, match.index) });
    speaker = match[1] === undefined ? null : cleanSpeaker(match[1]);
    from = match.index + match[0].length;
  }
  voices.push({ speaker, text: payload.slice(from) });
  return voices;
}

/** Zoom names the speaker at the start of a line; a line without a name continues the previous speaker. */
function zoomVoices(lines: string[]): Voice[] {
  let speaker: string | null = null;
  return lines.map((line) => {
    const match = ZOOM_SPEAKER.exec(line);
    if (match && !/^\s*\d+\s*$/.test(match[1]!)) {
      speaker = cleanSpeaker(match[1]!);
      return { speaker, text: match[2]! };
    }
    return { speaker, text: line };
  });
}

/** Who said what in a cue, consecutive parts of one speaker joined, empty parts dropped. */
export function voicesOf(payload: string[]): Voice[] {
  const joined = payload.join('\n');
  const raw = /<v[ \t.]/.test(joined) ? teamsVoices(joined) : zoomVoices(payload);
  const voices: Voice[] = [];
  for (const voice of raw) {
    const text = plainText(voice.text);
    if (text === '') continue;
    const last = voices.at(-1);
    if (last && last.speaker === voice.speaker) last.text = `${last.text} ${text}`;
    else voices.push({ speaker: voice.speaker, text });
  }
  return voices;
}

type State = 'signature' | 'header' | 'between' | 'timing' | 'payload' | 'skip';

/**
 * A WebVTT parser fed one line at a time, as Teams and Zoom export transcripts: the WEBVTT signature, an optional
 * header, then cues (an optional identifier, `start --> end` with optional settings, payload lines) separated by
 * blank lines; NOTE, STYLE and REGION blocks are skipped. Each complete cue goes to `onCue`. Anything else throws
 * a 400 naming the line and what is wrong with it.
 */
export function createWebVttParser(onCue: (cue: Cue) => void) {
  let state: State = 'signature';
  let cue: Cue | null = null;
  let payload: string[] = [];
  let payloadChars = 0;

  const finishCue = () => {
    if (cue) {
      const voices = voicesOf(payload);
      for (const voice of voices) {
        if (voice.speaker !== null && voice.speaker.length > CUE_LIMITS.speakerChars) {
          throw malformed(cue.line, `a speaker name is longer than ${CUE_LIMITS.speakerChars} characters`);
        }
      }
      if (voices.length > 0) onCue({ ...cue, voices });
    }
    cue = null;
    payload = [];
    payloadChars = 0;
  };

  const startCue = (text: string, number: number) => {
    const match = TIMING.exec(text);
    const startMs = match ? parseTimestamp(match[1]!) : null;
    const endMs = match ? parseTimestamp(match[2]!) : null;
    if (startMs === null || endMs === null) {
      throw malformed(number, `a cue timing must look like 00:01:02.345 --> 00:01:04.000, not "${text.slice(0, 80)}"`);
    }
    if (endMs < startMs) throw malformed(number, `the cue ends (${match![2]}) before it starts (${match![1]})`);
    cue = { line: number, startMs, endMs, voices: [] };
    state = 'payload';
  };

  const blockStart = (text: string, number: number) => {
    if (/^(NOTE)([ \t]|$)/.test(text) || text === 'STYLE' || text === 'REGION') state = 'skip';
    else if (text.includes('-->') || LOOKS_TIMED.test(text)) startCue(text, number);
    else state = 'timing';
  };

  return {
    line(text: string, number: number): void {
      const blank = text.trim() === '';
      switch (state) {
        case 'signature':
          if (!/^WEBVTT([ \t].*)?$/.test(text)) throw malformed(number, 'not a WebVTT file: the first line must be WEBVTT');
          state = 'header';
          return;
        case 'header':
        case 'skip':
          if (blank) state = 'between';
          return;
        case 'between':
          if (!blank) blockStart(text, number);
          return;
        case 'timing':
          if (blank || !text.includes('-->')) throw malformed(number, 'a cue identifier must be followed by its timing line');
          startCue(text, number);
          return;
        case 'payload':
          if (blank) {
            finishCue();
            state = 'between';
            return;
          }
          payloadChars += text.length;
          if (payloadChars > CUE_LIMITS.textChars) {
            throw malformed(number, `the cue text is longer than ${CUE_LIMITS.textChars} characters`);
          }
          payload.push(text);
      }
    },
    /** The file ended after `lastLine` lines. */
    end(lastLine: number): void {
      if (state === 'signature') throw malformed(Math.max(1, lastLine), 'not a WebVTT file: it is empty');
      if (state === 'timing') throw malformed(lastLine, 'a cue identifier must be followed by its timing line');
      finishCue();
    },
  };
}
