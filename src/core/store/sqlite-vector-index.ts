/**
 * The coarse stage of the vector leg: every vector of a deployment as a 256-bit signature, scanned in memory by
 * Hamming distance. Measured on the 2-core machine this project targets, sqlite-vec's vec0 brute-force KNN over a
 * million 512-bit vectors took 36 ms at k=1 and 600 ms at k=500 (its top-k selection grows with k), while this scan
 * takes about 12 ms at any k; the nearest signatures are then re-ranked exactly with their full vectors.
 */

/** Bits per signature, and the 32-bit words that hold them. */
export const SIGNATURE_BITS = 256;
const WORDS = SIGNATURE_BITS / 32;
export const SIGNATURE_BYTES = SIGNATURE_BITS / 8;

/** A small seeded generator (mulberry32): signatures must be the same on every machine and every start. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** In-place fast Walsh-Hadamard transform of a power-of-two length array. */
function hadamard(x: Float64Array): void {
  for (let half = 1; half < x.length; half *= 2) {
    for (let start = 0; start < x.length; start += half * 2) {
      for (let i = start; i < start + half; i += 1) {
        const a = x[i]!;
        const b = x[i + half]!;
        x[i] = a + b;
        x[i + half] = a - b;
      }
    }
  }
}

const signCache = new Map<string, Float64Array>();

/** The fixed random signs of one round of the transform, for vectors padded to `size`. */
function signs(size: number, round: number): Float64Array {
  const key = `${size}:${round}`;
  let cached = signCache.get(key);
  if (!cached) {
    const next = seeded(0x5eed0000 + round * 7919 + size);
    cached = Float64Array.from({ length: size }, () => (next() < 0.5 ? -1 : 1));
    signCache.set(key, cached);
  }
  return cached;
}

/**
 * The 256-bit SimHash of a vector: the signs of its projections on orthogonal directions (a randomized Hadamard
 * transform, one round per 2^k coordinates). Two vectors' signatures differ in a share of bits close to their
 * angle divided by pi, whatever the model and its dimensions, so the scan costs the same for every provider.
 */
export function signatureOf(vector: Float32Array): Buffer {
  let size = 1;
  while (size < vector.length) size *= 2;
  const words = new Int32Array(WORDS);
  let bit = 0;
  for (let round = 0; bit < SIGNATURE_BITS; round += 1) {
    const flips = signs(size, round);
    const x = new Float64Array(size);
    for (let i = 0; i < vector.length; i += 1) x[i] = vector[i]! * flips[i]!;
    hadamard(x);
    for (let i = 0; i < size && bit < SIGNATURE_BITS; i += 1, bit += 1) {
      if (x[i]! > 0) words[bit >>> 5]! |= 1 << (bit & 31);
    }
  }
  return Buffer.from(words.buffer);
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  v = (v + (v >>> 4)) & 0x0f0f0f0f;
  return Math.imul(v, 0x01010101) >>> 24;
}

/** What the scan may return: kinds as a bit mask of kind codes, days inclusive, vectors written up to maxSeq. */
export interface ScanFilter {
  kindMask: number;
  lowDay: number;
  highDay: number;
  maxSeq: number;
  /** The kind code whose day is not checked here, because it changes (topics): the re-rank checks it exactly. */
  movingKind: number;
}

export interface SignatureRow {
  seq: number;
  docId: number;
  kind: number;
  day: number;
  signature: Uint8Array;
}

/** Marks a slot the filter left out: above any distance on 128 bits. */
const NOT_CANDIDATE = 0xff;
const PRESCREEN_BITS = 128;
/** The first stage keeps at least this many candidates per one wanted, and at least this share of all. */
const PRESCREEN_FACTOR = 50;
const PRESCREEN_SHARE = 0.02;
/** Every kind code (0..4) and the widest day range: a filter that leaves nothing out. */
const ALL_KINDS = 0b11111;
export const MAX_DAY = 2 ** 31 - 1;

/** The signatures of one deployment in one embedding space, in write order, held in flat typed arrays. */
export class SignatureMatrix {
  private words = new Int32Array(0);
  private docIds = new Float64Array(0);
  private seqs = new Float64Array(0);
  private kinds = new Uint8Array(0);
  private days = new Int32Array(0);
  private prefix = new Uint8Array(0);
  private size = 0;
  /** The highest seq loaded so far. */
  loadedSeq = 0;

  /** `generation` is the value that, once it changes in the database, means vectors were removed: load anew. */
  constructor(readonly generation: string | null) {}

  get length(): number {
    return this.size;
  }

  append(row: SignatureRow): void {
    if (this.size === this.docIds.length) this.grow(Math.max(1024, this.size * 2));
    const slot = this.size;
    new Uint8Array(this.words.buffer, slot * SIGNATURE_BYTES, SIGNATURE_BYTES).set(row.signature);
    this.docIds[slot] = row.docId;
    this.seqs[slot] = row.seq;
    this.kinds[slot] = row.kind;
    this.days[slot] = row.day;
    this.size += 1;
    this.loadedSeq = Math.max(this.loadedSeq, row.seq);
  }

  private grow(capacity: number): void {
    const words = new Int32Array(capacity * WORDS);
    words.set(this.words);
    this.words = words;
    this.docIds = copyInto(new Float64Array(capacity), this.docIds);
    this.seqs = copyInto(new Float64Array(capacity), this.seqs);
    this.kinds = copyInto(new Uint8Array(capacity), this.kinds);
    this.days = copyInto(new Int32Array(capacity), this.days);
  }

  /**
   * The seqs (stored-vector ids) of the `count` signatures nearest to the query's that pass the filter, nearest
   * first; ties go to the lower document id. Two stages: the first 128 bits of every signature pick the few percent
   * nearest (four words per record instead of eight), and only those are compared on all 256 bits.
   */
  nearest(query: Buffer, filter: ScanFilter, count: number): number[] {
    const q = new Int32Array(WORDS);
    new Uint8Array(q.buffer).set(query.subarray(0, SIGNATURE_BYTES));
    if (this.prefix.length < this.size) this.prefix = new Uint8Array(this.docIds.length);
    const keep = Math.max(count * PRESCREEN_FACTOR, Math.ceil(this.size * PRESCREEN_SHARE));
    const first = threshold(this.prescreen(q, filter), keep);
    const [q4, q5, q6, q7] = [q[4]!, q[5]!, q[6]!, q[7]!];
    const { words, prefix, size } = this;
    let slots = new Int32Array(Math.min(size, keep * 4));
    let distances = new Uint16Array(slots.length);
    let found = 0;
    const histogram = new Uint32Array(SIGNATURE_BITS + 1);
    for (let slot = 0; slot < size; slot += 1) {
      const head = prefix[slot]!;
      if (head > first) continue;
      const o = slot * WORDS;
      const d = head + popcount(words[o + 4]! ^ q4) + popcount(words[o + 5]! ^ q5) + popcount(words[o + 6]! ^ q6) + popcount(words[o + 7]! ^ q7);
      if (found === slots.length) [slots, distances] = [grown(slots), grown(distances)];
      slots[found] = slot;
      distances[found] = d;
      found += 1;
      histogram[d]! += 1;
    }
    const last = threshold(histogram, count);
    const chosen: number[] = [];
    for (let i = 0; i < found; i += 1) if (distances[i]! <= last) chosen.push(i);
    chosen.sort((a, b) => distances[a]! - distances[b]! || this.docIds[slots[a]!]! - this.docIds[slots[b]!]!);
    return chosen.slice(0, count).map((i) => this.seqs[slots[i]!]!);
  }

  /** Writes every slot's distance on the first 128 bits (NOT_CANDIDATE when filtered out) and their histogram. */
  private prescreen(q: Int32Array, filter: ScanFilter): Uint32Array {
    const [q0, q1, q2, q3] = [q[0]!, q[1]!, q[2]!, q[3]!];
    const histogram = new Uint32Array(PRESCREEN_BITS + 1);
    const { words, kinds, days, seqs, prefix } = this;
    const filtered = filter.kindMask !== ALL_KINDS || filter.lowDay > 0 || filter.highDay < MAX_DAY || filter.maxSeq < this.loadedSeq;
    for (let slot = 0, o = 0; slot < this.size; slot += 1, o += WORDS) {
      if (filtered) {
        const kind = kinds[slot]!;
        const day = days[slot]!;
        if (
          ((filter.kindMask >>> kind) & 1) === 0 ||
          seqs[slot]! > filter.maxSeq ||
          (kind !== filter.movingKind && (day < filter.lowDay || day > filter.highDay))
        ) {
          prefix[slot] = NOT_CANDIDATE;
          continue;
        }
      }
      const d = popcount(words[o]! ^ q0) + popcount(words[o + 1]! ^ q1) + popcount(words[o + 2]! ^ q2) + popcount(words[o + 3]! ^ q3);
      prefix[slot] = d;
      histogram[d]! += 1;
    }
    return histogram;
  }
}

/** The smallest distance at or below which at least `count` entries of the histogram lie (its end if fewer do). */
function threshold(histogram: Uint32Array, count: number): number {
  let seen = 0;
  for (let distance = 0; distance < histogram.length; distance += 1) {
    seen += histogram[distance]!;
    if (seen >= count) return distance;
  }
  return histogram.length - 1;
}

function grown<T extends Int32Array | Uint16Array>(array: T): T {
  const larger = new (array.constructor as new (length: number) => T)(array.length * 2);
  larger.set(array as never);
  return larger;
}

function copyInto<T extends Float64Array | Int32Array | Uint8Array>(target: T, source: T): T {
  target.set(source as never);
  return target;
}
