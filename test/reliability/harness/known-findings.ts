import type { Answer } from './http.js';

/**
 * Defects these suites found that are reported and not fixed yet. An exchange that shows one is counted under its
 * id (and the count lands in the results file) instead of failing the run, so `npm test` stays green while the
 * owner fixes it; a state change is never excused. Delete an entry once its fix lands: the suites then enforce it.
 */
export interface KnownFinding {
  id: string;
  description: string;
  /** Whether an answer is this finding showing (for findings an exchange shows; others are checked by id). */
  shows?(answer: Answer): boolean;
}

export const KNOWN_FINDINGS: readonly KnownFinding[] = [];

/** The known finding an answer shows, if any. */
export function knownFindingOf(answer: Answer): KnownFinding | undefined {
  return KNOWN_FINDINGS.find((finding) => finding.shows?.(answer));
}

/** Whether a finding is still listed as known (a suite enforces the property again once it is removed). */
export function isKnownFinding(id: string): boolean {
  return KNOWN_FINDINGS.some((finding) => finding.id === id);
}
