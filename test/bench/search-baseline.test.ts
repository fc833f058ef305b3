import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestThroughStore, provisionBenchTenant } from '../../bench/ingest.js';
import { openBareSearch } from '../../bench/search-baseline.js';
import { openSqliteStore } from '../../src/core/store/index.js';
import type { Scope } from '../../src/core/store/store.js';

describe('the bare SQL search baseline', () => {
  let dir: string;
  let scope: Scope;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mm-bench-search-'));
    const store = await openSqliteStore(join(dir, 'memory.db'));
    try {
      ({ scope } = await provisionBenchTenant(store, 1));
      await ingestThroughStore(store, scope, { seed: 3, statements: 1500 });
    } finally {
      await store.close();
    }
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('finds the deployment records that hold the words, at most the page size', () => {
    const bare = openBareSearch(join(dir, 'memory.db'), scope);
    try {
      const one = bare.run('invoice', 20) as { text?: string; name?: string }[];
      expect(one.length).toBe(20);
      for (const record of one) expect(record.text ?? record.name).toMatch(/invoice/i);
      const both = bare.run('kill switch', 5) as { text?: string }[];
      expect(both.length).toBe(5);
      expect(both[0]?.text).toMatch(/kill switch/i);
      expect(bare.run('', 20)).toEqual([]);
    } finally {
      bare.close();
    }
  });

  it('refuses a deployment without a full-text table instead of timing nothing', () => {
    expect(() => openBareSearch(join(dir, 'memory.db'), { ...scope, deploymentId: 'elsewhere' })).toThrow(/full-text/);
  });
});
