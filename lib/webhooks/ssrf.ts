import dns from 'node:dns';
import net, { BlockList } from 'node:net';

/**
 * SSRF guard for webhook endpoints. A webhook URL is chosen by an API client, so without a guard any client could
 * make the worker call the cloud metadata service, the database or an internal admin port. The check runs on the
 * address the socket will actually connect to (a custom `lookup` for host names, a direct check for IP literals),
 * so DNS rebinding between a check and the connect cannot bypass it. Redirects are never followed by the sender.
 */

// Special-purpose ranges (IANA IPv4/IPv6 special registries): nothing a public webhook receiver lives on.
const DENIED_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
const DENIED_V6: Array<[string, number]> = [
  ['::', 96], // unspecified, loopback, IPv4-compatible (IPv4-mapped ones are checked as IPv4)
  ['64:ff9b::', 96], // NAT64: would reach any IPv4 address, private ones included
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID...)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: embeds an arbitrary IPv4 address
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const denied = new BlockList();
for (const [address, prefix] of DENIED_V4) denied.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of DENIED_V6) denied.addSubnet(address, prefix, 'ipv6');

/** Parses `WEBHOOKS_ALLOWED_CIDRS` ("127.0.0.0/8, ::1/128, 10.1.2.3"): ranges exempted from the deny list. */
export function parseCidrList(text: string): BlockList {
  const list = new BlockList();
  for (const entry of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [address, prefixText] = entry.split('/');
    const type = net.isIP(address);
    const prefix = prefixText === undefined ? (type === 6 ? 128 : 32) : Number(prefixText);
    if (type === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > (type === 6 ? 128 : 32)) {
      throw new Error(`WEBHOOKS_ALLOWED_CIDRS: "${entry}" is not an IP address or CIDR range`);
    }
    list.addSubnet(address, prefix, type === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}

/** The 16 bytes of an IPv6 address (dotted-quad tail included), or undefined when it is not one. */
function ipv6Bytes(address: string): number[] | undefined {
  if (net.isIPv6(address) === false) return undefined;
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = text.slice(0, -dotted[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.flatMap((g) => {
    const value = parseInt(g, 16);
    return [value >> 8, value & 0xff];
  });
}

/** `::ffff:10.0.0.1` and `::ffff:a00:1` become `10.0.0.1`: the socket would reach that IPv4 host. */
export function canonicalAddress(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  if (net.isIPv4(address)) return { address, family: 'ipv4' };
  const bytes = ipv6Bytes(address);
  if (bytes && bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return { address: bytes.slice(12).join('.'), family: 'ipv4' };
  }
  return { address, family: 'ipv6' };
}

/** Whether the worker may connect to `address`: not in a special range, or in a range the operator allowed. */
export function isAddressAllowed(address: string, allowed: BlockList): boolean {
  if (net.isIP(address) === 0) return false;
  const { address: canonical, family } = canonicalAddress(address);
  if (allowed.check(canonical, family)) return true;
  return !denied.check(canonical, family);
}

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(host: string, address?: string) {
    super(
      `refusing to connect to ${host}${address && address !== host ? ` (${address})` : ''}: address in a blocked range (loopback, private, link-local, reserved); see WEBHOOKS_ALLOWED_CIDRS`,
    );
    this.name = 'BlockedAddressError';
  }
}

/**
 * Checks a URL before anything is sent: http(s) only, and an IP-literal host (the WHATWG parser has already turned
 * `2130706433` or `0x7f.1` into `127.0.0.1`) must be allowed. Host names are checked at connect time by `guardedLookup`.
 * @returns a message describing the refusal, or undefined when the URL may be used.
 */
export function checkEndpointUrl(endpoint: string, allowed: BlockList): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'endpoint should be a valid URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'endpoint should be an http or https URL';
  if (url.username || url.password) return 'endpoint should not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) !== 0 && !isAddressAllowed(host, allowed)) return new BlockedAddressError(host).message;
  if (host === 'localhost' || host.endsWith('.localhost')) {
    if (!isAddressAllowed('127.0.0.1', allowed)) return new BlockedAddressError(host, '127.0.0.1').message;
  }
  return undefined;
}

type LookupAll = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

/**
 * A `lookup` for http.request/net.connect that resolves every address of a host and keeps only the allowed ones, so
 * the socket connects to a vetted address. `resolve` is injectable for tests.
 */
export function guardedLookup(allowed: BlockList, resolve: LookupAll = dns.lookup as unknown as LookupAll) {
  return function lookup(hostname: string, options: dns.LookupOptions, callback: (...args: any[]) => void): void {
    resolve(hostname, { family: options.family, hints: options.hints, all: true }, (error, addresses) => {
      if (error) return callback(error);
      const usable = addresses.filter((a) => isAddressAllowed(a.address, allowed));
      if (usable.length === 0) return callback(new BlockedAddressError(hostname, addresses[0]?.address));
      if (options.all) return callback(null, usable);
      return callback(null, usable[0].address, usable[0].family);
    });
  };
}
