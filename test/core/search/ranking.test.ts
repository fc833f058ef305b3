import { describe, expect, it } from 'vitest';
import { reciprocalRankFusion, RRF_K } from '../../../src/core/search/fusion.js';
import { SIGNATURE_BITS, SignatureMatrix, signatureOf, type ScanFilter } from '../../../src/core/store/sqlite-vector-index.js';
import type { RankedDoc } from '../../../src/core/store/store.js';

function doc(docId: number, score = 1): RankedDoc {
  return { docId, kind: 'statement', recordId: `r${docId}`, score };
}

describe('reciprocal rank fusion', () => {
  it('scores 1 for a record first in every leg, and rewards agreement over one strong leg', () => {
    const fused = reciprocalRankFusion([
      [doc(1), doc(2), doc(3)],
      [doc(1), doc(3), doc(4)],
    ]);
    expect(fused.map((d) => d.docId)).toEqual([1, 3, 2, 4]);
    expect(fused[0]!.score).toBe(1);
    const onlyFirstOfOne = (1 / (RRF_K + 1)) / (2 / (RRF_K + 1));
    expect(fused.find((d) => d.docId === 2)!.score).toBeCloseTo((1 / (RRF_K + 2)) / (2 / (RRF_K + 1)));
    expect(onlyFirstOfOne).toBe(0.5);
  });

  it('ignores the legs’ own scores and breaks ties by best rank, then document id', () => {
    const fused = reciprocalRankFusion([
      [doc(9, 1000), doc(5, 0.1)],
      [doc(7, 0.9), doc(8, 0.8)],
    ]);
    expect(fused.map((d) => d.docId)).toEqual([7, 9, 5, 8]);
    expect(fused.every((d) => d.score > 0 && d.score <= 1)).toBe(true);
  });

  it('keeps one leg in (0, 1] too', () => {
    const [first, second] = reciprocalRankFusion([[doc(1), doc(2)]]);
    expect(first!.score).toBe(1);
    expect(second!.score).toBeCloseTo((RRF_K + 1) / (RRF_K + 2), 12);
  });
});

/** A seeded unit vector, so the tests do not depend on Math.random. */
function vector(seed: number, dims = 384): Float32Array {
  let state = seed;
  const v = Float32Array.from({ length: dims }, () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32 - 0.5;
  });
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function blend(a: Float32Array, b: Float32Array, t: number): Float32Array {
  return a.map((x, i) => (1 - t) * x + t * b[i]!);
}

function hamming(a: Buffer, b: Buffer): number {
  let bits = 0;
  for (let i = 0; i < a.length; i += 1) for (let x = a[i]! ^ b[i]!; x; x &= x - 1) bits += 1;
  return bits;
}

describe('256-bit signatures', () => {
  it('are deterministic, 32 bytes, and differ by about the angle between vectors', () => {
    const a = vector(1);
    expect(signatureOf(a)).toEqual(signatureOf(Float32Array.from(a)));
    expect(signatureOf(a).length).toBe(SIGNATURE_BITS / 8);
    expect(hamming(signatureOf(a), signatureOf(a.map((x) => -x)))).toBe(SIGNATURE_BITS);
    const near = hamming(signatureOf(a), signatureOf(blend(a, vector(2), 0.2)));
    const far = hamming(signatureOf(a), signatureOf(vector(3)));
    expect(near).toBeLessThan(far);
    expect(far).toBeGreaterThan(SIGNATURE_BITS * 0.35);
    expect(far).toBeLessThan(SIGNATURE_BITS * 0.65);
  });

  it('work for any vector length', () => {
    for (const dims of [3, 64, 300, 1536, 3072]) expect(signatureOf(vector(dims, dims)).length).toBe(32);
  });
});

const OPEN: ScanFilter = { kindMask: 0b11111, lowDay: 0, highDay: 2 ** 31 - 1, maxSeq: Infinity, movingKind: 4 };

describe('the in-memory signature scan', () => {
  const base = vector(10);
  const built = new SignatureMatrix(null);
  // doc i (its vector stored as seq SEQ + i) drifts further from `base` as i grows; kinds cycle through 0..4, days
  // through 100..109.
  const SEQ = 100_000;
  for (let i = 1; i <= 2000; i += 1) {
    built.append({ seq: SEQ + i, docId: i, kind: i % 5, day: 100 + (i % 10), signature: signatureOf(blend(base, vector(1000 + i), Math.min(1, i / 400))) });
  }
  const matrix = {
    nearest: (query: Buffer, filter: ScanFilter, count: number) => built.nearest(query, filter, count).map((seq) => seq - SEQ),
  };

  it('returns the nearest signatures first, as many as asked', () => {
    const nearest = matrix.nearest(signatureOf(base), OPEN, 20);
    expect(nearest).toHaveLength(20);
    expect(nearest.filter((id) => id <= 60).length).toBeGreaterThan(15);
  });

  it('applies kinds, days and the snapshot inside the scan; topics (kind 4) skip the day check', () => {
    const decisions = matrix.nearest(signatureOf(base), { ...OPEN, kindMask: 1 << 1 }, 50);
    expect(decisions.every((id) => id % 5 === 1)).toBe(true);
    const dayed = matrix.nearest(signatureOf(base), { ...OPEN, kindMask: 0b01111, lowDay: 103, highDay: 104 }, 50);
    expect(dayed.every((id) => [103, 104].includes(100 + (id % 10)))).toBe(true);
    const topics = matrix.nearest(signatureOf(base), { ...OPEN, kindMask: 1 << 4, lowDay: 103, highDay: 103 }, 50);
    expect(topics.some((id) => 100 + (id % 10) !== 103)).toBe(true);
    expect(matrix.nearest(signatureOf(base), { ...OPEN, maxSeq: SEQ + 30 }, 50).every((id) => id <= 30)).toBe(true);
  });

  it('returns fewer when fewer pass the filter', () => {
    expect(matrix.nearest(signatureOf(base), { ...OPEN, maxSeq: SEQ + 7 }, 50)).toHaveLength(7);
    expect(new SignatureMatrix(null).nearest(signatureOf(base), OPEN, 5)).toEqual([]);
  });
});
