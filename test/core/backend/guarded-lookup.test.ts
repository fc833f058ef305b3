import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { BackendAddressError, addressRefusal, guardedLookup, type Resolver } from '../../../src/core/backend/index.js';

type Outcome = { error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

function lookupWith(lookup: ReturnType<typeof guardedLookup>, hostname: string, all: boolean): Promise<Outcome> {
  return new Promise((resolve) => lookup(hostname, { all }, (error, address, family) => resolve({ error, address, family })));
}

const publicOnly = (address: string) => addressRefusal(address, { allowLoopback: false, allowPrivate: false });
const fixed = (addresses: LookupAddress[]): Resolver => async () => addresses;

describe('guardedLookup', () => {
  it('refuses localhost through the system resolver when loopback is not allowed', async () => {
    const { error } = await lookupWith(guardedLookup(publicOnly), 'localhost', true);
    expect(error).toBeInstanceOf(BackendAddressError);
    expect(error!.message).toMatch(/^localhost resolves to .* loopback address/);
  });

  it('hands the socket exactly the checked addresses, all of them or the first', async () => {
    const addresses = [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ];
    const lookup = guardedLookup(publicOnly, fixed(addresses));
    expect(await lookupWith(lookup, 'example.test', true)).toEqual({ error: null, address: addresses, family: undefined });
    expect(await lookupWith(lookup, 'example.test', false)).toEqual({ error: null, address: '93.184.216.34', family: 4 });
  });

  it('refuses the name when any one address is refused', async () => {
    const lookup = guardedLookup(publicOnly, fixed([{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.1', family: 4 }]));
    const { error } = await lookupWith(lookup, 'mixed.test', true);
    expect(error).toBeInstanceOf(BackendAddressError);
    expect((error as BackendAddressError).refusal).toMatch(/10\.0\.0\.1 is a private address/);
  });

  it('passes resolution errors through and treats no address as not found', async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error('queryA ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' });
    };
    expect((await lookupWith(guardedLookup(publicOnly, failing), 'nowhere.test', true)).error?.code).toBe('ENOTFOUND');
    expect((await lookupWith(guardedLookup(publicOnly, fixed([])), 'empty.test', true)).error?.code).toBe('ENOTFOUND');
  });
});
