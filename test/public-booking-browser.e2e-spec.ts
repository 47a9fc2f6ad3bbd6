import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingOrg, type BookingOrg } from './support/bookings.js';
import { launchBrowser } from './support/browser.js';
import { createApiKey } from './support/factories.js';

/** A customer's site: an empty page on its own origin, from which the test's script calls the API. */
async function servePage(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><html lang="en"><head><title>Shop</title></head><body><h1>Book a call</h1></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** What the page's fetch got: an answer it could read, or the browser's refusal. */
type Outcome = { status?: number; body?: any; blocked?: string };

describe('CORS from a real browser on another origin (api-rules.md § Browser booking)', () => {
  let t: TestApp;
  let org: BookingOrg;
  let browser: Browser;
  let shop: { server: Server; origin: string };
  let stranger: { server: Server; origin: string };
  let pk: string;

  beforeAll(async () => {
    t = await startTestApp();
    org = await bookingOrg(t);
    [shop, stranger] = await Promise.all([servePage(), servePage()]);
    pk = (await createApiKey(t.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [shop.origin] })).apiKey;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    shop.server.close();
    stranger.server.close();
    await t.close();
  });

  /** Runs fetch in a page of `origin`, as the customer's script would; a CORS refusal surfaces as a TypeError. */
  async function fetchFrom(
    origin: string,
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
  ): Promise<Outcome> {
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/`);
      return await page.evaluate(
        async ({ url, method, headers, body }) => {
          try {
            const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
            return { status: response.status, body: await response.json() };
          } catch (error) {
            return { blocked: String(error) };
          }
        },
        { url: `${t.url}${path}`, method: init.method ?? 'GET', headers: init.headers ?? {}, body: init.body },
      );
    } finally {
      await page.close();
    }
  }

  it('a page on an allowed origin lists, holds and books (preflighted JSON POSTs) and reads every answer', async () => {
    const auth = { authorization: `ApiKey ${pk}` };
    const listed = await fetchFrom(shop.origin, '/v1/public/event-types', { headers: auth });
    expect(listed).toMatchObject({ status: 200, body: { totalCount: 1 } });
    const json = { ...auth, 'content-type': 'application/json' };
    const held = await fetchFrom(shop.origin, '/v1/public/holds', {
      method: 'POST',
      headers: json,
      body: { eventTypeId: org.eventTypeId, startTime: '2027-03-02T10:00:00Z', timezone: 'Europe/Berlin' },
    });
    expect(held).toMatchObject({ status: 201, body: { hold: { startsAt: '2027-03-02T10:00:00.000Z' } } });
    const { hold, holdToken } = (held as { body: { hold: { id: string }; holdToken: string } }).body;
    const booked = await fetchFrom(shop.origin, '/v1/public/bookings', {
      method: 'POST',
      headers: { ...json, 'idempotency-key': 'browser-1' },
      body: {
        eventTypeId: org.eventTypeId,
        startTime: '2027-03-02T10:00:00Z',
        timezone: 'Europe/Berlin',
        attendee: { email: 'browser@example.com' },
        holdId: hold.id,
        holdToken,
      },
    });
    expect(booked).toMatchObject({ status: 201, body: { booking: { status: 'confirmed' } } });
    // An error is readable too: the same time again is a 409 the page can show.
    const again = await fetchFrom(shop.origin, '/v1/public/bookings', {
      method: 'POST',
      headers: json,
      body: { eventTypeId: org.eventTypeId, startTime: '2027-03-02T10:00:00Z', timezone: 'UTC', attendee: { email: 'late@example.com' } },
    });
    expect(again).toMatchObject({ status: 409, body: { code: 'SLOT_UNAVAILABLE' } });

    // The attendee's own booking, by its token, from any page at all.
    const { id, confirmationToken } = (booked as { body: { booking: { id: string; confirmationToken: string } } }).body.booking;
    const mine = await fetchFrom(stranger.origin, `/v1/public/bookings/${id}`, {
      headers: { authorization: `Token ${confirmationToken}` },
    });
    expect(mine).toMatchObject({ status: 200, body: { booking: { id } } });
    const cancelled = await fetchFrom(stranger.origin, `/v1/bookings/${id}/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: { token: confirmationToken },
    });
    expect(cancelled).toMatchObject({ status: 200, body: { booking: { status: 'cancelled' } } });
  });

  it('a page on an origin the key does not list cannot read any answer, success or error', async () => {
    const auth = { authorization: `ApiKey ${pk}` };
    expect(await fetchFrom(stranger.origin, '/v1/public/event-types', { headers: auth })).toEqual({
      blocked: expect.stringContaining('TypeError'),
    });
    expect(
      await fetchFrom(stranger.origin, '/v1/public/holds', {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: { eventTypeId: org.eventTypeId, startTime: '2027-03-02T11:00:00Z', timezone: 'UTC' },
      }),
    ).toEqual({ blocked: expect.stringContaining('TypeError') });
    // Nothing was held by the refused page.
    expect((await t.http.get('/v1/holds', { apiKey: org.apiKey })).body.totalCount).toBe(0);
    // A route that is not for browsers answers no origin, even with valid credentials.
    expect(await fetchFrom(shop.origin, '/v1/event-types', { headers: { authorization: `ApiKey ${org.apiKey}` } })).toEqual({
      blocked: expect.stringContaining('TypeError'),
    });
  });
});
