import type { RankedDoc, SearchDoc } from '../store/store.js';

/** The usual constant of reciprocal rank fusion: it damps the weight of the very first ranks. */
export const RRF_K = 60;

export interface FusedDoc extends SearchDoc {
  /** In (0, 1]: 1 for a record every leg ranked first. */
  score: number;
  /** Its best rank in any leg (1-based), the first tie-breaker. */
  bestRank: number;
}

/**
 * Reciprocal rank fusion: a record scores the sum of 1 / (k + rank) over the legs that found it, divided by what
 * a record first in every leg would score. Only ranks count, so BM25 and cosine need no common scale. Ties are
 * broken by the best rank in any leg, then by document id, so the same legs always give the same order.
 */
export function reciprocalRankFusion(legs: readonly (readonly RankedDoc[])[], k = RRF_K): FusedDoc[] {
  const fused = new Map<number, FusedDoc>();
  for (const leg of legs) {
    leg.forEach((doc, index) => {
      const rank = index + 1;
      const entry = fused.get(doc.docId) ?? { docId: doc.docId, kind: doc.kind, recordId: doc.recordId, score: 0, bestRank: rank };
      entry.score += 1 / (k + rank);
      entry.bestRank = Math.min(entry.bestRank, rank);
      fused.set(doc.docId, entry);
    });
  }
  const best = legs.length / (k + 1);
  return [...fused.values()]
    .map((entry) => ({ ...entry, score: entry.score / best }))
    .sort((a, b) => b.score - a.score || a.bestRank - b.bestRank || a.docId - b.docId);
}
