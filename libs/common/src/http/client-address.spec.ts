import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig } from '../config/app-config.js';
import { clientAddress, clientAddressOf, fastifyTrustProxy } from './client-address.js';

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
    const app = Fastify({ trustProxy: fastifyTrustProxy(loadConfig({ TRUST_PROXY: trustProxy }).trustProxy) });
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
  ])('TRUST_PROXY=%s, peer %s, X-Forwarded-For %s: %s', async (trustProxy, peer, forwardedFor, expected) => {
    expect(await addressSeen(trustProxy, peer, forwardedFor)).toBe(expected);
  });
});
