import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { latencyChartSvg, type ChartSeries, type Panel } from './chart.js';
import type { LatencySummary, LoadResult } from './load.js';
import type { BenchResults, SizeResult } from './model.js';
import { ROOT } from './processes.js';
import { fmt, sizeLabel } from './targets.js';

/** The README's performance table sits between these two lines; `npm run bench` rewrites what is between them. */
export const README_START = '<!-- bench:start -->';
export const README_END = '<!-- bench:end -->';

function row(cells: (string | number)[]): string {
  return `| ${cells.join(' | ')} |`;
}

function table(header: string[], rows: (string | number)[][]): string {
  return [row(header), row(header.map(() => '---')), ...rows.map(row)].join('\n');
}

function latency(summary: LatencySummary | undefined): string {
  return summary ? `${fmt(summary.p50)} / ${fmt(summary.p99)}` : '-';
}

function load(result: LoadResult): string {
  const suspect = result.non2xx + result.errors > 0 ? ` ⚠ ${result.non2xx} non-2xx, ${result.errors} errors` : '';
  return `${fmt(result.requestsPerSecond, 0)} req/s, p50 ${fmt(result.p50, 0)} / p99 ${fmt(result.p99, 0)} ms${suspect}`;
}

function metMark(met: boolean | null): string {
  if (met === null) return 'n/a (size not run)';
  return met ? 'met' : '**missed**';
}

function ingestSection(sizes: SizeResult[]): string {
  const rows = sizes.flatMap((s) =>
    s.ingest
      ? [[
          sizeLabel(s.statements),
          `${s.counts.meetings} meetings, ${s.counts.decisions + s.counts.openQuestions + s.counts.actionItems} records`,
          fmt(s.ingest.store.statementsPerSecond, 0),
          fmt(s.ingest.bare.statementsPerSecond, 0),
          fmt(s.ingest.ratio),
          fmt(s.databaseMiB, 1),
        ]]
      : [],
  );
  return [
    '## Ingest: the store\'s importMeeting vs bare SQLite inserts',
    'Statements per second, generation excluded. Bare: the same rows through prepared inserts into plain tables (no',
    'index, trigger or full-text index), one transaction per 200 meetings. Ratio: store / bare (higher is better).',
    '',
    table(['statements', 'yielded', 'store stmt/s', 'bare stmt/s', 'ratio', 'database MiB'], rows),
  ].join('\n');
}

function listSection(sizes: SizeResult[]): string {
  const rows = sizes.flatMap((s) =>
    s.list
      ? [[
          sizeLabel(s.statements),
          fmt(s.list.throughputRatio),
          load(s.list.load.core),
          load(s.list.load.bare),
          latency(s.list.sequential.core),
          latency(s.list.sequential.bare),
        ]]
      : [],
  );
  return [
    '## List: `GET decisions?limit=50` on `memory serve` vs bare node:http with the same JSON',
    'Under load: autocannon, keep-alive, one request in flight per connection, core and baseline in alternating',
    'rounds of about 2 s (latencies in whole milliseconds, request-weighted over the rounds). One at a time: p50 / p99',
    'ms over one keep-alive connection, core and baseline in alternation.',
    '',
    table(['statements', 'throughput ratio', 'core under load', 'bare under load', 'core p50 / p99', 'bare p50 / p99'], rows),
  ].join('\n');
}

function searchSection(sizes: SizeResult[], comparedBy: string): string {
  const rows = sizes.flatMap((s) =>
    (s.search ?? []).map((q) => [
      sizeLabel(s.statements),
      `${q.label}: \`${q.query}\``,
      `${q.hits} (${q.samePage} same)`,
      latency(q.api),
      latency(q.sql),
      fmt(q.ratio),
    ]),
  );
  return [
    '## Search: `GET search?q=` through the API vs the bare SQL for the same page',
    comparedBy === 'harness'
      ? 'Bare SQL: on the deployment\'s full-text table, the newest 1000 matches of every term (and of any term), ' +
        'ranked by BM25, LIMIT 20, then the 20 records by key, in-process on the core\'s database file. "Same": how ' +
        'many of the API\'s results the bare page holds too.'
      : 'Compared by bench/search against the bare SQL of the search engine it benchmarks.',
    'Ratio: API p50 / SQL p50 (the target is 1.5 or less).',
    '',
    table(['statements', 'query', 'results', 'API p50 / p99', 'SQL p50 / p99', 'ratio'], rows),
  ].join('\n');
}

function mcpSection(sizes: SizeResult[]): string {
  const rows = sizes.flatMap((s) => [
    ...(s.mcpStdio
      ? [[sizeLabel(s.statements), 'stdio (`memory mcp`)', latency(s.mcpStdio.mcp), latency(s.mcpStdio.rest), fmt(s.mcpStdio.overheadP50), '-']]
      : []),
    ...(s.mcpHttp
      ? [[
          sizeLabel(s.statements),
          'Streamable HTTP (`/v1/mcp`)',
          latency(s.mcpHttp.mcp),
          latency(s.mcpHttp.rest),
          fmt(s.mcpHttp.overheadP50),
          `${fmt(s.mcpHttp.throughputRatio)} (${fmt(s.mcpHttp.load.mcp.requestsPerSecond, 0)} vs ${fmt(s.mcpHttp.load.rest.requestsPerSecond, 0)} req/s)`,
        ]]
      : []),
  ]);
  return [
    '## MCP: `listDecisions` tool call vs the REST call',
    'Latency one call at a time, MCP and REST in alternation; overhead = MCP p50 - REST p50.',
    '',
    table(['statements', 'transport', 'MCP p50 / p99', 'REST p50 / p99', 'overhead p50 ms', 'throughput MCP / REST'], rows),
  ].join('\n');
}

function cliAndMemorySection(results: BenchResults): string {
  const start = results.coldStart;
  const lines = ['## CLI and memory'];
  if (start) {
    lines.push(
      `Cold start (${start.tool}, ${start.memory.samples} runs): \`memory --version\` p50 ${fmt(start.memory.p50, 1)} ms,`,
      `\`node -e 0\` p50 ${fmt(start.node.p50, 1)} ms: +${fmt(start.memory.p50 - start.node.p50, 1)} ms.`,
      '',
    );
  }
  const rows = results.sizes.map((s) => [
    sizeLabel(s.statements),
    latency(s.decisionsList),
    fmt(s.memory.idle?.rssMiB, 0),
    fmt(s.memory.afterLoad?.rssMiB, 0),
    fmt(s.memory.afterLoad?.peakMiB, 0),
  ]);
  lines.push(
    table(['statements', '`decisions list --json` p50 / p99 ms', 'serve RSS idle MiB', 'RSS after load MiB', 'peak RSS MiB'], rows),
    '',
    'Resident memory of `memory serve` (VmRSS, read from /proc outside the process) after each workload:',
    '',
    ...results.sizes.map(
      (s) => `- ${sizeLabel(s.statements)}: ${s.memory.phases.map((p) => `${p.after.split(':')[0]} ${fmt(p.rssMiB, 0)}`).join(', ')}`,
    ),
  );
  return lines.join('\n');
}

function machineLine(results: BenchResults): string {
  const m = results.machine;
  return (
    `${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, Node ${m.node}, ${m.platform}, commit ${m.commit}. ` +
    `1-minute load average ${fmt(m.loadAverage.start)} at start, ${fmt(m.loadAverage.end)} at the end: ` +
    'anything above 0 is other work sharing the machine, and the load generator shares it with the core too, so ' +
    'compare ratios measured in the same run rather than absolute figures.'
  );
}

function points(sizes: SizeResult[], figure: (size: SizeResult) => number | undefined): ChartSeries['points'] {
  return sizes.flatMap((s) => {
    const y = figure(s);
    return y === undefined ? [] : [{ x: s.statements, y }];
  });
}

function chartPanel(sizes: SizeResult[], pick: (summary: LatencySummary) => number): Panel {
  const worst = (s: SizeResult) => s.search?.reduce((a, b) => (pick(b.api) > pick(a.api) ? b : a));
  const series: ChartSeries[] = [
    { name: 'list: memory serve', color: '#1f77b4', dashed: false, points: points(sizes, (s) => s.list && pick(s.list.sequential.core)) },
    { name: 'list: bare node:http', color: '#1f77b4', dashed: true, points: points(sizes, (s) => s.list && pick(s.list.sequential.bare)) },
    { name: 'search: API (slowest query)', color: '#d62728', dashed: false, points: points(sizes, (s) => worst(s) && pick(worst(s)!.api)) },
    { name: 'search: bare SQL', color: '#d62728', dashed: true, points: points(sizes, (s) => worst(s) && pick(worst(s)!.sql)) },
    { name: 'MCP stdio listDecisions', color: '#2ca02c', dashed: false, points: points(sizes, (s) => s.mcpStdio && pick(s.mcpStdio.mcp)) },
    { name: 'REST listDecisions', color: '#2ca02c', dashed: true, points: points(sizes, (s) => s.mcpStdio && pick(s.mcpStdio.rest)) },
  ];
  return { title: '', series };
}

/** The chart: p50 and p99 latency against deployment size, each product beside its dashed baseline. */
export function renderChart(results: BenchResults): string {
  const p50 = { ...chartPanel(results.sizes, (s) => s.p50), title: 'p50 latency, one request at a time' };
  const p99 = { ...chartPanel(results.sizes, (s) => s.p99), title: 'p99 latency, one request at a time' };
  return latencyChartSvg(`meeting-memory ${results.date}: latency against size (dashed: baseline)`, [p50, p99]);
}

/** The Markdown report of one run. */
export function renderMarkdown(results: BenchResults, chartFile: string): string {
  const s = results.settings;
  const notMeasured =
    results.notMeasured.length === 0
      ? ['Everything was measured.']
      : results.notMeasured.map((entry) => `- not measured: ${entry.what}${entry.statements ? ` at ${sizeLabel(entry.statements)}` : ''}: ${entry.reason}`);
  return [
    `# Benchmark ${results.date} (${s.quick ? 'quick' : 'full'})`,
    '',
    machineLine(results),
    '',
    `Seed ${s.seed}; sizes ${s.sizes.map(sizeLabel).join(', ')} statements; ${s.connections} connections for ` +
      `${s.loadSeconds} s per load test; up to ${s.samples} sequential samples (or ${s.sampleSeconds} s) per comparison; ` +
      `${s.principals} principals; ` +
      `${s.cliRuns} CLI runs. The core is the built package (\`bin/memory.js serve --no-tls\`) in its own process.`,
    '',
    `![latency against size](${chartFile})`,
    '',
    '## Targets',
    table(['target', 'measured', 'result'], results.targets.map((t) => [t.target, t.measured, metMark(t.met)])),
    '',
    '## Not measured',
    ...notMeasured,
    '',
    ingestSection(results.sizes),
    '',
    listSection(results.sizes),
    '',
    searchSection(results.sizes, s.searchComparedBy),
    '',
    mcpSection(results.sizes),
    '',
    cliAndMemorySection(results),
    '',
  ].join('\n');
}

/** The short table the README carries between its markers, linking to the full report. */
export function renderReadmeTable(results: BenchResults, reportPath: string): string {
  const top = results.sizes.at(-1);
  return [
    `Measured ${results.date} on ${results.machine.cpus} × ${results.machine.cpuModel} (Node ${results.machine.node}), ` +
      `up to ${top ? sizeLabel(top.statements) : '0'} statements, with \`npm run bench\`; every figure is set beside ` +
      `a baseline measured in the same run. Full report: [${reportPath}](${reportPath}).`,
    '',
    table(['target', 'measured', 'result'], results.targets.map((t) => [t.target, t.measured, metMark(t.met)])),
  ].join('\n');
}

/** Replaces what is between the markers; null when the README lacks them (it is then left untouched). */
export function replaceBetweenMarkers(readme: string, content: string): string | null {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start === -1 || end === -1 || end < start) return null;
  return `${readme.slice(0, start + README_START.length)}\n${content}\n${readme.slice(end)}`;
}

/**
 * Writes `<date>.json`, `<date>.md` and `<date>.svg` (`<date>-quick.*` for a quick run) and, when asked, the
 * README's performance table. Returns the paths written.
 */
export async function writeReports(results: BenchResults, options: { outDir: string; updateReadme: boolean }): Promise<string[]> {
  await mkdir(options.outDir, { recursive: true });
  const base = `${results.date}${results.settings.quick ? '-quick' : ''}`;
  const files = { json: join(options.outDir, `${base}.json`), md: join(options.outDir, `${base}.md`), svg: join(options.outDir, `${base}.svg`) };
  await writeFile(files.json, `${JSON.stringify(results, null, 2)}\n`);
  await writeFile(files.svg, renderChart(results));
  await writeFile(files.md, renderMarkdown(results, `${base}.svg`));
  const written = [files.json, files.md, files.svg];
  if (options.updateReadme) {
    const readmeFile = join(ROOT, 'README.md');
    const updated = replaceBetweenMarkers(await readFile(readmeFile, 'utf8'), renderReadmeTable(results, relative(ROOT, files.md)));
    if (updated === null) process.stderr.write(`README.md has no ${README_START} / ${README_END} markers: not updated\n`);
    else {
      await writeFile(readmeFile, updated);
      written.push(readmeFile);
    }
  }
  return written;
}
