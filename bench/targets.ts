import type { BenchResults, SizeResult, TargetCheck } from './model.js';

const MILLION = 1_000_000;

/** `1.23` with a fixed number of decimals, or `-` for a missing or non-finite value. */
export function fmt(value: number | undefined, decimals = 2): string {
  return value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(decimals);
}

export function sizeLabel(statements: number): string {
  if (statements >= MILLION && statements % MILLION === 0) return `${statements / MILLION}M`;
  if (statements >= 1000 && statements % 1000 === 0) return `${statements / 1000}k`;
  return String(statements);
}

function largest(results: BenchResults): SizeResult | undefined {
  return results.sizes.at(-1);
}

function check(target: string, measured: string, met: boolean | null): TargetCheck {
  return { target, measured, met };
}

/** Each size that has the figure, marked met or not, e.g. "10k: 0.41 ✗, 1M: 0.55 ✓"; null when no size has it. */
function perSize(
  results: BenchResults,
  figure: (size: SizeResult) => number | undefined,
  ok: (value: number) => boolean,
): string | null {
  const parts = results.sizes.flatMap((size) => {
    const value = figure(size);
    return value === undefined ? [] : [`${sizeLabel(size.statements)}: ${fmt(value)} ${ok(value) ? '✓' : '✗'}`];
  });
  return parts.length > 0 ? parts.join(', ') : null;
}

/** Whether every size that has the figure meets the bound; null when none has it. */
function everySize(results: BenchResults, figure: (size: SizeResult) => number | undefined, ok: (value: number) => boolean): boolean | null {
  const values = results.sizes.map(figure).filter((value): value is number => value !== undefined);
  return values.length === 0 ? null : values.every(ok);
}

function worstSearchRatio(size: SizeResult): number | undefined {
  return size.search && size.search.length > 0 ? Math.max(...size.search.map((s) => s.ratio)) : undefined;
}

/** The typical query: a fixed HTTP cost over a query that finds nothing makes the worst ratio large regardless. */
function medianSearchRatio(size: SizeResult): number | undefined {
  if (!size.search || size.search.length === 0) return undefined;
  const ratios = size.search.map((s) => s.ratio).sort((a, b) => a - b);
  const middle = Math.floor(ratios.length / 2);
  return ratios.length % 2 === 1 ? ratios[middle] : (ratios[middle - 1]! + ratios[middle]!) / 2;
}

function perSizeTargets(results: BenchResults): TargetCheck[] {
  const rows: [string, (size: SizeResult) => number | undefined, (value: number) => boolean, string][] = [
    ['list throughput >= 50% of bare node:http (ratio)', (s) => s.list?.throughputRatio, (v) => v >= 0.5, 'list not measured'],
    ['search p50 within 1.5x of bare SQL (worst query, ratio)', worstSearchRatio, (v) => v <= 1.5, 'search not measured'],
    ['search p50 within 1.5x of bare SQL (median query, ratio)', medianSearchRatio, (v) => v <= 1.5, 'search not measured'],
    ['MCP stdio adds <= 1 ms p50 over REST (ms)', (s) => s.mcpStdio?.overheadP50, (v) => v <= 1, 'MCP stdio not measured'],
    ['MCP HTTP throughput >= 50% of REST (ratio)', (s) => s.mcpHttp?.throughputRatio, (v) => v >= 0.5, 'MCP HTTP not measured'],
    ['`memory decisions list --json` <= 300 ms p50 (ms)', (s) => s.decisionsList?.p50, (v) => v <= 300, 'not measured'],
  ];
  return rows.map(([target, figure, ok, missing]) =>
    check(target, perSize(results, figure, ok) ?? missing, everySize(results, figure, ok)),
  );
}

/** Targets that apply at a million statements only: reported as n/a when this run stopped short of it. */
function millionTargets(results: BenchResults): TargetCheck[] {
  const top = largest(results);
  const atMillion = top !== undefined && top.statements >= MILLION;
  const peak = top?.memory.afterLoad?.peakMiB;
  const searches = top?.search ?? [];
  const worstP50 = searches.length > 0 ? Math.max(...searches.map((s) => s.api.p50)) : undefined;
  const worstP99 = searches.length > 0 ? Math.max(...searches.map((s) => s.api.p99)) : undefined;
  const where = top ? ` at ${sizeLabel(top.statements)}` : '';
  return [
    check(
      '`memory serve` < 200 MB resident at 1M statements (peak MiB)',
      `${fmt(peak, 0)}${where}`,
      atMillion && peak !== undefined ? peak < 200 : null,
    ),
    check(
      'keyword search p50 <= 25 ms, p99 <= 100 ms at 1M (worst query, ms)',
      worstP50 !== undefined ? `p50 ${fmt(worstP50)}, p99 ${fmt(worstP99)}${where}` : 'not measured',
      atMillion && worstP50 !== undefined && worstP99 !== undefined ? worstP50 <= 25 && worstP99 <= 100 : null,
    ),
  ];
}

/** Every target of the issues, judged against this run's figures. */
export function checkTargets(results: BenchResults): TargetCheck[] {
  const start = results.coldStart;
  const startDelta = start ? start.memory.p50 - start.node.p50 : undefined;
  return [
    ...perSizeTargets(results),
    check(
      'CLI start within 50 ms of `node -e 0` (p50 difference, ms)',
      start ? `${fmt(startDelta, 1)} (memory ${fmt(start.memory.p50, 1)}, node ${fmt(start.node.p50, 1)}, ${start.tool})` : 'not measured',
      startDelta === undefined ? null : startDelta <= 50,
    ),
    ...millionTargets(results),
  ];
}
