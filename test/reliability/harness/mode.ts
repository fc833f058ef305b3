/**
 * How much each reliability suite does. `npm test` runs the short version (a few hundred fuzz cases, three kills,
 * a half-minute soak, a sample of the isolation matrix); `npm run test:reliability` sets RELIABILITY=long for the
 * full run. Every number can be overridden from the environment, so a failure is reproducible at any size.
 */
export type ReliabilityMode = 'short' | 'long';

export const MODE: ReliabilityMode = process.env.RELIABILITY === 'long' ? 'long' : 'short';

function numberFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${raw}`);
  return value;
}

const long = MODE === 'long';

/** The size of each suite in this run. */
export const BUDGET = {
  /** fast-check cases over the REST routes. */
  restFuzzCases: numberFromEnv('RELIABILITY_REST_CASES', long ? 7000 : 200),
  /** fast-check cases over the admin routes. */
  adminFuzzCases: numberFromEnv('RELIABILITY_ADMIN_CASES', long ? 1500 : 60),
  /** fast-check cases over the MCP endpoint. */
  mcpFuzzCases: numberFromEnv('RELIABILITY_MCP_CASES', long ? 3500 : 120),
  /** SIGKILLs of `memory serve` under write load. */
  kills: numberFromEnv('RELIABILITY_KILLS', long ? 20 : 3),
  /** Concurrent writing clients during the crash runs. */
  writers: numberFromEnv('RELIABILITY_WRITERS', 6),
  /** Soak length in seconds. */
  soakSeconds: numberFromEnv('RELIABILITY_SOAK_SECONDS', long ? 60 * numberFromEnv('RELIABILITY_SOAK_MINUTES', 10) : 24),
  /** Steady soak rate, requests per second. */
  soakRate: numberFromEnv('RELIABILITY_SOAK_RATE', long ? 40 : 30),
  /** Isolation: the whole matrix in the long run, a deterministic sample of it in the short one. */
  isolationFull: long,
} as const;

/** A seed for fast-check: fixed when RELIABILITY_SEED is given (to replay a failure), random otherwise. */
export function fuzzSeed(): number {
  return process.env.RELIABILITY_SEED ? Number(process.env.RELIABILITY_SEED) : Math.floor(Math.random() * 2 ** 31);
}
