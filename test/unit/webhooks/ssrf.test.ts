import type dns from 'node:dns';
import { canonicalAddress, checkEndpointUrl, guardedLookup, isAddressAllowed, parseCidrList } from '../../../lib/webhooks/ssrf';

const none = parseCidrList('');

describe('SSRF guard', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '::1',
    '169.254.169.254',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '100.64.0.1',
    '0.0.0.0',
    '::',
    '224.0.0.1',
    '255.255.255.255',
    '240.0.0.1',
    '198.18.0.1',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
    '::ffff:a00:1',
    '::ffff:7f00:1',
    '64:ff9b::a00:1',
    '2002:7f00:1::1',
    '::127.0.0.1',
  ])('refuses %s by default', (address) => {
    expect(isAddressAllowed(address, none)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows the public address %s', (address) => {
    expect(isAddressAllowed(address, none)).toBe(true);
  });

  it('canonicalises IPv4-mapped IPv6 addresses in both notations', () => {
    expect(canonicalAddress('::ffff:10.0.0.1')).toEqual({ address: '10.0.0.1', family: 'ipv4' });
    expect(canonicalAddress('::FFFF:a00:1')).toEqual({ address: '10.0.0.1', family: 'ipv4' });
    expect(canonicalAddress('0:0:0:0:0:ffff:7f00:1')).toEqual({ address: '127.0.0.1', family: 'ipv4' });
  });

  it('refuses literal URLs: loopback, [::1], metadata, mapped, decimal and hex hosts', () => {
    for (const url of [
      'http://127.0.0.1/x',
      'http://[::1]:8080/',
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:10.0.0.1]/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://017700000001/',
      'http://localhost:3000/',
      'http://api.localhost/',
    ]) {
      expect(checkEndpointUrl(url, none)).toMatch(/blocked range/);
    }
    expect(checkEndpointUrl('ftp://example.com/', none)).toMatch(/http or https/);
    expect(checkEndpointUrl('not a url', none)).toMatch(/valid URL/);
    expect(checkEndpointUrl('https://user:pw@example.com/', none)).toMatch(/credentials/);
    expect(checkEndpointUrl('https://hooks.example.com/in', none)).toBeUndefined();
  });

  it('WEBHOOKS_ALLOWED_CIDRS exempts the listed ranges only', () => {
    const allowed = parseCidrList('127.0.0.0/8, ::1, 10.1.0.0/16');
    expect(isAddressAllowed('127.0.0.1', allowed)).toBe(true);
    expect(isAddressAllowed('::ffff:127.0.0.1', allowed)).toBe(true);
    expect(isAddressAllowed('::1', allowed)).toBe(true);
    expect(isAddressAllowed('10.1.2.3', allowed)).toBe(true);
    expect(isAddressAllowed('10.2.0.1', allowed)).toBe(false);
    expect(isAddressAllowed('169.254.169.254', allowed)).toBe(false);
    expect(checkEndpointUrl('http://2130706433/', allowed)).toBeUndefined();
    expect(() => parseCidrList('10.0.0.0/33')).toThrow(/WEBHOOKS_ALLOWED_CIDRS/);
    expect(() => parseCidrList('nope')).toThrow(/WEBHOOKS_ALLOWED_CIDRS/);
  });

  describe('connect-time lookup', () => {
    const resolver = (addresses: string[]) =>
      ((_host: string, _options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, a: dns.LookupAddress[]) => void) =>
        callback(
          null,
          addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
        )) as any;
    const lookup = (addresses: string[], all: boolean) =>
      new Promise<{ error?: Error; result?: unknown }>((resolve) =>
        guardedLookup(none, resolver(addresses))('hooks.example.com', { all }, (error: Error | null, result: unknown) =>
          resolve({ error: error ?? undefined, result }),
        ),
      );

    it('refuses a host name resolving only to private addresses', async () => {
      const { error } = await lookup(['10.0.0.7', '::ffff:192.168.0.1'], true);
      expect(error?.message).toMatch(/refusing to connect to hooks\.example\.com \(10\.0\.0\.7\)/);
    });

    it('keeps only the allowed addresses of a mixed answer (no rebinding to the private one)', async () => {
      expect((await lookup(['127.0.0.1', '93.184.216.34'], true)).result).toEqual([{ address: '93.184.216.34', family: 4 }]);
      expect((await lookup(['169.254.169.254', '93.184.216.34'], false)).result).toBe('93.184.216.34');
    });
  });
});
