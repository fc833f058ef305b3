import { describe, expect, it } from 'vitest';
import { ProgressBar } from '../../src/cli/output/progress.js';

function sink(isTTY: boolean) {
  const written: string[] = [];
  return { written, sink: { isTTY, columns: 80, write: (text: string) => void written.push(text) } };
}

describe('import progress bar', () => {
  it('redraws one line in place at most every 100 ms and clears it at the end', () => {
    let now = 0;
    const { written, sink: terminal } = sink(true);
    const bar = new ProgressBar(terminal, 'standup.vtt', 4 * 1024 * 1024, () => now);
    now = 100;
    bar.advance(1024 * 1024);
    bar.advance(1024 * 1024);
    now = 250;
    bar.advance(1024 * 1024);
    bar.finish();
    expect(written).toHaveLength(3);
    expect(written[0]).toMatch(/^\rstandup\.vtt \[#+\.+\]  25% 1\.0 MB\/4\.0 MB$/);
    expect(written[1]).toContain(' 75% 3.0 MB/4.0 MB');
    expect(written[2]).toBe('\r\u001b[2K');
  });

  it('draws nothing when stderr is not a terminal', () => {
    const { written, sink: terminal } = sink(false);
    const bar = new ProgressBar(terminal, 'x.vtt', 10, () => 1000);
    bar.advance(10);
    bar.finish();
    expect(written).toEqual([]);
  });
});
