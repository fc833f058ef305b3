import { describe, expect, it } from 'vitest';
import { latencyChartSvg } from '../../bench/chart.js';
import { README_END, README_START, replaceBetweenMarkers } from '../../bench/report.js';

describe('bench report', () => {
  it('rewrites only what is between the README markers, and leaves a README without them alone', () => {
    const readme = `# x\n\n${README_START}\nold table\n${README_END}\n\nafter\n`;
    expect(replaceBetweenMarkers(readme, 'new table')).toBe(`# x\n\n${README_START}\nnew table\n${README_END}\n\nafter\n`);
    expect(replaceBetweenMarkers('# x\n', 'new table')).toBeNull();
    expect(replaceBetweenMarkers(`${README_END}\n${README_START}\n`, 'new')).toBeNull();
  });

  it('draws each series on a log size axis, baselines dashed, without letting text break the SVG', () => {
    const svg = latencyChartSvg('a <title> & more', [
      {
        title: 'p50',
        series: [
          { name: 'product', color: '#111', dashed: false, points: [{ x: 10_000, y: 2 }, { x: 100_000, y: 3 }, { x: 1_000_000, y: 5 }] },
          { name: 'baseline', color: '#111', dashed: true, points: [{ x: 10_000, y: 1 }, { x: 1_000_000, y: NaN }] },
        ],
      },
    ]);
    expect(svg).toContain('a &lt;title&gt; &amp; more');
    expect(svg.match(/<polyline/g)).toHaveLength(2);
    expect(svg.match(/stroke-dasharray/g)?.length).toBe(2);
    for (const tick of ['10k', '100k', '1M']) expect(svg).toContain(`>${tick}</text>`);
    // Milliseconds on a log scale: one power of ten below the fastest point to one above the slowest.
    for (const tick of ['1', '10']) expect(svg).toContain(`text-anchor="end">${tick}</text>`);
    const xs = [...svg.matchAll(/<circle cx="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(xs.slice(0, 3)).toEqual([...xs.slice(0, 3)].sort((a, b) => a - b));
    expect(xs[1]! - xs[0]!).toBeCloseTo(xs[2]! - xs[1]!, 0);
  });
});
