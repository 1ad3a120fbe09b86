// Outbound requests to an address a tenant chose (a self-hosted PostHog host) must not reach the
// machines beside the service: loopback, link-local (cloud metadata at 169.254.169.254), private
// and CGNAT ranges, unspecified, multicast and reserved addresses, in any spelling (IPv4-mapped
// IPv6 included; NAT64 64:ff9b::/96 and 64:ff9b:1::/48 and 6to4 2002::/16 are judged by the IPv4
// address they embed, since a translator or relay on the path delivers them there; Teredo and the
// IPv4-translated ::ffff:0:0:0/96 are refused whole). The check sits
// in the DNS lookup the socket itself uses, so the address checked is the address connected to:
// a name that answers a public address to a first query and a private one to the next (DNS
// rebinding) gets no second query.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const BLOCKED = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 3], // multicast, reserved, broadcast
] as const) {
  BLOCKED.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 96], // unspecified, loopback, IPv4-compatible (deprecated)
  ['::ffff:0:0:0', 96], // IPv4-translated (RFC 2765 ::ffff:0:a.b.c.d): a translator's inside
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo: a relay delivers to the client's IPv4, which the address hides (XOR)
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  BLOCKED.addSubnet(net, bits, 'ipv6');
}

/** The 16 bytes of a valid IPv6 address (isIP said 6), its zone id dropped. */
function ipv6Bytes(ip: string): number[] {
  let text = ip.replace(/%.*$/, '').toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.flatMap((g) => {
    const n = Number.parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

const dotted = (b: number[]): string => b.join('.');

/**
 * The IPv4 addresses an IPv6 address carries to a translator or relay: NAT64's well-known prefix
 * 64:ff9b::/96 (the last 32 bits); its local-use 64:ff9b:1::/48, inside which RFC 8215 lets a
 * network take any RFC 6052 prefix, a /96 such as 64:ff9b:1:808:808::/96 included: the /48, /56
 * and /64 layouts and the last 32 bits (the /96 layout) are all judged; and 6to4 2002::/16 (bits
 * 16-47). The last 32 bits are skipped only when zero: they are the suffix of the shorter layouts,
 * and no translator delivers to 0.0.0.0.
 */
function embeddedIpv4(ip: string): string[] {
  const b = ipv6Bytes(ip);
  const word = (i: number) => ((b[i] ?? 0) << 8) | (b[i + 1] ?? 0);
  if (word(0) === 0x2002) {
    return [dotted(b.slice(2, 6))];
  }
  if (word(0) !== 0x64 || word(2) !== 0xff9b || word(4) > 1) {
    return [];
  }
  const last32 = b.slice(12, 16);
  if (b.slice(6, 12).every((x) => x === 0)) {
    return [dotted(last32)];
  }
  if (word(4) === 0) {
    return []; // 64:ff9b::/32 outside the /96: no translator's prefix
  }
  // RFC 6052 skips bits 64-71 (the u octet): /48 = bytes 6,7,9,10; /56 = 7,9,10,11; /64 = 9-12.
  const layouts = [
    [6, 7, 9, 10],
    [7, 9, 10, 11],
    [9, 10, 11, 12],
  ].map((at) => dotted(at.map((i) => b[i] ?? 0)));
  return last32.every((x) => x === 0) ? layouts : [...layouts, dotted(last32)];
}

/** True for an IP address a tenant's request may reach (IPv4-mapped IPv6 is judged as its IPv4). */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) {
    return false;
  }
  // BlockList judges ::ffff:a.b.c.d (and its hex form) by the IPv4 rules.
  if (BLOCKED.check(ip, family === 4 ? 'ipv4' : 'ipv6')) {
    return false;
  }
  return family === 4 || embeddedIpv4(ip).every((v4) => !BLOCKED.check(v4, 'ipv4'));
}

export const NON_PUBLIC_CODE = 'ERR_NON_PUBLIC_ADDRESS';

/** The host resolved to no address a tenant's request may reach. */
export class NonPublicAddressError extends Error {
  readonly code = NON_PUBLIC_CODE;
  constructor(host: string, addresses: string[]) {
    super(
      `${host} resolves to ${addresses.join(', ') || 'no address'}, not a public address: ` +
        'requests to loopback, link-local, private or reserved addresses are refused',
    );
  }
}

/** Every address of a host name; the system resolver (what the socket would use) by default. */
export type Resolve = (host: string) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  });

const familyOf = (o: LookupOptions): number => {
  const f = o.family;
  return f === 4 || f === 'IPv4' ? 4 : f === 6 || f === 'IPv6' ? 6 : 0;
};

/**
 * A lookup for `net`/`http(s).request` that answers only the public addresses of a name and fails
 * with NonPublicAddressError when none is left, so nothing is connected to.
 */
export function publicOnlyLookup(resolve: Resolve = systemResolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (all) => {
        const family = familyOf(options);
        const candidates = family === 0 ? all : all.filter((a) => a.family === family);
        const allowed = candidates.filter((a) => isPublicAddress(a.address));
        const [first] = allowed;
        if (!first) {
          callback(
            new NonPublicAddressError(
              hostname,
              candidates.map((a) => a.address),
            ),
            '',
            0,
          );
        } else if (options.all) {
          callback(null, allowed);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}
