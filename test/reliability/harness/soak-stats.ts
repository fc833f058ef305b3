/** One answered request of the soak: when it started (ms into the run) and how long it took. */
export interface LatencySample {
  at: number;
  ms: number;
}

/** One resident-memory reading of the core (ms into the run, KiB). */
export interface RssSample {
  at: number;
  kib: number;
}

/** The p-th percentile (0..100) by nearest rank; NaN for no values. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function median(values: number[]): number {
  return percentile(values, 50);
}

/** p50/p99 of the first and last thirds of the run, by start time. */
export function latencyThirds(samples: LatencySample[], durationMs: number) {
  const third = durationMs / 3;
  const first = samples.filter((sample) => sample.at < third).map((sample) => sample.ms);
  const last = samples.filter((sample) => sample.at >= 2 * third).map((sample) => sample.ms);
  return {
    first: { count: first.length, p50: percentile(first, 50), p99: percentile(first, 99) },
    last: { count: last.length, p50: percentile(last, 50), p99: percentile(last, 99) },
  };
}

/**
 * Resident memory after a warm-up: the median of the first half of what follows it against the median of the last
 * quarter of the run, and the least-squares slope (MiB per minute) over everything after the warm-up.
 */
export function rssTrend(samples: RssSample[], durationMs: number, warmupFraction: number) {
  const warm = samples.filter((sample) => sample.at >= durationMs * warmupFraction);
  const middle = warm.filter((sample) => sample.at < durationMs * (warmupFraction + (1 - warmupFraction) / 2)).map((s) => s.kib);
  const end = warm.filter((sample) => sample.at >= durationMs * 0.75).map((s) => s.kib);
  const n = warm.length;
  const meanX = warm.reduce((a, s) => a + s.at, 0) / n;
  const meanY = warm.reduce((a, s) => a + s.kib, 0) / n;
  const slope = warm.reduce((a, s) => a + (s.at - meanX) * (s.kib - meanY), 0) / Math.max(1e-9, warm.reduce((a, s) => a + (s.at - meanX) ** 2, 0));
  return {
    afterWarmupMib: median(middle) / 1024,
    endMib: median(end) / 1024,
    peakMib: Math.max(...samples.map((s) => s.kib)) / 1024,
    slopeMibPerMinute: (slope * 60_000) / 1024,
  };
}
