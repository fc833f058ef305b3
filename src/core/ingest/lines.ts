import { malformed, tooLarge } from './malformed.js';

/** One line of a text file, without its line break, and its 1-based number. */
export interface Line {
  text: string;
  number: number;
}

export interface ReadLinesOptions {
  /** Longer lines are refused, which bounds what one line can hold in memory. */
  maxLineChars: number;
  /** The whole file may be no larger; more is refused with 413 as soon as it arrives. */
  maxBytes: number;
  /** Sees every chunk of raw bytes, e.g. to hash the file as it streams. */
  onChunk?: (chunk: Uint8Array) => void;
}

/** How many line breaks the chunk holds before its first byte that is not UTF-8, to name the line it is on. */
function lineBreaksBeforeInvalid(partial: string, chunk: Uint8Array | undefined): number {
  const text = partial + (chunk === undefined ? '' : new TextDecoder('utf-8').decode(chunk));
  const invalid = text.indexOf('\uFFFD');
  return (text.slice(0, invalid < 0 ? text.length : invalid).match(/\r\n|\n|\r/g) ?? []).length;
}

/**
 * Splits a byte stream into lines as it arrives (LF, CRLF or CR), decoding strict UTF-8 (a leading BOM is
 * dropped), so a file of any length is read with one chunk and one line in memory at a time.
 */
export async function* readLines(source: AsyncIterable<Uint8Array>, options: ReadLinesOptions): AsyncGenerator<Line> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let number = 0;
  let bytes = 0;
  let partial = '';
  const decode = (chunk?: Uint8Array) => {
    try {
      return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
    } catch {
      throw malformed(number + 1 + lineBreaksBeforeInvalid(partial, chunk), 'the file is not valid UTF-8');
    }
  };
  for await (const chunk of source) {
    bytes += chunk.byteLength;
    if (bytes > options.maxBytes) throw tooLarge(options.maxBytes);
    options.onChunk?.(chunk);
    let text = partial + decode(chunk);
    // A CR at the end may be the first half of a CRLF split across chunks: keep it for the next chunk.
    const heldCr = text.endsWith('\r');
    if (heldCr) text = text.slice(0, -1);
    const lines = text.split(/\r\n|\n|\r/);
    partial = (lines.pop() ?? '') + (heldCr ? '\r' : '');
    for (const line of lines) yield { text: line, number: ++number };
    if (partial.length > options.maxLineChars) throw malformed(number + 1, `the line is longer than ${options.maxLineChars} characters`);
  }
  const rest = (partial + decode()).split(/\r\n|\n|\r/);
  if (rest.at(-1) === '') rest.pop();
  for (const line of rest) yield { text: line, number: ++number };
}
