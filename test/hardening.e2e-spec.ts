import { connect } from 'node:net';
import { startTestApp, type TestApp } from './support/app.js';
import { registerOwner, type RegisteredOwner } from './support/factories.js';
import { createEventType } from './support/scheduling.js';
import { createWebhook } from './support/webhooks.js';

/** Sends bytes as they are (no HTTP client would send these) and returns the whole answer as text. */
function rawRequest(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request, 'latin1'));
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer')));
  });
}

function parseRaw(answer: string): { status: number; headers: Map<string, string>; body: any } {
  const [head, body] = answer.split('\r\n\r\n', 2);
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

describe('hardening: what the fuzzer found', () => {
  let t: TestApp;
  let owner: RegisteredOwner;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerOwner(t.http);
  });
  afterAll(async () => {
    await t.close();
  });

  describe('the HTTP parser’s refusals carry the API’s error body', () => {
    const controls = [0x00, 0x01, 0x0a, 0x1b, 0x1f, 0x7f].map((byte) => [byte.toString(16).padStart(2, '0'), byte] as const);
    it.each(controls)('a header value holding byte 0x%s gets 400 VALIDATION_ERROR with X-Request-Id', async (_hex, byte) => {
      const answer = await rawRequest(
        t.url,
        `GET /v1/users/me HTTP/1.1\r\nHost: x\r\nUser-Agent: bad${String.fromCharCode(byte)}agent\r\nIdempotency-Key: k\r\n\r\n`,
      );
      const { status, headers, body } = parseRaw(answer);
      expect(status).toBe(400);
      expect(headers.get('content-type')).toMatch(/^application\/json/);
      expect(headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{20}$/);
      expect(body).toEqual({ code: 'VALIDATION_ERROR', message: expect.any(String), requestId: headers.get('x-request-id') });
    });

    it('a malformed request line gets the same body', async () => {
      const { status, body } = parseRaw(await rawRequest(t.url, 'GET /v1/users/me HTTP/9\x01\r\n\r\n'));
      expect(status).toBe(400);
      expect(body.code).toBe('VALIDATION_ERROR');
    });

    it('a tab in a header value is legal and passes through', async () => {
      const answer = await rawRequest(t.url, 'GET /health HTTP/1.1\r\nHost: x\r\nUser-Agent: a\tb\r\nConnection: close\r\n\r\n');
      expect(answer.startsWith('HTTP/1.1 200')).toBe(true);
    });
  });

  describe('a body that is not a JSON object is 400 everywhere', () => {
    const notObjects = ['null', '5', '[]', '"text"', 'true'];
    it.each(notObjects)('PATCH /v1/users/me with %s', async (raw) => {
      const res = await t.http.request('PATCH', '/v1/users/me', {
        rawBody: raw,
        headers: { 'content-type': 'application/json' },
        token: owner.accessToken,
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.details).toEqual([{ field: 'body', message: 'The request body must be a JSON object' }]);
    });

    it('PATCH of an event type and of a webhook with null change nothing and answer 400', async () => {
      const eventTypeId = await createEventType(t, { token: owner.accessToken });
      const webhook = await createWebhook(t.http, { token: owner.accessToken }, { url: 'https://example.com/hook', events: ['*'] });
      for (const path of [`/v1/event-types/${eventTypeId}`, `/v1/webhooks/${webhook.id}`]) {
        const res = await t.http.request('PATCH', path, {
          rawBody: 'null',
          headers: { 'content-type': 'application/json' },
          token: owner.accessToken,
        });
        expect(res.status).toBe(400);
        expect(res.body.details[0].field).toBe('body');
      }
    });
  });

  describe('a wrong type says which type is expected, and only that', () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['durationMinutes', '30', /durationMinutes must be an integer/],
      ['description', 123, /description must be a string/],
      ['maxBookingsPerDay', true, /maxBookingsPerDay must be an integer/],
      ['minimumNoticeHours', 'soon', /minimumNoticeHours must be a number/],
      ['requiresConfirmation', 'yes', /requiresConfirmation must be a boolean/],
      ['hostUserIds', 'usr_x', /hostUserIds must be an array/],
    ];
    it.each(cases)('%s = %j', async (field, value, message) => {
      const res = await t.http.post(
        '/v1/event-types',
        { title: 'T', slug: 'typed', durationMinutes: 30, [field]: value },
        { token: owner.accessToken },
      );
      expect(res.status).toBe(400);
      const details = res.body.details.filter((detail: { field: string }) => detail.field === field);
      expect(details).toHaveLength(1);
      expect(details[0].message).toMatch(message);
    });
  });

  describe('a method the path does not have is 405 with Allow', () => {
    it.each([
      ['PUT', '/v1/event-types/evt_aaaaaaaaaaaaaaaaaaaaaaaa', 'DELETE, GET, HEAD, PATCH'],
      ['DELETE', '/v1/bookings', 'GET, HEAD, POST'],
      ['OPTIONS', '/v1/users/me', 'GET, HEAD, PATCH'],
      ['POST', '/health', 'GET, HEAD'],
      // A static path is not a parametric sibling's id (fuzzer finding: 400 about the id, and OPTIONS listed them).
      ['PATCH', '/v1/calendars/busy', 'GET, HEAD'],
      ['DELETE', '/v1/calendars/busy', 'GET, HEAD'],
      ['OPTIONS', '/v1/calendars/busy', 'GET, HEAD'],
    ])('%s %s', async (method, path, allow) => {
      const res = await t.http.request(method, path, { token: owner.accessToken });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(res.body).toEqual({ code: 'METHOD_NOT_ALLOWED', message: expect.stringContaining(allow), requestId: expect.any(String) });
    });

    it('TRACE too (fetch refuses to send it)', async () => {
      const { status, headers, body } = parseRaw(
        await rawRequest(t.url, 'TRACE /v1/bookings HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      );
      expect(status).toBe(405);
      expect(headers.get('allow')).toBe('GET, HEAD, POST');
      expect(body.code).toBe('METHOD_NOT_ALLOWED');
    });

    it('a path that does not exist stays 404 NOT_FOUND', async () => {
      const res = await t.http.request('PUT', '/v1/no-such-thing', { token: owner.accessToken });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    });
  });

  describe('one rule for malformed path ids: 400 naming the parameter, on every route', () => {
    const bad = 'not-an-id';
    const good = (prefix: string): string => `${prefix}_${'A'.repeat(24)}`;
    it.each([
      ['DELETE', () => `/v1/auth/sessions/${bad}`, 'id'],
      ['DELETE', () => `/v1/api-keys/${bad}`, 'id'],
      ['GET', () => `/v1/organizations/${bad}`, 'orgId'],
      ['PATCH', () => `/v1/organizations/${owner.organizationId}/members/${good('usr')}`, 'id'],
      ['GET', () => `/v1/event-types/${good('bkg')}`, 'id'],
      ['DELETE', () => `/v1/availability/overrides/${bad}`, 'id'],
      ['GET', () => `/v1/bookings/${bad}`, 'id'],
      ['POST', () => `/v1/bookings/${good('evt')}/cancel`, 'id'],
      ['POST', () => `/v1/bookings/${bad}/confirm`, 'id'],
      ['GET', () => `/v1/webhooks/${bad}`, 'id'],
      ['POST', () => `/v1/webhooks/${good('wh')}/deliveries/${bad}/retry`, 'deliveryId'],
    ] as Array<[string, () => string, string]>)('%s, field %#', async (method, path, field) => {
      const res = await t.http.request(method, path(), {
        token: owner.accessToken,
        body: method === 'GET' || method === 'DELETE' ? undefined : { role: 'admin' },
      });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([{ field, message: expect.stringContaining(field) }]);
    });

    it('ids in bodies and query strings follow the same rule', async () => {
      const booking = await t.http.post(
        '/v1/bookings',
        { eventTypeId: 'nope', startTime: '2027-03-01T10:00:00Z', timezone: 'UTC', attendee: { email: 'a@example.com' } },
        { token: owner.accessToken },
      );
      expect(booking.status).toBe(400);
      expect(booking.body.details).toEqual([{ field: 'eventTypeId', message: 'eventTypeId must be an id of the form evt_…' }]);
      const list = await t.http.get('/v1/bookings?hostUserId=mem_AAAAAAAAAAAAAAAAAAAAAAAA', { token: owner.accessToken });
      expect(list.status).toBe(400);
      expect(list.body.details[0].field).toBe('hostUserId');
    });

    it('a well-formed id of nothing is 404', async () => {
      expect((await t.http.get(`/v1/bookings/${good('bkg')}`, { token: owner.accessToken })).status).toBe(404);
      expect((await t.http.delete(`/v1/api-keys/${good('key')}`, { token: owner.accessToken })).status).toBe(404);
    });
  });
});
