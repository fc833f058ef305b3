import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';

/** Resolves a host name to every address it has (the system resolver by default; tests pass their own). */
export type Resolver = (hostname: string, options: { family: number }) => Promise<LookupAddress[]>;

/** A backend host name that resolves to an address the operator's policy refuses. */
export class BackendAddressError extends Error {
  readonly code = 'EBACKENDADDRESS';

  constructor(
    readonly hostname: string,
    readonly refusal: string,
  ) {
    super(`${hostname} resolves to ${refusal}`);
    this.name = 'BackendAddressError';
  }
}

/** The system resolver, every address of the name. */
export const systemResolver: Resolver = (hostname, options) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, family: options.family, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

/**
 * A `lookup` for net/tls connect that resolves the name, checks every address it returns, and hands the socket only
 * those checked addresses. The socket connects to what was checked, so a DNS answer that changes between a check
 * and the connect (rebinding) cannot slip a refused address through; one refused address refuses the name.
 */
export function guardedLookup(refusalOf: (address: string) => string | null, resolve: Resolver = systemResolver): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    resolve(hostname, { family: typeof options.family === 'number' ? options.family : 0 }).then(
      (addresses) => {
        const refused = addresses.map((entry) => refusalOf(entry.address)).find((reason) => reason !== null);
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 4);
        if (refused) return callback(new BackendAddressError(hostname, refused), '', 4);
        if (options.all) return callback(null, addresses);
        const [first] = addresses as [LookupAddress];
        return callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 4),
    );
  };
}
