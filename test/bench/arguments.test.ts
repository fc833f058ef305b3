import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from '../../bench/main.js';

describe('bench arguments', () => {
  it('keeps one principal for the CLI, so it refuses fewer than two', () => {
    expect(parseBenchArgs(['--quick', '--principals', '2']).principals).toBe(2);
    expect(() => parseBenchArgs(['--quick', '--principals', '1'])).toThrow('--principals takes 2 or more, not 1');
  });
});
