import { randomBytes } from 'node:crypto';

const MAX_COUNTER = 0xfff;

/**
 * A source of UUIDv7 ids (RFC 9562) that increase strictly in the order they are made: the 12 bits after the
 * millisecond count within one millisecond, and when they run out the clock is borrowed from, so ids compared as
 * text keep the order of a transcript even when thousands of statements share a second.
 */
export function createOrderedIds(now: () => number = Date.now): () => string {
  let lastMs = -1;
  let counter = 0;
  return () => {
    const ms = now();
    if (ms > lastMs) {
      lastMs = ms;
      counter = 0;
    } else if (counter < MAX_COUNTER) {
      counter += 1;
    } else {
      lastMs += 1;
      counter = 0;
    }
    const bytes = randomBytes(16);
    bytes.writeUIntBE(lastMs, 0, 6);
    bytes[6] = 0x70 | (counter >> 8);
    bytes[7] = counter & 0xff;
    bytes[8] = 0x80 | (bytes[8]! & 0x3f);
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
}
