import { BlockList, isIP } from 'node:net';

/** What the operator lets agent backends be: by default public https endpoints only. */
export interface BackendNetworkPolicy {
  /** Loopback addresses, and plain http to them (`--allow-http-loopback-backends`): for a backend on the same host. */
  allowLoopback: boolean;
  /** Private, link-local and other non-public ranges (`--allow-private-backends`): for a backend inside the network. */
  allowPrivate: boolean;
}

/** Public endpoints only: what a core serves with when no flag says otherwise. */
export const PUBLIC_BACKENDS_ONLY: BackendNetworkPolicy = { allowLoopback: false, allowPrivate: false };

/**
 * Where an address points. `metadata` (cloud instance metadata services) and `unusable` (unspecified, multicast,
 * broadcast) are refused whatever the policy: no agent backend lives there, and the first is the classic target of
 * a server-side request forgery.
 */
export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'reserved' | 'metadata' | 'unusable';

const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254']);

function blockList(ranges: readonly string[]): BlockList {
  const list = new BlockList();
  for (const range of ranges) {
    const [network, prefix] = range.split('/') as [string, string];
    list.addSubnet(network, Number(prefix), isIP(network) === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}

// Checked in this order, after an IPv6 address that embeds an IPv4 one has been reduced to it.
const RANGES: [Exclude<AddressClass, 'public' | 'metadata'>, BlockList][] = [
  ['unusable', blockList(['0.0.0.0/8', '224.0.0.0/4', '240.0.0.0/4', '::/128', 'ff00::/8'])],
  ['loopback', blockList(['127.0.0.0/8', '::1/128'])],
  ['private', blockList(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7'])],
  ['link-local', blockList(['169.254.0.0/16', 'fe80::/10'])],
  [
    'reserved',
    blockList([
      '192.0.0.0/24',
      '192.0.2.0/24',
      '192.88.99.0/24',
      '198.18.0.0/15',
      '198.51.100.0/24',
      '203.0.113.0/24',
      '::/96',
      '64:ff9b:1::/48',
      '100::/64',
      '2001::/23',
      '2001:db8::/32',
      '3fff::/20',
      '5f00::/16',
      'fec0::/10',
    ]),
  ],
];

/** Only 2000::/3 is global unicast; anything outside it that no range above names is unassigned. */
const GLOBAL_UNICAST_V6 = blockList(['2000::/3']);
/** Prefixes that carry an IPv4 address in their bits (mapped, NAT64, 6to4): the embedded address decides. */
const EMBEDS_V4: { range: BlockList; offset: number }[] = [
  { range: blockList(['::ffff:0:0/96', '64:ff9b::/96']), offset: 12 },
  { range: blockList(['2002::/16']), offset: 2 },
];

/** Classifies an IP address (v4 or v6, without brackets). Throws on a string that is not an IP address. */
export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) throw new TypeError(`${address} is not an IP address`);
  const type = family === 6 ? 'ipv6' : 'ipv4';
  const canonical = family === 6 ? canonicalV6(address) : address;
  if (family === 6) {
    const embedding = EMBEDS_V4.find(({ range }) => range.check(canonical, 'ipv6'));
    if (embedding) return classifyAddress(embeddedV4(canonical, embedding.offset));
  }
  if (METADATA.has(canonical)) return 'metadata';
  for (const [name, list] of RANGES) if (list.check(canonical, type)) return name;
  if (family === 4 || GLOBAL_UNICAST_V6.check(canonical, 'ipv6')) return 'public';
  return 'reserved';
}

/**
 * Why the policy refuses a backend at this address, or null when it may be called. Loopback needs either flag;
 * the other non-public ranges need `allowPrivate`.
 */
export function addressRefusal(address: string, policy: BackendNetworkPolicy): string | null {
  const kind = classifyAddress(address);
  switch (kind) {
    case 'public':
      return null;
    case 'metadata':
      return `${address} is a cloud metadata address, never a backend`;
    case 'unusable':
      return `${address} is not a unicast address a backend can listen on`;
    case 'loopback':
      return policy.allowLoopback || policy.allowPrivate
        ? null
        : `${address} is a loopback address (the core accepts these with --allow-http-loopback-backends)`;
    default:
      return policy.allowPrivate ? null : `${address} is a ${kind} address (the core accepts these with --allow-private-backends)`;
  }
}

/** The compressed lowercase form (`::ffff:10.0.0.1` becomes `::ffff:a00:1`), so set lookups compare reliably. */
function canonicalV6(address: string): string {
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

/** The IPv4 address held in bytes `offset..offset+3` of an IPv6 address in canonical form. */
function embeddedV4(address: string, offset: number): string {
  const [head = '', tail] = address.split('::') as [string, string | undefined];
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const words = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return words.flatMap((word) => [word >> 8, word & 0xff]).slice(offset, offset + 4).join('.');
}
