import { readFileSync } from 'node:fs';
import type { OpenAPIObject, OperationObject, ParameterObject } from '@nestjs/swagger';
import {
  ApiError,
  AuthenticationError,
  createClient,
  IDEMPOTENT_POSTS,
  NotFoundError,
  oauth,
  paginate,
  RateLimitError,
  ServerError,
  unwrap,
  ValidationError,
  verifyWebhook,
  WebhookVerificationError,
} from '../libs/sdk/src/index.js';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingOrg, type BookingOrg } from './support/bookings.js';
import { insertBooking } from './support/bookings-sql.js';
import { createApiKey, registerOwner, type RegisteredOwner } from './support/factories.js';
import { WebhookReceiver } from './support/webhooks.js';

/** The service's PUBLIC_URL here: the issuer the SDK's OAuth helper is given; its requests are sent to the test app. */
const ISSUER = 'https://scheduling.test';
const REDIRECT = 'https://partner.example/callback';

/** A fetch in front of the app: answers `status` with `Retry-After` to the first request `when` picks, after it reached the app. */
function failingOnce(
  status: number,
  when: (request: Request) => boolean,
): { fetch: (request: Request) => Promise<Response>; seen: Request[]; times: number[] } {
  const seen: Request[] = [];
  const times: number[] = [];
  let failed = false;
  return {
    seen,
    times,
    fetch: async (request) => {
      seen.push(request.clone());
      times.push(Date.now());
      const response = await fetch(request);
      if (failed || !when(request)) return response;
      failed = true;
      await response.arrayBuffer();
      const body = { code: 'SERVICE_UNAVAILABLE', message: 'the answer was lost on its way back', requestId: 'req_proxy' };
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'retry-after': '1' } });
    },
  };
}

/** A booking's body, typed by the document (a wrong field is a compile error). */
function bookingBody(eventTypeId: string, startTime: string) {
  return { eventTypeId, startTime, timezone: 'UTC', attendee: { email: 'attendee@example.com', firstName: 'Ann' } };
}

describe('the SDK against the real app', () => {
  let t: TestApp;
  let org: BookingOrg;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp({ env: { PUBLIC_URL: ISSUER } });
    org = await bookingOrg(t);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it('authenticates with an API key and types the answers', async () => {
    const client = createClient({ baseUrl: t.url, apiKey: org.apiKey });
    const me = unwrap(await client.GET('/v1/users/me'));
    expect(me.organization.id).toBe(org.owner.organizationId);
    const eventType = unwrap(await client.GET('/v1/event-types/{id}', { params: { path: { id: org.eventTypeId } } }));
    expect(eventType.eventType.durationMinutes).toBe(30);
  });

  it('throws typed errors with the status, code, message, details and request id', async () => {
    const client = createClient({ baseUrl: t.url, apiKey: org.apiKey });
    const missing = await client
      .GET('/v1/bookings/{id}', { params: { path: { id: `bkg_${'A'.repeat(24)}` } } })
      .then(unwrap)
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
      message: expect.any(String),
      requestId: expect.stringMatching(/^req_/),
    });
    expect(ApiError.is(missing, 'NOT_FOUND', 'BOOKING_NOT_ACTIVE')).toBe(true);
    expect(ApiError.is(missing, 'SLOT_UNAVAILABLE')).toBe(false);

    const invalid = await client
      .POST('/v1/bookings', { body: bookingBody(org.eventTypeId, 'tomorrow') })
      .then(unwrap)
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ApiError).code).toBe('VALIDATION_ERROR');
    expect((invalid as ApiError).details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'startTime' })]));

    const stranger = createClient({ baseUrl: t.url, apiKey: 'mk_live_notakey' });
    const refused = await stranger
      .GET('/v1/users/me')
      .then(unwrap)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AuthenticationError);
    expect(refused).toMatchObject({ status: 401 });
  });

  it('retries a GET answered 429, after the Retry-After the answer gave', async () => {
    const proxy = failingOnce(429, (request) => request.method === 'GET');
    const client = createClient({ baseUrl: t.url, apiKey: org.apiKey, fetch: proxy.fetch });
    const me = unwrap(await client.GET('/v1/users/me'));
    expect(me.organization.id).toBe(org.owner.organizationId);
    expect(proxy.seen).toHaveLength(2);
    expect(proxy.times[1] - proxy.times[0]).toBeGreaterThanOrEqual(1000);
    expect(proxy.seen[1].headers.get('authorization')).toBe(`ApiKey ${org.apiKey}`);
  });

  it('a booking whose answer was lost is retried under its Idempotency-Key, and made once', async () => {
    const proxy = failingOnce(503, (request) => request.method === 'POST');
    const client = createClient({ baseUrl: t.url, apiKey: org.apiKey, fetch: proxy.fetch });
    const result = await client.POST('/v1/bookings', { body: bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z') });
    const booked = unwrap(result);
    expect(result.response.headers.get('idempotent-replayed')).toBe('true');
    expect(proxy.seen).toHaveLength(2);
    const keys = proxy.seen.map((request) => request.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(proxy.times[1] - proxy.times[0]).toBeGreaterThanOrEqual(1000);

    const atThatTime = [];
    for await (const booking of paginate(client, '/v1/bookings', { query: { eventTypeId: org.eventTypeId } })) {
      if (booking.startsAt === '2027-03-02T10:00:00.000Z') atThatTime.push(booking.id);
    }
    expect(atThatTime).toEqual([booked.booking.id]);

    // The caller's own key is kept; another attempt gets a key of its own.
    const again = failingOnce(503, () => false);
    const keyed = createClient({ baseUrl: t.url, apiKey: org.apiKey, fetch: again.fetch });
    await keyed.POST('/v1/bookings', {
      params: { header: { 'Idempotency-Key': 'partner-key-1' } },
      body: bookingBody(org.eventTypeId, '2027-03-02T11:00:00Z'),
    });
    await keyed.POST('/v1/bookings', { body: bookingBody(org.eventTypeId, '2027-03-02T12:00:00Z') });
    expect(again.seen[0].headers.get('idempotency-key')).toBe('partner-key-1');
    expect(again.seen[1].headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(again.seen[1].headers.get('idempotency-key')).not.toBe(keys[0]);
  });

  it('does not retry a POST without an Idempotency-Key', async () => {
    const proxy = failingOnce(503, (request) => request.method === 'POST');
    const client = createClient({ baseUrl: t.url, apiKey: org.apiKey, fetch: proxy.fetch });
    const result = await client.POST('/v1/event-types', { body: { title: 'Not retried', slug: 'not-retried', durationMinutes: 15 } });
    expect(result.response.status).toBe(503);
    expect(proxy.seen).toHaveLength(1);
    expect(() => unwrap(result)).toThrow(ServerError);
  });

  it('gives a 429 whose Retry-After is beyond maxRetryDelayMs back as a RateLimitError', async () => {
    const limited = (await createApiKey(t.http, org.owner.accessToken, { rateLimitPerMinute: 1 })).apiKey;
    const client = createClient({ baseUrl: t.url, apiKey: limited, maxRetryDelayMs: 2_000 });
    unwrap(await client.GET('/v1/users/me'));
    const error = await client
      .GET('/v1/users/me')
      .then(unwrap)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfter: expect.any(Number) });
    expect((error as RateLimitError).retryAfter).toBeGreaterThan(2);
  });

  it('iterates over every booking of a list of several pages', async () => {
    const many = await bookingOrg(t);
    const inserted = new Set<string>();
    const start = Date.parse('2027-03-08T00:00:00Z');
    for (let i = 0; i < 250; i++) {
      const startsAt = new Date(start + i * 3_600_000);
      inserted.add(
        await insertBooking(t, {
          organizationId: many.owner.organizationId,
          eventTypeId: many.eventTypeId,
          hostUserIds: [many.owner.userId],
          startsAt,
          endsAt: new Date(startsAt.getTime() + 1_800_000),
        }),
      );
    }
    const client = createClient({ baseUrl: t.url, apiKey: many.apiKey });
    const seen: string[] = [];
    for await (const booking of paginate(client, '/v1/bookings', { query: { limit: 100 } })) seen.push(booking.id);
    expect(seen).toHaveLength(250);
    expect(new Set(seen)).toEqual(inserted);
  }, 60_000);

  it('verifies a real signed delivery, and refuses it changed', async () => {
    const client = createClient({ baseUrl: t.url, apiKey: org.apiKey });
    const { secret } = unwrap(await client.POST('/v1/webhooks', { body: { url: receiver.url('/sdk'), events: ['booking.created'] } }));
    receiver.expectSecret('/sdk', secret);
    const booked = unwrap(await client.POST('/v1/bookings', { body: bookingBody(org.eventTypeId, '2027-03-03T10:00:00Z') }));
    await receiver.waitFor(() => receiver.at('/sdk').length > 0, 8000, 'the delivery');
    const [delivery] = receiver.at('/sdk');
    const headers = {
      'webhook-id': delivery.webhookId,
      'webhook-timestamp': delivery.timestamp,
      'webhook-signature': delivery.signature,
    };
    const event = verifyWebhook<{ booking: { id: string } }>({ secret, payload: delivery.body, headers });
    expect(event).toMatchObject({ type: 'booking.created', livemode: true, data: { booking: { id: booked.booking.id } } });
    expect(verifyWebhook({ secret, payload: new TextEncoder().encode(delivery.body), headers: new Headers(headers) }).id).toBe(event.id);
    expect(() => verifyWebhook({ secret, payload: delivery.body.replace('booking.created', 'booking.cancelled'), headers })).toThrow(
      WebhookVerificationError,
    );
  });

  it('connects a partner app with the OAuth helper (PKCE), acts with its token and refreshes it', async () => {
    const partner: RegisteredOwner = await registerOwner(t.http);
    // A user session's JWT, sent as Bearer.
    const session = createClient({ baseUrl: t.url, accessToken: partner.accessToken });
    const registered = unwrap(
      await session.POST('/v1/oauth-apps', {
        body: { name: 'SDK partner', type: 'confidential', redirectUris: [REDIRECT], scopes: ['bookings:read', 'team:read'] },
      }),
    );
    const rewrite = (url: string, init: RequestInit): Promise<Response> => fetch(url.replace(ISSUER, t.url), init);
    const common = { issuer: ISSUER, clientId: registered.app.clientId, clientSecret: registered.clientSecret, fetch: rewrite };

    const started = await oauth.authorizationUrl({ ...common, redirectUri: REDIRECT, scope: ['bookings:read', 'team:read'] });
    expect(new URL(started.url).searchParams.get('code_challenge_method')).toBe('S256');
    const sent = await fetch(started.url.replace(ISSUER, t.url), { redirect: 'manual' });
    expect(sent.status).toBe(302);
    const requestId = new URLSearchParams(sent.headers.get('location')!.split('?')[1]).get('request')!;
    const approved = await t.http.post(`/v1/oauth/requests/${requestId}/approve`, undefined, { token: org.owner.accessToken });
    expect(approved.status).toBe(200);

    const tokens = await oauth.exchangeCode({
      ...common,
      redirectUri: REDIRECT,
      callbackUrl: approved.body.redirectTo as string,
      codeVerifier: started.codeVerifier,
      state: started.state,
    });
    expect(tokens).toMatchObject({ accessToken: expect.stringMatching(/^oat_/), refreshToken: expect.stringMatching(/^ort_/) });
    expect(tokens.expiresAt).toBeGreaterThan(Date.now());

    const asApp = createClient({ baseUrl: t.url, accessToken: () => tokens.accessToken });
    const me = unwrap(await asApp.GET('/v1/users/me'));
    expect(me).toMatchObject({ organization: { id: org.owner.organizationId }, app: { name: 'SDK partner' } });

    const refreshed = await oauth.refresh({ ...common, refreshToken: tokens.refreshToken! });
    expect(refreshed.accessToken).toMatch(/^oat_/);
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    expect(refreshed.refreshToken).not.toBe(tokens.refreshToken);
    const again = createClient({ baseUrl: t.url, accessToken: refreshed.accessToken });
    expect(unwrap(await again.GET('/v1/users/me')).organization.id).toBe(org.owner.organizationId);
  });

  it('gives a key to exactly the POSTs the document says take one, and follows the API’s version', async () => {
    const document = (await (await fetch(`${t.url}/docs-json`)).json()) as OpenAPIObject;
    const documented: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item as Record<string, OperationObject>)) {
        if (((operation.parameters ?? []) as ParameterObject[]).some((parameter) => parameter.name === 'Idempotency-Key')) {
          expect(method).toBe('post');
          documented.push(path.replace(/\{[^}]+\}/g, 'bkg_1'));
        }
      }
    }
    expect(documented.length).toBe(IDEMPOTENT_POSTS.length);
    for (const path of documented) expect(IDEMPOTENT_POSTS.some((pattern) => pattern.test(path))).toBe(true);
    for (const pattern of IDEMPOTENT_POSTS) expect(documented.some((path) => pattern.test(path))).toBe(true);

    const sdk = JSON.parse(readFileSync(new URL('../libs/sdk/package.json', import.meta.url), 'utf8')) as { version: string };
    expect(sdk.version.split('.')[0]).toBe(document.info.version.split('.')[0]);
  });
});
