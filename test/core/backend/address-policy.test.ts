import { describe, expect, it } from 'vitest';
import { addressRefusal, backendUrlProblem, classifyAddress, type AddressClass } from '../../../src/core/backend/index.js';

const CASES: [string, AddressClass][] = [
  ['8.8.8.8', 'public'],
  ['2606:4700::1111', 'public'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.1', 'public'],
  ['192.168.1.1', 'private'],
  ['100.64.1.1', 'private'],
  ['fc00::1', 'private'],
  ['fdab::1', 'private'],
  ['127.0.0.1', 'loopback'],
  ['127.9.9.9', 'loopback'],
  ['::1', 'loopback'],
  ['169.254.1.1', 'link-local'],
  ['fe80::1', 'link-local'],
  ['169.254.169.254', 'metadata'],
  ['fd00:ec2::254', 'metadata'],
  ['0.0.0.0', 'unusable'],
  ['::', 'unusable'],
  ['224.0.0.1', 'unusable'],
  ['255.255.255.255', 'unusable'],
  ['ff02::1', 'unusable'],
  ['192.0.2.7', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['2001:db8::1', 'reserved'],
  ['4000::1', 'reserved'],
  // IPv6 forms that carry an IPv4 address are judged by that address.
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:8.8.8.8', 'public'],
  ['64:ff9b::a00:1', 'private'],
  ['64:ff9b::808:808', 'public'],
  ['2002:a9fe:a9fe::1', 'metadata'],
  ['2002:808:808::1', 'public'],
];

describe('classifyAddress', () => {
  it.each(CASES)('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it('throws on a name', () => {
    expect(() => classifyAddress('example.com')).toThrow(/not an IP address/);
  });
});

describe('addressRefusal', () => {
  const none = { allowLoopback: false, allowPrivate: false };
  const loopback = { allowLoopback: true, allowPrivate: false };
  const all = { allowLoopback: false, allowPrivate: true };

  it('allows public addresses under every policy', () => {
    expect(addressRefusal('8.8.8.8', none)).toBeNull();
  });

  it('refuses loopback unless one of the flags allows it, and names the flag', () => {
    expect(addressRefusal('127.0.0.1', none)).toMatch(/loopback.*--allow-http-loopback-backends/);
    expect(addressRefusal('::1', loopback)).toBeNull();
    expect(addressRefusal('127.0.0.1', all)).toBeNull();
  });

  it('refuses private and link-local ranges unless --allow-private-backends', () => {
    expect(addressRefusal('10.0.0.5', none)).toMatch(/private.*--allow-private-backends/);
    expect(addressRefusal('10.0.0.5', loopback)).toMatch(/private/);
    expect(addressRefusal('fe80::1', none)).toMatch(/link-local/);
    expect(addressRefusal('10.0.0.5', all)).toBeNull();
    expect(addressRefusal('fe80::1', all)).toBeNull();
  });

  it('refuses metadata and unusable addresses whatever the policy', () => {
    const everything = { allowLoopback: true, allowPrivate: true };
    expect(addressRefusal('169.254.169.254', everything)).toMatch(/metadata/);
    expect(addressRefusal('fd00:ec2::254', everything)).toMatch(/metadata/);
    expect(addressRefusal('0.0.0.0', everything)).toMatch(/not a unicast/);
  });
});

describe('backendUrlProblem', () => {
  const none = { allowLoopback: false, allowPrivate: false };
  const loopback = { allowLoopback: true, allowPrivate: false };
  const all = { allowLoopback: false, allowPrivate: true };

  it('accepts a public https URL with a host name under any policy', () => {
    expect(backendUrlProblem('https://agent.example.com/teammate?x=1', none)).toBeNull();
    expect(backendUrlProblem('https://93.184.216.34:8443/', none)).toBeNull();
  });

  it.each([
    ['not a url', /full URL/],
    ['ftp://agent.example.com/', /https URL/],
    ['http://agent.example.com/', /must be https/],
    ['https://user:pw@agent.example.com/', /credentials/],
    ['https://agent.example.com/#frag', /fragment/],
    ['https://10.1.2.3/', /private/],
    ['https://[fc00::5]/', /private/],
    ['https://169.254.169.254/', /metadata/],
    ['https://[::ffff:169.254.169.254]/', /metadata/],
    ['https://127.0.0.1/', /loopback/],
    ['https://localhost/', /loopback name/],
    ['https://api.localhost/', /loopback name/],
    ['http://127.0.0.1:8788/', /--allow-http-loopback-backends/],
  ])('refuses %s by default', (url, reason) => {
    expect(backendUrlProblem(url, none)).toMatch(reason);
  });

  it('accepts loopback, over http too, only with the loopback flag', () => {
    expect(backendUrlProblem('http://127.0.0.1:8788/', loopback)).toBeNull();
    expect(backendUrlProblem('http://[::1]:8788/', loopback)).toBeNull();
    expect(backendUrlProblem('http://localhost:8788/', loopback)).toBeNull();
    expect(backendUrlProblem('https://localhost:8788/', loopback)).toBeNull();
    expect(backendUrlProblem('http://10.0.0.1/', loopback)).toMatch(/must be https/);
  });

  it('accepts private literals with --allow-private-backends, but never metadata or plain http off loopback', () => {
    expect(backendUrlProblem('https://10.1.2.3/', all)).toBeNull();
    expect(backendUrlProblem('https://[fe80::1]/', all)).toBeNull();
    expect(backendUrlProblem('https://169.254.169.254/', all)).toMatch(/metadata/);
    expect(backendUrlProblem('http://10.1.2.3/', all)).toMatch(/must be https/);
  });
});
