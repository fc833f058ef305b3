import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchResults } from '../../bench/model.js';
import { ensureBuilt, ROOT } from '../helpers/build.js';

const exec = promisify(execFile);

describe('npm run bench --quick, end to end on a tiny deployment', () => {
  let out: string;
  let results: BenchResults;
  let stderr: string;

  beforeAll(async () => {
    await ensureBuilt();
    out = await mkdtemp(join(tmpdir(), 'mm-bench-'));
    const args = ['bench/run.mjs', '--quick', '--sizes', '1500', '--seconds', '1', '--samples', '20', '--principals', '4', '--cli-runs', '2', '--out', out];
    ({ stderr } = await exec(process.execPath, args, { cwd: ROOT, timeout: 240_000 }));
    const json = (await readdir(out)).find((file) => file.endsWith('-quick.json'));
    results = JSON.parse(await readFile(join(out, json!), 'utf8')) as BenchResults;
  }, 300_000);

  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  it('measures ingest, list, search and the CLI beside their baselines', () => {
    const [size] = results.sizes;
    expect(size?.statements).toBe(1500);
    expect(size?.ingest?.store.counts.statements).toBe(1500);
    expect(size?.ingest?.bare.statementsPerSecond).toBeGreaterThan(0);
    expect(size?.list?.load.core.requestsPerSecond).toBeGreaterThan(0);
    expect(size?.list?.load.bare.requestsPerSecond).toBeGreaterThan(0);
    expect(size?.list?.load.core.non2xx).toBe(0);
    expect(size?.search?.length).toBeGreaterThan(0);
    for (const comparison of size?.search ?? []) expect(comparison.sql.samples).toBe(20);
    // The bare SQL answers the same question: its page holds records of the API's page.
    const same = size?.search?.reduce((sum, s) => sum + s.samePage, 0) ?? 0;
    expect(same).toBeGreaterThan(0);
    expect(size?.decisionsList?.samples).toBe(2);
    expect(size?.memory.afterLoad?.rssMiB).toBeGreaterThan(0);
    expect(results.coldStart?.memory.samples).toBeGreaterThanOrEqual(2);
  });

  it('says why anything was not measured, and judges every target', () => {
    for (const entry of results.notMeasured) expect(entry.reason).not.toBe('');
    for (const entry of results.notMeasured) expect(stderr).toContain(`not measured: ${entry.what}`);
    expect(results.targets.length).toBeGreaterThanOrEqual(8);
    expect(results.targets.find((t) => t.target.includes('1M statements'))?.met).toBeNull();
  });

  it('writes the Markdown report with its SVG chart', async () => {
    const files = await readdir(out);
    const md = await readFile(join(out, files.find((f) => f.endsWith('.md'))!), 'utf8');
    const svg = await readFile(join(out, files.find((f) => f.endsWith('.svg'))!), 'utf8');
    expect(md).toContain('## Targets');
    expect(md).toMatch(/!\[latency against size\]\(\d{4}-\d{2}-\d{2}-quick\.svg\)/);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('<polyline');
  });
});
