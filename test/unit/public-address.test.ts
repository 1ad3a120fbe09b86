// Which addresses a tenant-chosen host may reach (lib/public-address.ts): none of loopback,
// link-local (cloud metadata), private, CGNAT, unspecified, multicast or reserved ranges, in IPv4,
// IPv6 or IPv4-mapped spelling; and the socket's lookup answers only public addresses, failing
// when a name (a DNS-rebinding name, say) resolves to none.
import type { LookupAddress, LookupOptions } from 'node:dns';
import { describe, expect, it } from 'vitest';
import {
  isPublicAddress,
  NON_PUBLIC_CODE,
  NonPublicAddressError,
  publicOnlyLookup,
  type Resolve,
} from '../../src/lib/public-address.ts';

describe('isPublicAddress', () => {
  it.each([
    ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
    ['64:ff9b::127.0.0.1', 'NAT64 of 127.0.0.1, dotted'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of 169.254.169.254 (cloud metadata)'],
    ['64:FF9B:0:0:0:0:a00:1', 'NAT64 of 10.0.0.1, long form'],
    ['64:ff9b::c0a8:101', 'NAT64 of 192.168.1.1'],
    ['64:ff9b:1::a9fe:a9fe', 'local-use NAT64, /96 layout, of 169.254.169.254'],
    ['64:ff9b:1:7f00:0:100::', 'local-use NAT64, /48 layout, of 127.0.0.1'],
    ['64:ff9b:1:0:a9:fea9:fe00:0', 'local-use NAT64, /64 layout, of 169.254.169.254'],
    ['64:ff9b:1:a9fe:a9:fe00::', 'local-use NAT64, /48 layout, of 169.254.169.254'],
    // RFC 8215: a network may take any /96 inside 64:ff9b:1::/48, so the last 32 bits always count.
    ['64:ff9b:1:808:808:0:7f00:1', 'local-use NAT64, /96 prefix 64:ff9b:1:808:808::, of 127.0.0.1'],
    ['64:ff9b:1:808:808:0:a9fe:a9fe', 'local-use NAT64, /96 prefix 64:ff9b:1:808:808::, of 169.254.169.254'],
    ['64:FF9B:1:808:808::10.0.0.1', 'local-use NAT64, /96 prefix, dotted and uppercase, of 10.0.0.1'],
    ['2002:7f00:1::', '6to4 of 127.0.0.1'],
    ['2002:a9fe:a9fe::1', '6to4 of 169.254.169.254'],
    ['2002:c0a8:101:1::1', '6to4 of 192.168.1.1'],
    ['2002:0a00:0001::%eth0', '6to4 of 10.0.0.1 with a zone id'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo (its client IPv4, 127.0.0.1, XOR-hidden)'],
    ['::ffff:0:7f00:1', 'IPv4-translated ::ffff:0:127.0.0.1'],
    ['::ffff:0:169.254.169.254', 'IPv4-translated metadata, dotted'],
    ['100::1', 'discard-only'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation, RFC 9637 3fff::/20'],
    ['3fff:fff:ffff:ffff::1', 'documentation, the last address of 3fff::/20'],
  ])('when the address is %s (%s), then it is not public', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each([
    ['64:ff9b::808:808', 'NAT64 of 8.8.8.8'],
    ['64:ff9b::8.8.8.8', 'NAT64 of 8.8.8.8, dotted'],
    ['2002:808:808::1', '6to4 of 8.8.8.8'],
    ['64:ff9b:1::808:808', 'local-use NAT64, /96 layout, of 8.8.8.8'],
    ['64:ff9b:1:808:8:800::', 'local-use NAT64, /48 layout, of 8.8.8.8'],
    ['64:ff9b:1:808:8:808:800:0', 'local-use NAT64, /64 layout (prefix 64:ff9b:1:808::), of 8.8.8.8'],
    ['64:ff9b:1:808:808:0:808:808', 'local-use NAT64, /96 prefix 64:ff9b:1:808:808::, of 8.8.8.8'],
    ['64:ff9b:2::7f00:1', 'outside both NAT64 prefixes'],
  ])('when the address is %s (%s), then it is public', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '0.0.0.0',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fe80::1',
    'febf::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '::ffff:10.0.0.1',
    '::127.0.0.1',
    'ff02::1',
    'localhost',
  ])('when the address is %s, then it is not public', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '93.184.216.34',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
  ])('when the address is %s, then it is public', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });
});

const v4 = (address: string): LookupAddress => ({ address, family: 4 });
const v6 = (address: string): LookupAddress => ({ address, family: 6 });
const resolving =
  (answers: LookupAddress[]): Resolve =>
  async () =>
    answers;

/** What the lookup answers the socket: [err, address(es), family]. */
function lookupWith(resolve: Resolve, host: string, options: LookupOptions) {
  return new Promise<[NodeJS.ErrnoException | null, unknown, unknown]>((done) => {
    publicOnlyLookup(resolve)(host, options, (err, address, family) => done([err, address, family]));
  });
}

describe('publicOnlyLookup', () => {
  it('when a name resolves to 127.0.0.1, then the lookup fails with a non-public-address error naming it', async () => {
    const [err, address] = await lookupWith(resolving([v4('127.0.0.1')]), 'rebind.example.com', { all: true });

    expect(err).toBeInstanceOf(NonPublicAddressError);
    expect(err?.code).toBe(NON_PUBLIC_CODE);
    expect(err?.message).toMatch(/^rebind\.example\.com resolves to 127\.0\.0\.1, not a public address/);
    expect(address).toBe('');
  });

  it('when a name resolves to metadata and IPv4-mapped loopback only, then the lookup fails', async () => {
    const [err] = await lookupWith(resolving([v4('169.254.169.254'), v6('::ffff:127.0.0.1')]), 'x.example.com', {
      all: true,
    });

    expect(err?.code).toBe(NON_PUBLIC_CODE);
  });

  it('when a name resolves to private and public addresses, then only the public ones are answered', async () => {
    const answers = [v4('10.0.0.7'), v4('93.184.216.34'), v6('fd00::1'), v6('2606:4700::6810:85e5')];

    const [, all] = await lookupWith(resolving(answers), 'mixed.example.com', { all: true });
    const [, one, family] = await lookupWith(resolving(answers), 'mixed.example.com', {});
    const [, only6] = await lookupWith(resolving(answers), 'mixed.example.com', { all: true, family: 6 });

    expect(all).toEqual([v4('93.184.216.34'), v6('2606:4700::6810:85e5')]);
    expect([one, family]).toEqual(['93.184.216.34', 4]);
    expect(only6).toEqual([v6('2606:4700::6810:85e5')]);
  });

  it('when the resolver fails, then its error is passed on', async () => {
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND nope.example.com'), { code: 'ENOTFOUND' });

    const [err] = await lookupWith(() => Promise.reject(notFound), 'nope.example.com', { all: true });

    expect(err).toBe(notFound);
  });
});
