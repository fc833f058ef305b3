/** A line of the chart: a product figure (solid) or its baseline (dashed), one point per size. */
export interface ChartSeries {
  name: string;
  color: string;
  dashed: boolean;
  points: { x: number; y: number }[];
}

export interface Panel {
  title: string;
  series: ChartSeries[];
}

const PANEL_WIDTH = 420;
const PANEL_HEIGHT = 300;
const MARGIN = { left: 56, right: 16, top: 36, bottom: 44 };
const LEGEND_ROW = 18;

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * A log scale for milliseconds between the powers of ten around the data: a list answered in 0.5 ms and a search in
 * 100 ms both stay readable on one chart.
 */
function logScale(values: number[], height: number): { y: (value: number) => number; ticks: number[] } {
  const positive = values.filter((value) => value > 0 && Number.isFinite(value));
  const low = Math.floor(Math.log10(positive.length > 0 ? Math.min(...positive) : 1));
  const high = Math.max(low + 1, Math.ceil(Math.log10(positive.length > 0 ? Math.max(...positive) : 10)));
  const ticks = Array.from({ length: high - low + 1 }, (_, index) => 10 ** (low + index));
  return { y: (value) => height - ((Math.log10(value) - low) / (high - low)) * height, ticks };
}

function sizeTick(x: number): string {
  if (x >= 1_000_000) return `${x / 1_000_000}M`;
  if (x >= 1000) return `${x / 1000}k`;
  return String(x);
}

/** Sizes on a log scale (they grow tenfold), spread evenly; a single size sits in the middle. */
function xScale(sizes: number[], width: number): (x: number) => number {
  const logs = sizes.map(Math.log10);
  const low = Math.min(...logs);
  const high = Math.max(...logs);
  if (high === low) return () => width / 2;
  const pad = width * 0.06;
  return (x) => pad + ((Math.log10(x) - low) / (high - low)) * (width - 2 * pad);
}

function panelSvg(panel: Panel, offsetX: number, sizes: number[]): string {
  const width = PANEL_WIDTH - MARGIN.left - MARGIN.right;
  const height = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
  const { y, ticks } = logScale(panel.series.flatMap((s) => s.points.map((p) => p.y)), height);
  const x = xScale(sizes, width);
  const parts: string[] = [
    `<g transform="translate(${offsetX + MARGIN.left},${MARGIN.top})">`,
    `<text x="${width / 2}" y="-14" text-anchor="middle" font-weight="bold">${escapeXml(panel.title)}</text>`,
  ];
  for (const tick of ticks) {
    parts.push(
      `<line x1="0" x2="${width}" y1="${y(tick).toFixed(1)}" y2="${y(tick).toFixed(1)}" stroke="#ddd"/>`,
      `<text x="-6" y="${(y(tick) + 4).toFixed(1)}" text-anchor="end">${Number(tick.toPrecision(3))}</text>`,
    );
  }
  for (const size of sizes) {
    parts.push(`<text x="${x(size).toFixed(1)}" y="${height + 18}" text-anchor="middle">${sizeTick(size)}</text>`);
  }
  parts.push(
    `<line x1="0" x2="0" y1="0" y2="${height}" stroke="#333"/>`,
    `<line x1="0" x2="${width}" y1="${height}" y2="${height}" stroke="#333"/>`,
    `<text x="${width / 2}" y="${height + 36}" text-anchor="middle">statements in the deployment</text>`,
    `<text transform="translate(-42,${height / 2}) rotate(-90)" text-anchor="middle">ms (log scale)</text>`,
  );
  for (const series of panel.series) {
    const points = series.points.filter((p) => Number.isFinite(p.y) && p.y > 0);
    if (points.length === 0) continue;
    const dash = series.dashed ? ' stroke-dasharray="6 4"' : '';
    const path = points.map((p) => `${x(p.x).toFixed(1)},${y(p.y).toFixed(1)}`).join(' ');
    parts.push(`<polyline points="${path}" fill="none" stroke="${series.color}" stroke-width="2"${dash}/>`);
    for (const p of points) {
      parts.push(`<circle cx="${x(p.x).toFixed(1)}" cy="${y(p.y).toFixed(1)}" r="3" fill="${series.color}"/>`);
    }
  }
  parts.push('</g>');
  return parts.join('\n');
}

function legendSvg(series: ChartSeries[], top: number, width: number): string {
  const columns = 3;
  const columnWidth = width / columns;
  return series
    .map((s, index) => {
      const left = 16 + (index % columns) * columnWidth;
      const row = top + Math.floor(index / columns) * LEGEND_ROW;
      const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
      return [
        `<line x1="${left}" x2="${left + 28}" y1="${row}" y2="${row}" stroke="${s.color}" stroke-width="2"${dash}/>`,
        `<text x="${left + 34}" y="${row + 4}">${escapeXml(s.name)}</text>`,
      ].join('');
    })
    .join('\n');
}

/**
 * Hand-written SVG (no charting dependency): panels side by side sharing a log-scale size axis, products solid
 * and their baselines dashed in the same colour, with one legend below.
 */
export function latencyChartSvg(title: string, panels: Panel[]): string {
  const sizes = [...new Set(panels.flatMap((p) => p.series.flatMap((s) => s.points.map((point) => point.x))))].sort(
    (a, b) => a - b,
  );
  const width = PANEL_WIDTH * panels.length;
  const legendEntries = panels[0]?.series ?? [];
  const legendRows = Math.ceil(legendEntries.length / 3);
  const height = PANEL_HEIGHT + 28 + legendRows * LEGEND_ROW;
  const body = panels.map((panel, index) => panelSvg(panel, index * PANEL_WIDTH, sizes.length > 0 ? sizes : [1]));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${width / 2}" y="16" text-anchor="middle" font-size="13" font-weight="bold">${escapeXml(title)}</text>`,
    ...body,
    legendSvg(legendEntries, PANEL_HEIGHT + 16, width),
    '</svg>',
    '',
  ].join('\n');
}
