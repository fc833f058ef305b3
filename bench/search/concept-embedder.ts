import { isStopword } from '../../src/core/search/stopwords.js';
import { CONCEPT_GROUPS } from './concepts.js';

/** Length of the test embedder's vectors. */
export const CONCEPT_DIMENSIONS = 384;
/** Dimensions each feature touches (random indexing: sparse, nearly orthogonal random vectors). */
const FEATURE_SPREAD = 8;
const WORD_WEIGHT = 1.0;
const CONCEPT_WEIGHT = 1.2;
const GRAM_WEIGHT = 0.6;

/** A light English stemmer: enough that "migrating", "migrated" and "migrates" meet; not Porter. */
export function lightStem(word: string): string {
  let w = word.toLowerCase().replace(/['\u2019]s$/, '');
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('sses')) return w.slice(0, -2);
  for (const suffix of ['ing', 'ed']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) {
      w = w.slice(0, -suffix.length);
      if (/([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
      return w;
    }
  }
  if (w.endsWith('s') && !/(ss|us|is)$/.test(w)) return w.slice(0, -1);
  return w;
}

/** Concepts of a stem, built once from the groups (their words are stemmed the same way as the text). */
const CONCEPTS_OF: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const [concept, words] of Object.entries(CONCEPT_GROUPS)) {
    for (const word of words) {
      for (const part of word.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean)) {
        const stem = lightStem(part);
        const list = map.get(stem) ?? [];
        if (!list.includes(concept)) list.push(concept);
        map.set(stem, list);
      }
    }
  }
  return map;
})();

/** FNV-1a, 32 bits. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Adds the feature's sparse random vector (FEATURE_SPREAD dimensions, signs ±1) times weight. */
function addFeature(vector: Float32Array, feature: string, weight: number): void {
  let state = hash(feature) || 1;
  for (let i = 0; i < FEATURE_SPREAD; i += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    const bits = state >>> 0;
    vector[bits % vector.length]! += (bits & 0x80000000 ? -1 : 1) * weight;
  }
}

function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+(?:['\u2019-][\p{L}\p{N}]+)*/gu) ?? []).filter((w) => !isStopword(w));
}

/**
 * A deterministic embedding with some real semantics and no weights: per content word, its stem, its character
 * trigrams (so "migration" is near "migrate"), and its concepts from a hand-made synonym table (so "scrap" is
 * near "cancel"), each a sparse random vector, summed and normalised. It knows nothing the table does not say:
 * paraphrases outside the table are found only through shared stems and trigrams.
 */
export function conceptEmbedding(text: string, dimensions = CONCEPT_DIMENSIONS): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const word of words(text)) {
    const stem = lightStem(word);
    addFeature(vector, `w:${stem}`, WORD_WEIGHT);
    const padded = `^${stem}$`;
    const grams = Math.max(1, padded.length - 2);
    for (let i = 0; i + 3 <= padded.length; i += 1) addFeature(vector, `g:${padded.slice(i, i + 3)}`, GRAM_WEIGHT / Math.sqrt(grams));
    for (const concept of CONCEPTS_OF.get(stem) ?? []) addFeature(vector, `c:${concept}`, CONCEPT_WEIGHT);
  }
  let norm = 0;
  for (const x of vector) norm += x * x;
  if (norm === 0) {
    addFeature(vector, 'empty', 1);
    norm = FEATURE_SPREAD;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i += 1) vector[i]! *= scale;
  return vector;
}
