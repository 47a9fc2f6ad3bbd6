import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { DataSource } from 'typeorm';
import { createRootLogger } from '../apps/api/src/logging/logger.js';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingOrg } from './support/bookings.js';
import { createApiKey } from './support/factories.js';
import { HaproxyServer } from './support/haproxy.js';
import { responseContractFor } from './support/openapi.js';

const SHOP = 'https://shop.example.com';
/** Live holds one visitor (client address) may have per publishable key (api-rules.md § Browser booking). */
const HOLDS_PER_VISITOR = 5;
/** Six visitors, each from an address of its own on loopback (Linux answers all of 127.0.0.0/8); the proxy is 127.0.0.1. */
const VISITORS = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7'];
const STARTS = ['09:00', '09:30', '10:00', '10:30', '11:00', '11:30'].map((time) => `2027-03-02T${time}:00Z`);

interface Deployment {
  proxy: HaproxyServer;
  instances: TestApp[];
  /** What each instance logged about the requests it served. */
  logged: { remoteAddress: string; url: string }[][];
}

/**
 * Two instances on one database and clock behind Debian's HAProxy with the deployed configuration (`option
 * forwardfor`, round robin), started with `env` and `envB`; the visitors reach them only through the proxy.
 */
const deployed = new Set<Deployment>();

async function deploy(env: Record<string, string>, envB = env): Promise<Deployment> {
  const logged: Deployment['logged'] = [[], []];
  const logger = (i: number) =>
    createRootLogger(
      'info',
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString().split('\n').filter(Boolean)) {
            const entry = JSON.parse(line) as { req?: { remoteAddress: string; url: string } };
            if (entry.req) logged[i].push(entry.req);
          }
          done();
        },
      }),
    );
  const a = await startTestApp({ env, logger: logger(0) });
  const b = await startTestApp({ env: envB, logger: logger(1), databaseUrl: a.databaseUrl, clock: a.clock });
  const proxy = await HaproxyServer.start([a.url, b.url].map((url) => url.replace('http://', '')));
  const deployment = { proxy, instances: [a, b], logged };
  deployed.add(deployment);
  return deployment;
}

async function undeploy(deployment: Deployment): Promise<void> {
  deployed.delete(deployment);
  await deployment.proxy.stop();
  const [a, b] = deployment.instances;
  await b.app.close();
  await a.close();
}

/** A visitor's browser placing a hold through the proxy, its socket bound to the visitor's own address. */
async function hold(
  proxy: HaproxyServer,
  visitor: string,
  key: string,
  eventTypeId: string,
  startTime: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; code?: string }> {
  const payload = JSON.stringify({ eventTypeId, startTime, timezone: 'UTC' });
  const { status, contentType, text } = await new Promise<{ status: number; contentType: string; text: string }>((done, fail) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: proxy.port,
        localAddress: visitor,
        agent: false,
        method: 'POST',
        path: '/v1/public/holds',
        headers: { ...headers, authorization: `ApiKey ${key}`, origin: SHOP, 'content-type': 'application/json' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => done({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text: body }));
        res.on('error', fail);
      },
    );
    req.on('error', fail);
    req.end(payload);
  });
  const body = text && contentType.includes('json') ? (JSON.parse(text) as { code?: string }) : undefined;
  (await responseContractFor(proxy.url)).check('POST', `${proxy.url}/v1/public/holds`, status, contentType, body);
  return { status, code: body?.code };
}

async function holdsPerAddress(t: TestApp): Promise<Record<string, number>> {
  const rows: { client_ip: string; holds: number }[] = await t.app
    .get(DataSource)
    .query(`SELECT client_ip, count(*)::int AS holds FROM holds WHERE client_ip IS NOT NULL GROUP BY client_ip`);
  return Object.fromEntries(rows.map((row) => [row.client_ip, row.holds]));
}

/** Sites run behind load balancers: the client address every per-client rule counts by (contract § 19). */
describe('TRUST_PROXY behind a real HAProxy in front of two instances', () => {
  // One deployment at a time; one a failed test left behind goes here.
  afterAll(async () => {
    for (const deployment of [...deployed]) await undeploy(deployment);
  });

  it('unset: every visitor behind the proxy has the proxy’s address, so the sixth visitor of a site is refused a hold', async () => {
    const deployment = await deploy({});
    const [a] = deployment.instances;
    const org = await bookingOrg(a, { seatsPerSlot: VISITORS.length });
    const { apiKey } = await createApiKey(a.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] });

    const results = [];
    for (const visitor of VISITORS) results.push(await hold(deployment.proxy, visitor, apiKey, org.eventTypeId, STARTS[0]));
    expect(results.map((result) => result.status)).toEqual([201, 201, 201, 201, 201, 429]);
    expect(results[HOLDS_PER_VISITOR].code).toBe('HOLD_LIMIT_REACHED');
    expect(await holdsPerAddress(a)).toEqual({ '127.0.0.1': HOLDS_PER_VISITOR });

    await undeploy(deployment);
  });

  it('a hop count (1) or the proxy’s address: each visitor has its own holds and rate limit; a forged X-Forwarded-For changes nothing', async () => {
    // One instance each way: the proxy alternates between them, and both must find the same visitor.
    const { proxy, instances, logged } = await deploy({ TRUST_PROXY: '1' }, { TRUST_PROXY: '127.0.0.1' });
    const [a] = instances;
    // Seats of one start: a visitor's fair share of a host's held starts (2) does not limit its 5 holds there.
    const org = await bookingOrg(a, { seatsPerSlot: 40 });
    // The key's rate limit counts per key and client address: 10 a minute would not carry 30 holds on one address.
    const { apiKey } = await createApiKey(a.http, org.owner.accessToken, {
      kind: 'publishable',
      allowedOrigins: [SHOP],
      rateLimitPerMinute: 10,
    });
    const starts = Array.from({ length: HOLDS_PER_VISITOR }, () => STARTS[0]);

    const placed = await Promise.all(
      VISITORS.map(async (visitor) => {
        const statuses = [];
        for (const start of starts) statuses.push((await hold(proxy, visitor, apiKey, org.eventTypeId, start)).status);
        return statuses;
      }),
    );
    expect(placed).toEqual(VISITORS.map(() => starts.map(() => 201)));
    // Each visitor's own limit still holds.
    expect(await hold(proxy, VISITORS[0], apiKey, org.eventTypeId, STARTS[5])).toEqual({ status: 429, code: 'HOLD_LIMIT_REACHED' });
    // A visitor cannot choose its address by sending X-Forwarded-For: a full visitor naming a fresh address stays
    // itself, and a new visitor naming the full one is still a new visitor.
    const forged = await hold(proxy, VISITORS[0], apiKey, org.eventTypeId, STARTS[5], { 'x-forwarded-for': '127.0.0.99' });
    expect(forged).toEqual({ status: 429, code: 'HOLD_LIMIT_REACHED' });
    const posing = await hold(proxy, '127.0.0.8', apiKey, org.eventTypeId, STARTS[5], { 'x-forwarded-for': VISITORS[0] });
    expect(posing.status).toBe(201);

    expect(await holdsPerAddress(a)).toEqual({
      ...Object.fromEntries(VISITORS.map((visitor) => [visitor, HOLDS_PER_VISITOR])),
      '127.0.0.8': 1,
    });
    // Both instances served visitors, and logged each by its derived address too.
    for (const lines of logged) {
      const addresses = new Set(lines.filter((req) => req.url === '/v1/public/holds').map((req) => req.remoteAddress));
      expect(addresses.size).toBeGreaterThan(1);
      expect([...addresses].every((address) => [...VISITORS, '127.0.0.8'].includes(address))).toBe(true);
    }
  });
});
