import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingOrg, type BookingOrg } from './support/bookings.js';
import { createApiKey } from './support/factories.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

/** The bytes as they travel (fetch would decompress them). */
function rawGet(url: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(url), { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const decode = (answer: RawAnswer): string => {
  const encoding = answer.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(answer.bytes).toString('utf8');
  if (encoding === 'gzip') return gunzipSync(answer.bytes).toString('utf8');
  return answer.bytes.toString('utf8');
};

describe('compression on the wire (issue 29)', () => {
  let t: TestApp;
  let org: BookingOrg;
  let path: string;
  beforeAll(async () => {
    t = await startTestApp();
    org = await bookingOrg(t);
    // 31 days of 30-minute slots: a large answer, like a visitor's phone asks for.
    path = `/v1/availability?eventTypeId=${org.eventTypeId}&start=2027-03-01&end=2027-03-31&timezone=Europe/Berlin`;
  });
  afterAll(async () => {
    await t.close();
  });

  it('compresses an availability answer by Accept-Encoding, to exactly the uncompressed answer, keeping Cache-Status', async () => {
    const auth = { authorization: `ApiKey ${org.apiKey}` };
    const plain = await rawGet(t.url + path, auth);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.bytes.length).toBeGreaterThan(10_000);
    expect(plain.headers['cache-status']).toBe('availability; fwd=miss');

    const br = await rawGet(t.url + path, { ...auth, 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toContain('Accept-Encoding');
    expect(br.headers['cache-status']).toBe('availability; hit');
    expect(decode(br)).toBe(plain.bytes.toString('utf8'));
    expect(br.bytes.length).toBeLessThan(plain.bytes.length / 5);
    expect(Number(br.headers['content-length'])).toBe(br.bytes.length);

    const gzip = await rawGet(t.url + path, { ...auth, 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(decode(gzip)).toBe(plain.bytes.toString('utf8'));
    // The cached answer keeps its compressed bytes: the same ones again.
    expect((await rawGet(t.url + path, { ...auth, 'accept-encoding': 'br' })).bytes.equals(br.bytes)).toBe(true);

    for (const accepted of ['identity', 'deflate', 'br;q=0, gzip;q=0']) {
      const none = await rawGet(t.url + path, { ...auth, 'accept-encoding': accepted });
      expect({ accepted, encoding: none.headers['content-encoding'] }).toEqual({ accepted, encoding: undefined });
      expect(none.bytes.toString('utf8')).toBe(plain.bytes.toString('utf8'));
    }

    // A change of what the answer depends on: a fresh answer, compressed too.
    await t.http.post(
      '/v1/bookings',
      { eventTypeId: org.eventTypeId, startTime: '2027-03-02T10:00:00Z', timezone: 'UTC', attendee: { email: 'c@example.com' } },
      {
        apiKey: org.apiKey,
      },
    );
    const fresh = await rawGet(t.url + path, { ...auth, 'accept-encoding': 'br' });
    expect(fresh.headers['cache-status']).toBe('availability; fwd=miss');
    expect(decode(fresh)).not.toBe(plain.bytes.toString('utf8'));
    expect(JSON.parse(decode(fresh)).slots.length).toBe(JSON.parse(plain.bytes.toString('utf8')).slots.length - 1);
  });

  it('compresses the public availability too, with Vary naming both Origin and Accept-Encoding', async () => {
    const pk = await createApiKey(t.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: ['https://shop.example.com'] });
    const answer = await rawGet(t.url + path.replace('/v1/availability', '/v1/public/availability'), {
      authorization: `ApiKey ${pk.apiKey}`,
      origin: 'https://shop.example.com',
      'accept-encoding': 'br',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('br');
    expect(String(answer.headers.vary).split(', ').sort()).toEqual(['Accept-Encoding', 'Origin']);
    expect(JSON.parse(decode(answer)).slots.length).toBeGreaterThan(100);
  });

  it('compresses other answers over 1 KB through @fastify/compress, and nothing smaller or unasked', async () => {
    const docs = await rawGet(`${t.url}/docs-json`, { 'accept-encoding': 'gzip' });
    expect(docs.headers['content-encoding']).toBe('gzip');
    expect(docs.headers.vary).toContain('accept-encoding');
    expect(JSON.parse(decode(docs)).openapi).toBeDefined();
    const health = await rawGet(`${t.url}/health`, { 'accept-encoding': 'br, gzip' });
    expect(health.headers['content-encoding']).toBeUndefined();
    const unasked = await rawGet(`${t.url}/docs-json`, {});
    expect(unasked.headers['content-encoding']).toBeUndefined();
    // Request bodies stay plain JSON: a compressed one is not unpacked.
    const res = await fetch(`${t.url}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: new Uint8Array(Buffer.from([0x1f, 0x8b, 0x08, 0x00])),
    });
    expect(res.status).toBe(400);
  });
});
