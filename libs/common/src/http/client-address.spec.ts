import fc from 'fast-check';
import Fastify, { type FastifyInstance } from 'fastify';
import ipaddr from 'ipaddr.js';
import { loadConfig } from '../config/app-config.js';
import {
  clientAddress,
  clientAddressOf,
  fastifyTrustProxy,
  forwardedAddress,
  normalizeForwardedFor,
  trustedForwardedFor,
} from './client-address.js';

describe('clientAddressOf: what per-client rules count by', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:3::1', '2001:db8:1:3::/64'],
    ['::1', '::/64'],
    ['fe80::1%eth0', 'fe80::/64'],
    [undefined, 'unknown'],
    ['', 'unknown'],
    ['not-an-address', 'not-an-address'],
  ])('%s counts as %s', (ip, expected) => {
    expect(clientAddressOf(ip)).toBe(expected);
  });
});

describe('fastifyTrustProxy: the client address behind proxies (TRUST_PROXY)', () => {
  const apps: FastifyInstance[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
  });

  async function addressSeen(trustProxy: string | undefined, peer: string, forwardedFor?: string): Promise<string> {
    const app = Fastify({
      trustProxy: fastifyTrustProxy(loadConfig({ TRUST_PROXY: trustProxy }).trustProxy),
      rewriteUrl: normalizeForwardedFor,
    });
    apps.push(app);
    app.get('/', async (request) => clientAddress(request));
    const res = await app.inject({
      url: '/',
      remoteAddress: peer,
      headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    });
    return res.body;
  }

  it.each([
    // Unset: the TCP peer, whatever the header says.
    [undefined, '10.0.0.1', '203.0.113.7', '10.0.0.1'],
    // One proxy: the entry it appended; what the client sent before it is not believed.
    ['1', '10.0.0.1', '203.0.113.7', '203.0.113.7'],
    ['1', '10.0.0.1', '198.51.100.99, 203.0.113.7', '203.0.113.7'],
    ['1', '10.0.0.1', undefined, '10.0.0.1'],
    // Two proxies: the entry the outer one appended.
    ['2', '10.0.0.1', '198.51.100.99, 203.0.113.7, 10.0.0.2', '203.0.113.7'],
    // Listed proxies: believed only as far back as the hops are theirs.
    ['10.0.0.0/8', '10.0.0.1', '198.51.100.99, 203.0.113.7, 10.0.0.2', '203.0.113.7'],
    ['10.0.0.0/8', '198.51.100.1', '203.0.113.7', '198.51.100.1'],
    ['192.0.2.10, 2001:db8:ffff::/48', '2001:db8:ffff::1', '203.0.113.7', '203.0.113.7'],
    ['192.0.2.10, 2001:db8:ffff::/48', '::ffff:192.0.2.10', '203.0.113.7', '203.0.113.7'],
    // The derived address is grouped like a peer's: an IPv6 client counts as its /64.
    ['1', '10.0.0.1', '2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['1', '10.0.0.1', '::ffff:203.0.113.7', '203.0.113.7'],
    // An entry with a port is its address (contract § 19).
    ['1', '10.0.0.1', '203.0.113.7:51234', '203.0.113.7'],
    ['1', '10.0.0.1', '[2001:db8:1:2::1]:443', '2001:db8:1:2::/64'],
    ['1', '10.0.0.1', '[2001:db8:1:2::1]', '2001:db8:1:2::/64'],
    ['10.0.0.0/8', '10.0.0.1', '198.51.100.99, 203.0.113.7:80, 10.0.0.2:1234', '203.0.113.7'],
    // An entry that is no address is never the client: the nearest trusted hop's view, or the TCP peer.
    ['1', '10.0.0.1', 'unknown', '10.0.0.1'],
    ['1', '10.0.0.1', '203.0.113.7, not-an-address', '10.0.0.1'],
    ['1', '10.0.0.1', '203.0.113.7:99999', '10.0.0.1'],
    ['2', '10.0.0.1', '198.51.100.99, garbage, 10.0.0.2', '10.0.0.2'],
    ['10.0.0.0/8', '10.0.0.1', '_obfuscated, 10.0.0.2', '10.0.0.2'],
    ['10.0.0.0/8', '10.0.0.1', '10.1', '10.0.0.1'],
  ])('TRUST_PROXY=%s, peer %s, X-Forwarded-For %s: %s', async (trustProxy, peer, forwardedFor, expected) => {
    expect(await addressSeen(trustProxy, peer, forwardedFor)).toBe(expected);
  });
});

describe('forwardedAddress: an X-Forwarded-For entry as an address (contract § 19)', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    [' 203.0.113.7 ', '203.0.113.7'],
    ['203.0.113.7:51234', '203.0.113.7'],
    ['203.0.113.7:0', '203.0.113.7'],
    ['2001:db8::1', '2001:db8::1'],
    ['2001:DB8:0:0::1', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['[::ffff:203.0.113.7]:80', '::ffff:cb00:7107'],
    ['203.0.113.7:65536', undefined],
    ['203.0.113.7:', undefined],
    ['203.0.113.7:http', undefined],
    ['[2001:db8::1]:', undefined],
    ['[203.0.113.7]:80', undefined],
    ['2001:db8::1]:443', undefined],
    ['[2001:db8::1', undefined],
    ['fe80::1%eth0', undefined],
    ['10.1', undefined],
    ['010.0.0.1', undefined],
    ['256.0.0.1', undefined],
    ['unknown', undefined],
    ['_hidden', undefined],
    ['example.com', undefined],
    ['example.com:80', undefined],
    ['', undefined],
  ])('%j is %j', (entry, expected) => {
    expect(forwardedAddress(entry)).toBe(expected);
  });

  it('reads any IPv4 address with or without a port as that address', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.option(fc.integer({ min: 0, max: 65535 }), { nil: undefined }), (ip, port) => {
        expect(forwardedAddress(port === undefined ? ip : `${ip}:${port}`)).toBe(ip);
      }),
    );
  });

  it('reads any IPv6 address, bare or bracketed with or without a port, as that address', () => {
    fc.assert(
      fc.property(fc.ipV6(), fc.option(fc.integer({ min: 0, max: 65535 }), { nil: undefined }), (ip, port) => {
        const expected = ipaddr.IPv6.parse(ip).toString();
        expect(forwardedAddress(ip)).toBe(expected);
        expect(forwardedAddress(port === undefined ? `[${ip}]` : `[${ip}]:${port}`)).toBe(expected);
      }),
    );
  });

  it('answers an address or nothing for any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (entry) => {
        const address = forwardedAddress(entry);
        if (address !== undefined) expect(ipaddr.isValid(address)).toBe(true);
      }),
    );
  });
});

describe('trustedForwardedFor: the header as the trusted hops read it', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['198.51.100.9:1, 203.0.113.7:2', '198.51.100.9, 203.0.113.7'],
    ['evil, 203.0.113.7', '203.0.113.7'],
    ['198.51.100.9, evil, 203.0.113.7', '203.0.113.7'],
    ['203.0.113.7, unknown', undefined],
    ['', undefined],
    [['198.51.100.9', '[2001:db8::1]:443'], '198.51.100.9, 2001:db8::1'],
  ])('%j is %j', (header, expected) => {
    expect(trustedForwardedFor(header)).toBe(expected);
  });

  it('keeps only addresses, the nearest ones, and every entry after a kept one', () => {
    const entry = fc.oneof(
      fc.ipV4(),
      fc.ipV6(),
      fc.string({ maxLength: 20 }).filter((text) => !text.includes(',')),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 8 }), (entries) => {
        const trusted = trustedForwardedFor(entries.join(','));
        const kept = trusted === undefined ? [] : trusted.split(', ');
        for (const address of kept) expect(ipaddr.isValid(address)).toBe(true);
        const tail = entries.slice(entries.length - kept.length);
        expect(kept).toEqual(tail.map((item) => forwardedAddress(item)));
        if (kept.length < entries.length) expect(forwardedAddress(entries[entries.length - kept.length - 1])).toBeUndefined();
      }),
    );
  });
});
