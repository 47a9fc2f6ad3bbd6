import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Browser, Page, Route } from 'playwright-core';
import { CATALOGS } from '../apps/api/src/i18n/index.js';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, NOW, type BookingOrg } from './support/bookings.js';
import { buildBooker, launchBrowser, seriousViolations } from './support/browser.js';
import { createApiKey } from './support/factories.js';
import { hostPage, type HostPage } from './support/host-page.js';
import { createEventType, slots } from './support/scheduling.js';
import { fromAddress } from './support/visitor.js';

/** Screenshots of each step at 320 and 1280 pixels, and the load timings (git-ignored). */
const OUTPUT_DIR = join(resolve(fileURLToPath(new URL('.', import.meta.url)), '..'), 'test-output', 'booker');

describe('the embeddable booker (api-rules.md § Browser booking): one script tag books from another origin', () => {
  let t: TestApp;
  let org: BookingOrg;
  let browser: Browser;
  let bookerDir: string;
  let pk: string;
  let shop: HostPage;
  let german: HostPage;
  let stranger: HostPage;
  /** The attendee's "manage your booking" page (the links of the mails): its element is set by the test. */
  let manage: HostPage;
  let manageElement = '';
  /** A publishable key for the manage page's origin: rescheduling shows the event type's public free times. */
  let managePk: string;

  beforeAll(async () => {
    bookerDir = await buildBooker();
    t = await startTestApp({ env: { BOOKER_DIR: bookerDir } });
    org = await bookingOrg(t, { questions: [{ id: 'company', label: 'Company', type: 'text', required: true }] });
    const element = (locale: string) => () =>
      `<sched-booker key="${pk}" event-type="${org.eventTypeId}" timezone="Europe/Berlin" locale="${locale}"></sched-booker>`;
    [shop, german, stranger, manage] = await Promise.all([
      hostPage(t.url, element('en')),
      hostPage(t.url, element('de')),
      hostPage(t.url, element('en')),
      hostPage(t.url, () => manageElement),
    ]);
    pk = (await createApiKey(t.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [shop.origin, german.origin] })).apiKey;
    managePk = (await createApiKey(t.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [manage.origin] })).apiKey;
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    for (const page of [shop, german, stranger, manage]) page?.server.close();
    await t.close();
  });

  async function open(origin: string): Promise<Page> {
    const context = await browser.newContext({ timezoneId: 'Europe/Berlin' });
    const page = await context.newPage();
    // The browser's today is the API's (the test clock): the booker opens on that month.
    await page.clock.setFixedTime(new Date(t.clock.now()));
    const violations: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${origin}/`);
    (page as Page & { cspViolations: string[] }).cspViolations = violations;
    return page;
  }

  it('serves one script of at most 25 KB gzipped, cached for five minutes', async () => {
    const res = await fetch(`${t.url}/booker.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('content-type')).toContain('javascript');
    expect(gzipSync(readFileSync(join(bookerDir, 'booker.js'))).length).toBeLessThanOrEqual(25 * 1024);
  });

  it('books a meeting from a page on another origin under a strict CSP, checked through the API', async () => {
    const page = await open(shop.origin);
    // The test's own listener, through Playwright (in the page, so written as the page's script): the page's CSP
    // allows no inline script of its own.
    const booked = page.evaluate<Record<string, string>>(
      `new Promise((resolve) => document.addEventListener('sched:booked', (event) => resolve(event.detail)))`,
    );
    const day = page.locator('sched-booker button.has').first();
    await day.click();
    const time = page.locator('sched-booker ul button').first();
    const startsAt = (await time.getAttribute('data-start'))!;
    await time.click();
    // Sent empty: the errors beside their fields, announced.
    await page.locator('sched-booker button[type="submit"]').click();
    await page.locator('sched-booker #sched-name-error').waitFor();
    expect(await page.locator('sched-booker #sched-name').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('sched-booker [role="status"]').textContent()).toBe('Please check the fields marked below.');
    await page.locator('sched-booker #sched-name').fill('Ada Lovelace');
    await page.locator('sched-booker #sched-email').fill('ada@example.com');
    await page.locator('sched-booker #sched-q-company').fill('Analytical Engines');
    await page.locator('sched-booker button[type="submit"]').click();
    await page.locator('sched-booker h2', { hasText: 'You are booked' }).waitFor();
    const detail = await booked;
    expect(detail.status).toBe('confirmed');
    expect(Date.parse(detail.startsAt)).toBe(Date.parse(startsAt));
    expect(await page.locator('sched-booker a[download]').count()).toBe(1);

    const booking = (await t.http.get(`/v1/bookings/${detail.bookingId}`, { apiKey: org.apiKey })).body.booking;
    expect(booking).toMatchObject({
      attendee: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
      timezone: 'Europe/Berlin',
      answers: [{ id: 'company', label: 'Company', type: 'text', value: 'Analytical Engines' }],
    });
    expect(Date.parse(booking.startsAt)).toBe(Date.parse(startsAt));
    expect((page as Page & { cspViolations: string[] }).cspViolations).toEqual([]);
    await page.context().close();
  });

  it('keeps a held time from a second visitor until the first goes back', async () => {
    const first = await open(shop.origin);
    await first.locator('sched-booker button.has').first().click();
    const time = first.locator('sched-booker ul button').first();
    const startsAt = (await time.getAttribute('data-start'))!;
    await time.click();
    await first.locator('sched-booker #sched-name').waitFor();
    expect(await first.locator('sched-booker [role="status"]').textContent()).toContain('held for you');

    const second = await open(shop.origin);
    await second.locator('sched-booker button.has').first().click();
    await second.locator('sched-booker ul button').first().waitFor();
    expect(await second.locator(`sched-booker ul button[data-start="${startsAt}"]`).count()).toBe(0);

    await first.locator('sched-booker button', { hasText: 'Back' }).click();
    await first.locator('sched-booker ul button').first().waitFor();
    expect((await t.http.get('/v1/holds', { apiKey: org.apiKey })).body.totalCount).toBe(0);
    await first.context().close();
    await second.context().close();
  });

  it('is untouched by the page’s CSS, and finds nothing serious for axe', async () => {
    const page = await open(shop.origin);
    const day = page.locator('sched-booker button.has').first();
    await day.waitFor();
    const color = await page.evaluate<string>(
      `getComputedStyle(document.querySelector('sched-booker').shadowRoot.querySelector('button.has')).color`,
    );
    expect(color).not.toBe('rgb(255, 0, 0)');
    // And the booker's styles stay inside it: the page's heading keeps the page's size.
    expect(await page.evaluate<string>(`getComputedStyle(document.querySelector('h1')).fontSize`)).toBe('32px');
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });

  it('shows German weekday names and a Monday-first grid for locale="de"', async () => {
    const page = await open(german.origin);
    await page.locator('sched-booker button.has').first().waitFor();
    const weekdays = await page.locator('sched-booker .weekday').allTextContents();
    expect(weekdays[0]).toMatch(/^Mo/);
    expect(weekdays[6]).toMatch(/^So/);
    expect(await page.locator('sched-booker h3').first().textContent()).toBe('März 2027');
    await page.context().close();
  });

  it('speaks German from the shared catalog, fetched on demand under the strict CSP, and books with attendee.locale "de"', async () => {
    const page = await open(german.origin);
    const de = CATALOGS.de.booker;
    await page.locator('sched-booker button.has').first().click();
    await page.locator('sched-booker ul button').first().click();
    await page.locator('sched-booker #sched-name').fill('Grete Gast');
    await page.locator('sched-booker #sched-email').fill('grete@example.com');
    await page.locator('sched-booker #sched-q-company').fill('Gast GmbH');
    expect(await page.locator('sched-booker button[type="submit"]').textContent()).toBe(de.book);
    await page.locator('sched-booker button[type="submit"]').click();
    await page.locator('sched-booker h2', { hasText: de.confirmed }).waitFor();
    const bookings = (await t.http.get('/v1/bookings?attendeeEmail=grete@example.com', { apiKey: org.apiKey })).body.bookings;
    expect(bookings.map((b: { attendee: { locale: string } }) => b.attendee.locale)).toEqual(['de']);
    expect((page as Page & { cspViolations: string[] }).cspViolations).toEqual([]);
    await page.context().close();
    // The catalog the booker read, as the API serves it: the lookup the mails use (`de-AT` → `de`, `pt` → `pt-BR`).
    const served = async (tag: string) => (await fetch(`${t.url}/booker/locales/${tag}.json`)).json() as Promise<{ locale: string }>;
    expect((await served('de-AT')).locale).toBe('de');
    expect((await served('pt')).locale).toBe('pt-BR');
    expect((await served('zz')).locale).toBe('en');
    expect((await fetch(`${t.url}/booker/locales/not_a_tag.json`)).status).toBe(404);
  });

  it('manages a booking from its token (any origin, no key): shows until when it may change, refuses clearly, cancels', async () => {
    t.clock.set(NOW);
    const strict = await createEventType(
      t,
      { apiKey: org.apiKey },
      { durationMinutes: 30, attendeeCancellation: { noticeMinutes: 1440 }, attendeeRescheduling: { allowed: false } },
    );
    const booked = await t.http.post('/v1/bookings', bookingBody(strict, '2027-03-04T10:00:00Z'), { apiKey: org.apiKey });
    const { id, confirmationToken } = booked.body.booking;
    manageElement = `<sched-booker booking="${id}" token="${confirmationToken}" timezone="Europe/Berlin" locale="en"></sched-booker>`;
    const page = await open(manage.origin);
    await page.locator('sched-booker h2', { hasText: 'Your booking' }).waitFor();
    const policy = await page.locator('sched-booker p.policy').allTextContents();
    expect(policy[0]).toMatch(/^You can cancel online until .*March 3, 2027.*11:00.*\(Europe\/Berlin\)\.$/);
    expect(policy[1]).toBe('This booking cannot be rescheduled online. Please contact the host.');

    // The page still offers it, but the service's clock is past the notice: the refusal is said, nothing changes.
    t.clock.set('2027-03-03T10:00:01Z');
    await page.locator('sched-booker button', { hasText: 'Cancel booking' }).click();
    await page.locator('sched-booker [role="status"]', { hasText: 'too late to change this booking online' }).waitFor();
    expect((await t.http.get(`/v1/bookings/${id}`, { apiKey: org.apiKey })).body.booking.status).toBe('confirmed');

    t.clock.set(NOW);
    await page.locator('sched-booker button', { hasText: 'Cancel booking' }).click();
    await page.locator('sched-booker h2', { hasText: 'Your booking is cancelled' }).waitFor();
    expect((await t.http.get(`/v1/bookings/${id}`, { apiKey: org.apiKey })).body.booking.status).toBe('cancelled');
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });

  /** A booking of a new event type with that reschedule policy at that start, managed on a page with a key. */
  async function manageWithKey(startTime: string, attendeeRescheduling: Record<string, unknown>) {
    t.clock.set(NOW);
    const eventTypeId = await createEventType(t, { apiKey: org.apiKey }, { durationMinutes: 30, attendeeRescheduling });
    const booked = await t.http.post('/v1/bookings', bookingBody(eventTypeId, startTime), { apiKey: org.apiKey });
    const { id, confirmationToken } = booked.body.booking;
    manageElement = `<sched-booker key="${managePk}" booking="${id}" token="${confirmationToken}" timezone="Europe/Berlin" locale="en"></sched-booker>`;
    const page = await open(manage.origin);
    await page.locator('sched-booker h2', { hasText: 'Your booking' }).waitFor();
    const active = async () =>
      (await t.http.get(`/v1/bookings?eventTypeId=${eventTypeId}`, { apiKey: org.apiKey })).body.bookings.filter(
        (booking: { status: string }) => booking.status !== 'cancelled',
      );
    return { id, page, active };
  }

  /** Reschedule → a day → a time; the picked start and its label, with the confirmation shown. */
  async function pickNewTime(page: Page): Promise<{ startsAt: string; label: string }> {
    await page.locator('sched-booker button', { hasText: 'Reschedule' }).click();
    await page.locator('sched-booker button.has').first().click();
    const time = page.locator('sched-booker ul button').first();
    const picked = { startsAt: (await time.getAttribute('data-start'))!, label: (await time.textContent())! };
    await time.click();
    await page.locator('sched-booker p', { hasText: 'New: ' }).waitFor();
    return picked;
  }

  it('reschedules a booking from its token: a free time of its event type, the old one cancelled as rescheduled, the new one shown', async () => {
    const { id, page, active } = await manageWithKey('2027-03-04T10:00:00Z', { noticeMinutes: 60 });
    const moved = page.evaluate<Record<string, string>>(
      `new Promise((resolve) => document.addEventListener('sched:rescheduled', (event) => resolve(event.detail)))`,
    );
    const { startsAt, label } = await pickNewTime(page);
    await page.locator('sched-booker button', { hasText: 'Reschedule' }).click();
    await page.locator('sched-booker [role="status"]', { hasText: 'Your booking is moved to' }).waitFor();
    const detail = await moved;
    expect(detail.previousBookingId).toBe(id);
    expect(Date.parse(detail.startsAt)).toBe(Date.parse(startsAt));

    const old = (await t.http.get(`/v1/bookings/${id}`, { apiKey: org.apiKey })).body.booking;
    expect(old).toMatchObject({ status: 'cancelled', cancellationReason: 'rescheduled', rescheduledToBookingId: detail.bookingId });
    const now = await active();
    expect(now.map((booking: { id: string }) => booking.id)).toEqual([detail.bookingId]);
    expect(Date.parse(now[0].startsAt)).toBe(Date.parse(startsAt));
    // The new booking's time and policy, and its buttons act with its new token.
    expect(await page.locator('sched-booker h2').textContent()).toBe('Your booking');
    expect(await page.locator('sched-booker h2 + p').textContent()).toContain(label);
    expect((await page.locator('sched-booker p.policy').allTextContents())[1]).toMatch(
      /^You can reschedule online until .*\(Europe\/Berlin\)\.$/,
    );
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator('sched-booker button', { hasText: 'Cancel booking' }).click();
    await page.locator('sched-booker h2', { hasText: 'Your booking is cancelled' }).waitFor();
    expect(await active()).toEqual([]);
    await page.context().close();
  });

  it('sends a move again with the same key after a dropped answer: the API replays the move it made, shown as moved', async () => {
    const { id, page, active } = await manageWithKey('2027-03-04T12:00:00Z', { noticeMinutes: 60 });
    const attempts = await intercept(page, `/v1/bookings/${id}/reschedule`, [dropAnswer]);
    const { startsAt } = await pickNewTime(page);
    await page.locator('sched-booker button', { hasText: 'Reschedule' }).click();
    await page.locator('sched-booker [role="status"]', { hasText: 'Your booking is moved to' }).waitFor();
    expect(attempts).toHaveLength(2);
    expect(attempts[0].key).toMatch(/^[0-9a-f]{32}$/);
    expect(attempts[1].key).toBe(attempts[0].key);
    const now = await active();
    expect(now).toHaveLength(1);
    expect(Date.parse(now[0].startsAt)).toBe(Date.parse(startsAt));
    // A new locale keeps the moved booking on the page (not the cancelled original).
    await page.evaluate(`document.querySelector('sched-booker').setAttribute('locale', 'de')`);
    await page.locator('sched-booker h2', { hasText: /^Ihre Buchung$/ }).waitFor();
    expect(await page.locator('sched-booker h2 + p').textContent()).toContain(
      new Date(startsAt).toLocaleTimeString('de', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' }),
    );
    await page.context().close();
  });

  it('says a reschedule the policy refuses (past the notice) in words and changes nothing', async () => {
    const { id, page, active } = await manageWithKey('2027-03-04T11:00:00Z', { noticeMinutes: 1440 });
    await pickNewTime(page);
    // The page still offers it, but the service's clock is past the notice.
    t.clock.set('2027-03-03T11:00:01Z');
    await page.locator('sched-booker button', { hasText: 'Reschedule' }).click();
    await page.locator('sched-booker [role="status"]', { hasText: 'too late to change this booking online' }).waitFor();
    await page.locator('sched-booker h2', { hasText: 'Your booking' }).waitFor();
    const now = await active();
    expect(now.map((booking: { id: string; startsAt: string }) => [booking.id, booking.startsAt])).toEqual([
      [id, '2027-03-04T11:00:00.000Z'],
    ]);
    await page.context().close();
    t.clock.set(NOW);
  });

  it('says a reschedule to a time just taken in words, changes nothing and shows the times still free', async () => {
    const { id, page, active } = await manageWithKey('2027-03-04T14:00:00Z', {});
    const { startsAt } = await pickNewTime(page);
    const eventTypeId = (await active())[0].eventType.id;
    const other = await t.http.post('/v1/bookings', bookingBody(eventTypeId, startsAt), { apiKey: org.apiKey });
    expect(other.status).toBe(201);
    await page.locator('sched-booker button', { hasText: 'Reschedule' }).click();
    await page.locator('sched-booker [role="status"]', { hasText: 'That time was just taken' }).waitFor();
    await page.locator('sched-booker ul button').first().waitFor();
    expect(await page.locator(`sched-booker ul button[data-start="${startsAt}"]`).count()).toBe(0);
    const now = await active();
    expect(now.map((booking: { id: string }) => booking.id).sort()).toEqual([id, other.body.booking.id].sort());
    expect(now.find((booking: { id: string }) => booking.id === id).startsAt).toBe('2027-03-04T14:00:00.000Z');
    // Back to the booking as it is.
    await page.locator('sched-booker button', { hasText: 'Back' }).click();
    await page.locator('sched-booker h2', { hasText: 'Your booking' }).waitFor();
    await page.context().close();
  });

  it('says a reschedule of a booking the host cancelled meanwhile in words (BOOKING_NOT_ACTIVE), and moves nothing', async () => {
    const { id, page, active } = await manageWithKey('2027-03-04T15:00:00Z', {});
    await pickNewTime(page);
    expect((await t.http.post(`/v1/bookings/${id}/cancel`, {}, { apiKey: org.apiKey })).status).toBe(200);
    await page.locator('sched-booker button', { hasText: 'Reschedule' }).click();
    await page.locator('sched-booker [role="status"]', { hasText: 'already cancelled or has started' }).waitFor();
    expect(await active()).toEqual([]);
    await page.context().close();
  });

  it('offers no Reschedule when the policy forbids it (not allowed, or past the notice)', async () => {
    const forbidden = await manageWithKey('2027-03-04T12:00:00Z', { allowed: false });
    expect(await forbidden.page.locator('sched-booker button', { hasText: 'Cancel booking' }).count()).toBe(1);
    expect(await forbidden.page.locator('sched-booker button', { hasText: 'Reschedule' }).count()).toBe(0);
    await forbidden.page.context().close();

    const late = await manageWithKey('2027-03-04T13:00:00Z', { noticeMinutes: 1440 });
    expect(await late.page.locator('sched-booker button', { hasText: 'Reschedule' }).count()).toBe(1);
    // A day later in the browser and the service: a second past the notice.
    t.clock.set('2027-03-03T13:00:01Z');
    await late.page.clock.setFixedTime(new Date(t.clock.now()));
    await late.page.reload();
    await late.page.locator('sched-booker h2', { hasText: 'Your booking' }).waitFor();
    expect(await late.page.locator('sched-booker button', { hasText: 'Cancel booking' }).count()).toBe(1);
    expect(await late.page.locator('sched-booker button', { hasText: 'Reschedule' }).count()).toBe(0);
    await late.page.context().close();
    t.clock.set(NOW);
  });

  it('says clearly that the page is not allowed, on an origin the key does not list', async () => {
    const page = await open(stranger.origin);
    await page.locator('sched-booker [role="alert"]').waitFor();
    expect(await page.locator('sched-booker [role="alert"]').textContent()).toContain('not allowed on this site');
    await page.context().close();
  });

  /** Axe finds nothing serious or critical; nothing wider than the viewport at 320 and 1280 pixels; a screenshot at each. */
  async function step(page: Page, name: string): Promise<void> {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    expect({ name, violations: await seriousViolations(page) }).toEqual({ name, violations: [] });
    for (const width of [320, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const wide = await page.evaluate<number>('document.documentElement.scrollWidth');
      expect({ name, width, scrollWidth: wide }).toEqual({ name, width, scrollWidth: width });
      await page.screenshot({ path: join(OUTPUT_DIR, `${name}-${width}.png`), fullPage: true });
    }
  }

  it('completes by keyboard alone (arrow keys through days and times), announcing the hold, at 320 and 1280 pixels', async () => {
    const page = await open(shop.origin);
    await page.setViewportSize({ width: 320, height: 900 });
    await page.locator('sched-booker button.has').first().waitFor();
    await step(page, '1-days');
    // Into the booker: the zone picker, the month buttons, then the chosen day (one tab stop for the grid).
    const focused = () =>
      page.evaluate<string | null>(
        `(() => {
          const active = document.querySelector('sched-booker').shadowRoot.activeElement;
          return active ? (active.getAttribute('data-date') ?? active.getAttribute('data-start') ?? active.id ?? active.textContent) : null;
        })()`,
      );
    for (let i = 0; i < 10 && !/^\d{4}-\d{2}-\d{2}$/.test(String(await focused())); i++) await page.keyboard.press('Tab');
    const firstDay = String(await focused());
    expect(firstDay).toMatch(/^2027-03-\d{2}$/);
    await page.keyboard.press('ArrowRight');
    const nextDay = String(await focused());
    expect(nextDay > firstDay).toBe(true);
    await page.keyboard.press('Enter');
    for (let i = 0; i < 5 && !/T/.test(String(await focused())); i++) await page.keyboard.press('Tab');
    const firstTime = String(await focused());
    expect(firstTime.startsWith(nextDay)).toBe(true);
    await page.keyboard.press('ArrowDown');
    const chosen = String(await focused());
    expect(chosen > firstTime).toBe(true);
    await step(page, '2-times');
    await page.keyboard.press('Enter');
    await page.locator('sched-booker #sched-name').waitFor();
    expect(await page.locator('sched-booker [role="status"]').textContent()).toContain('held for you');
    expect(await focused()).toBe('sched-name');
    await step(page, '3-form');
    await page.keyboard.type('Grace Hopper');
    await page.keyboard.press('Tab');
    await page.keyboard.type('grace@example.com');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Navy');
    await page.keyboard.press('Tab'); // Back
    await page.keyboard.press('Tab'); // Book
    await page.keyboard.press('Enter');
    await page.locator('sched-booker h2', { hasText: 'You are booked' }).waitFor();
    await step(page, '4-booked');
    const booked = (await t.http.get('/v1/bookings?attendeeEmail=grace@example.com', { apiKey: org.apiKey })).body.bookings;
    expect(booked).toHaveLength(1);
    expect(Date.parse(booked[0].startsAt)).toBe(Date.parse(chosen));
    await page.context().close();
  }, 60_000);

  it('says so when a time was taken meanwhile, and shows the times still free', async () => {
    const page = await open(shop.origin);
    await page.locator('sched-booker button.has').nth(2).click();
    const time = page.locator('sched-booker ul button').first();
    const startsAt = (await time.getAttribute('data-start'))!;
    const taken = await t.http.post(
      '/v1/bookings',
      {
        eventTypeId: org.eventTypeId,
        startTime: startsAt,
        timezone: 'UTC',
        attendee: { email: 'first@example.com' },
        answers: { company: 'X' },
      },
      { apiKey: org.apiKey },
    );
    expect(taken.status).toBe(201);
    await time.click();
    await page.locator('sched-booker [role="status"]', { hasText: 'just taken' }).waitFor();
    await page.locator('sched-booker ul button').first().waitFor();
    expect(await page.locator(`sched-booker ul button[data-start="${startsAt}"]`).count()).toBe(0);
    await page.context().close();
  });

  it('shows the same instants in Europe/Berlin and America/New_York across the DST changes, through the zone picker', async () => {
    const page = await open(shop.origin);
    await page.locator('sched-booker button.has').first().waitFor();
    const firstTimeOn = async (date: string): Promise<{ label: string; start: string }> => {
      await page.locator(`sched-booker button[data-date="${date}"]`).click();
      const button = page.locator('sched-booker ul button').first();
      await button.waitFor();
      return { label: (await button.textContent())!, start: (await button.getAttribute('data-start'))! };
    };
    // 09:00 UTC: 10:00 in Berlin before its change (March 28), 11:00 after; 04:00 in New York before its change (March 14), 05:00 after.
    const berlin = { before: await firstTimeOn('2027-03-12'), after: await firstTimeOn('2027-03-29') };
    const zone = page.locator('sched-booker #sched-zone');
    await zone.fill('America/New_York');
    await zone.dispatchEvent('change');
    await page.locator('sched-booker #sched-zone-offset', { hasText: /GMT-[45]/ }).waitFor();
    const newYork = { before: await firstTimeOn('2027-03-12'), after: await firstTimeOn('2027-03-15') };
    expect([berlin.before.label, berlin.after.label]).toEqual(['10:00 AM', '11:00 AM']);
    expect([newYork.before.label, newYork.after.label]).toEqual(['4:00 AM', '5:00 AM']);
    for (const slot of [berlin.before, berlin.after, newYork.before, newYork.after]) expect(new Date(slot.start).getUTCHours()).toBe(9);
    expect(newYork.before.start).toBe('2027-03-12T04:00:00.000-05:00');
    expect(newYork.after.start).toBe('2027-03-15T05:00:00.000-04:00');
    await page.context().close();
  });

  it('is ready to book within 3× the time this browser takes to load a blank page from the same server', async () => {
    // A blank page: navigation to its load event. The booker: from the host page's load event (the script has run)
    // to the first day's times being clickable (the event type and the month's slots asked for and shown).
    const measure = async (url: string, ready?: (page: Page) => Promise<unknown>): Promise<number> => {
      const page = await open(shop.origin);
      let started = Date.now();
      await page.goto(url, { waitUntil: 'load' });
      if (ready) {
        started = Date.now();
        await ready(page);
      }
      const elapsed = Date.now() - started;
      await page.context().close();
      return elapsed;
    };
    const blank: number[] = [];
    const booker: number[] = [];
    // Rounds of five of each, up to three while the fastest booker is over budget: this file starts beside the heaviest
    // ones (on a fresh clone, four workers compiling at once), and a busy stretch can outlast five loads.
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 5; i++) {
        blank.push(await measure(`${shop.origin}/blank`));
        // From navigation to the first day's times clickable: the page, the script, the event type, the month's slots.
        booker.push(await measure(`${shop.origin}/`, (page) => page.locator('sched-booker ul button').first().waitFor()));
      }
      if (Math.min(...booker) <= 3 * Math.min(...blank)) break;
    }
    const bytes = gzipSync(readFileSync(join(bookerDir, 'booker.js'))).length;
    mkdirSync(OUTPUT_DIR, { recursive: true });
    writeFileSync(join(OUTPUT_DIR, 'timings.json'), JSON.stringify({ blankMs: blank, bookerMs: booker, gzipBytes: bytes }, null, 2));
    // The fastest of each: the booker's own cost, not what the other test files running beside it cost (the API
    // answers from this same process, so a loaded machine slowed the booker's median fourfold and a blank page not at all).
    expect(Math.min(...booker)).toBeLessThanOrEqual(3 * Math.min(...blank));
  });

  /** The first free time's form, filled in for `email`. */
  async function fillForm(page: Page, email: string): Promise<void> {
    await page.locator('sched-booker button.has').first().click();
    await page.locator('sched-booker ul button').first().click();
    await page.locator('sched-booker #sched-name').fill('Ada Lovelace');
    await page.locator('sched-booker #sched-email').fill(email);
    await page.locator('sched-booker #sched-q-company').fill('Analytical Engines');
  }

  /** From now on, everything the booker's live region says, in order: what the attendee is told. */
  async function listen(page: Page): Promise<() => Promise<string[]>> {
    await page.evaluate(`(() => {
      const live = document.querySelector('sched-booker').shadowRoot.querySelector('[role="status"]');
      window.said = [];
      new MutationObserver(() => live.textContent && window.said.push(live.textContent)).observe(live, { childList: true, subtree: true });
    })()`);
    return () => page.evaluate<string[]>('window.said');
  }

  /**
   * How much sooner than its delay the page's retry may reach this process: the page's timers (under Playwright's
   * clock, which `open` fixes) ran 36, 46 and 56 ms short of the test's monotonic clock on loaded machines (a 1,000 ms
   * wait seen as 954 and 944, a 500 ms one as 464). A retry that ignored Retry-After (≤ 750 ms) or did not back off
   * (0 ms) still fails.
   */
  const TIMER_SLACK_MS = 150;

  interface Attempt {
    key: string | undefined;
    sentAt: number;
    /** When the test began to answer it (a lower bound of when the page's wait began). */
    answeredAt: number;
  }

  type Answer = (route: Route, attempt: Attempt) => Promise<void>;

  /** The page's POSTs to `path`, answered in turn by `answers`, then by the API. */
  async function intercept(page: Page, path: string, answers: Answer[]): Promise<Attempt[]> {
    const attempts: Attempt[] = [];
    await page.route(`${t.url}${path}`, async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      const attempt: Attempt = { key: route.request().headers()['idempotency-key'], sentAt: performance.now(), answeredAt: 0 };
      attempts.push(attempt);
      await (answers[attempts.length - 1] ?? ((r: Route) => r.continue()))(route, attempt);
    });
    return attempts;
  }

  /** An error answer in the API's shape and CORS headers, made up by the test. */
  const refuse =
    (status: number, code: string, retryAfter?: number): Answer =>
    (route, attempt) => {
      attempt.answeredAt = performance.now();
      return route.fulfill({
        status,
        headers: {
          'access-control-allow-origin': shop.origin,
          'access-control-expose-headers': 'Retry-After, X-Request-Id',
          ...(retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) }),
        },
        json: { code, message: code, requestId: 'req_test' },
      });
    };

  /** The request reaches the API (which books), but the answer never reaches the page. */
  const dropAnswer: Answer = async (route, attempt) => {
    await route.fetch();
    attempt.answeredAt = performance.now();
    await route.abort('connectionreset');
  };

  const bookingsOf = async (email: string): Promise<unknown[]> =>
    (await t.http.get(`/v1/bookings?attendeeEmail=${encodeURIComponent(email)}`, { apiKey: org.apiKey })).body.bookings;

  const HELD = 'This time is held for you for 10 min.';

  it('waits out IDEMPOTENCY_KEY_IN_USE for its Retry-After, then sends the same key again: booked once, never "taken"', async () => {
    const page = await open(shop.origin);
    const said = await listen(page);
    const attempts = await intercept(page, '/v1/public/bookings', [refuse(409, 'IDEMPOTENCY_KEY_IN_USE', 1)]);
    await fillForm(page, 'in-use@example.com');
    await page.locator('sched-booker button[type="submit"]').click();
    await page.locator('sched-booker h2', { hasText: 'You are booked' }).waitFor();
    expect(await said()).toEqual([HELD, 'You are booked']);
    expect(attempts).toHaveLength(2);
    expect(attempts[1].key).toBe(attempts[0].key);
    expect(attempts[1].sentAt - attempts[0].answeredAt).toBeGreaterThanOrEqual(1000 - TIMER_SLACK_MS);
    expect(await bookingsOf('in-use@example.com')).toHaveLength(1);
    await page.context().close();
  });

  it('backs off after a dropped connection, then sends the same key again: the API replays the booking it made', async () => {
    const page = await open(shop.origin);
    const said = await listen(page);
    const attempts = await intercept(page, '/v1/public/bookings', [dropAnswer]);
    await fillForm(page, 'dropped@example.com');
    await page.locator('sched-booker button[type="submit"]').click();
    await page.locator('sched-booker h2', { hasText: 'You are booked' }).waitFor();
    expect(await said()).toEqual([HELD, 'You are booked']);
    expect(attempts).toHaveLength(2);
    expect(attempts[1].key).toBe(attempts[0].key);
    // The first wait is at least half a second.
    expect(attempts[1].sentAt - attempts[0].answeredAt).toBeGreaterThanOrEqual(500 - TIMER_SLACK_MS);
    expect(await bookingsOf('dropped@example.com')).toHaveLength(1);
    await page.context().close();
  });

  /** The ids of the org's live holds at `startsAt`. */
  const liveHoldsAt = async (startsAt: string): Promise<string[]> =>
    (
      (await t.http.get(`/v1/holds?eventTypeId=${org.eventTypeId}&limit=100`, { apiKey: org.apiKey })).body.holds as {
        id: string;
        startsAt: string;
      }[]
    )
      .filter((hold) => Date.parse(hold.startsAt) === Date.parse(startsAt))
      .map((hold) => hold.id);

  /** From now on, the details of the booker's `sched:held` events, in order. */
  async function heldEvents(page: Page): Promise<() => Promise<Record<string, string>[]>> {
    await page.evaluate(`(() => {
      window.held = [];
      document.addEventListener('sched:held', (event) => window.held.push(event.detail));
    })()`);
    return () => page.evaluate<Record<string, string>[]>('window.held');
  }

  /** The bodies of the page's POST /public/bookings, as sent. */
  function bookingBodies(page: Page): Record<string, unknown>[] {
    const bodies: Record<string, unknown>[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/v1/public/bookings')) bodies.push(request.postDataJSON());
    });
    return bodies;
  }

  async function until(condition: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 100 && !(await condition()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await condition()).toBe(true);
  }

  it('sends a hold again with the same key after a dropped answer: the API replays the one hold it made, and it books', async () => {
    const page = await open(shop.origin);
    const said = await listen(page);
    const held = await heldEvents(page);
    const bodies = bookingBodies(page);
    const attempts = await intercept(page, '/v1/public/holds', [dropAnswer]);
    await fillForm(page, 'held-once@example.com');
    expect(attempts).toHaveLength(2);
    expect(attempts[0].key).toMatch(/^[0-9a-f]{32}$/);
    expect(attempts[1].key).toBe(attempts[0].key);
    expect(attempts[1].sentAt - attempts[0].answeredAt).toBeGreaterThanOrEqual(500 - TIMER_SLACK_MS);
    // One hold (the first try's, replayed with its token), shown with its countdown.
    const [hold, ...more] = await held();
    expect(more).toEqual([]);
    expect(await liveHoldsAt(hold.startsAt)).toEqual([hold.holdId]);
    expect(await page.locator('sched-booker [data-countdown]').count()).toBe(1);
    await page.locator('sched-booker button[type="submit"]').click();
    await page.locator('sched-booker h2', { hasText: 'You are booked' }).waitFor();
    expect(await said()).toEqual([HELD, 'You are booked']);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toMatchObject({ holdId: hold.holdId, holdToken: expect.any(String) });
    // The booking took the hold's place: no hold is left to count against the visitor.
    expect(await liveHoldsAt(hold.startsAt)).toEqual([]);
    expect(await bookingsOf('held-once@example.com')).toHaveLength(1);
    await page.context().close();
  });

  it('releases its hold when the page goes into the back/forward cache, and holds the time again when it comes back', async () => {
    const page = await open(shop.origin);
    const said = await listen(page);
    const held = await heldEvents(page);
    const bodies = bookingBodies(page);
    await fillForm(page, 'came-back@example.com');
    const [first] = await held();
    expect(await liveHoldsAt(first.startsAt)).toEqual([first.holdId]);
    // Playwright's Chromium runs without the cache (--disable-back-forward-cache): its events, as the browser sends them.
    await page.evaluate(`window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true }))`);
    await until(async () => (await liveHoldsAt(first.startsAt)).length === 0);
    await page.evaluate(`window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }))`);
    await until(async () => (await held()).length === 2);
    const second = (await held())[1];
    expect(Date.parse(second.startsAt)).toBe(Date.parse(first.startsAt));
    expect(await liveHoldsAt(first.startsAt)).toEqual([second.holdId]);
    // The form is the one left, with what was entered, and it books through the new hold.
    expect(await page.locator('sched-booker #sched-name').inputValue()).toBe('Ada Lovelace');
    await page.locator('sched-booker button[type="submit"]').click();
    await page.locator('sched-booker h2', { hasText: 'You are booked' }).waitFor();
    expect(await said()).toEqual([HELD, HELD, 'You are booked']);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toMatchObject({ holdId: second.holdId });
    expect(await liveHoldsAt(first.startsAt)).toEqual([]);
    expect(await bookingsOf('came-back@example.com')).toHaveLength(1);
    await page.context().close();
  });

  it('says the outcome is unknown after five tries without a decisive answer (never "taken"), and booking again is safe', async () => {
    const page = await open(shop.origin);
    const said = await listen(page);
    const unavailable = refuse(503, 'SERVICE_UNAVAILABLE');
    const drop: Answer = (route) => route.abort('connectionreset');
    const attempts = await intercept(page, '/v1/public/bookings', [dropAnswer, unavailable, drop, unavailable, drop]);
    await fillForm(page, 'unknown@example.com');
    await page.locator('sched-booker button[type="submit"]').click();
    const status = page.locator('sched-booker [role="status"]');
    // The backoff (0.5 s, 1 s, 2 s, 4 s and their jitter) passes on the page's clock, not the test's.
    for (let i = 0; i < 200 && !(await status.textContent())?.includes('cannot tell'); i++) {
      await page.clock.fastForward(10_000);
      await page.waitForTimeout(20);
    }
    const unknown = (await status.textContent())!;
    expect(await said()).toEqual([HELD, unknown]);
    expect(unknown).toContain('cannot tell whether this time was booked');
    expect(attempts).toHaveLength(5);
    expect(new Set(attempts.map((attempt) => attempt.key)).size).toBe(1);
    // The first try did book: the attendee's mail has it. Changed details under the same key (422
    // IDEMPOTENCY_KEY_REUSED) are told that the time may be booked already; Book again with the details first sent
    // replays the booking instead of booking twice.
    expect(await bookingsOf('unknown@example.com')).toHaveLength(1);
    await page.locator('sched-booker #sched-name').fill('Ada King');
    await page.locator('sched-booker button[type="submit"]').click();
    for (let i = 0; i < 100 && !(await status.textContent())?.includes('may already be booked'); i++) await page.waitForTimeout(50);
    expect(await status.textContent()).toContain('may already be booked');
    expect(await bookingsOf('unknown@example.com')).toHaveLength(1);
    await page.locator('sched-booker #sched-name').fill('Ada Lovelace');
    await page.locator('sched-booker button[type="submit"]').click();
    await page.locator('sched-booker h2', { hasText: 'You are booked' }).waitFor();
    expect(attempts.map((attempt) => attempt.key)).toEqual(Array(7).fill(attempts[0].key));
    expect(await bookingsOf('unknown@example.com')).toHaveLength(1);
    await page.context().close();
  });

  it('shows the API’s VALIDATION_ERROR beside its field, keeping what the attendee entered', async () => {
    const page = await open(shop.origin);
    await fillForm(page, 'ada@');
    await page.locator('sched-booker button[type="submit"]').click();
    await page.locator('sched-booker #sched-email-error').waitFor();
    expect(await page.locator('sched-booker #sched-email').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('sched-booker [role="status"]').textContent()).toBe('Please check the fields marked below.');
    expect(await page.locator('sched-booker #sched-name').inputValue()).toBe('Ada Lovelace');
    expect(await page.locator('sched-booker #sched-q-company').inputValue()).toBe('Analytical Engines');
    await page.locator('sched-booker #sched-email').fill('ada@example.org');
    await page.locator('sched-booker button[type="submit"]').click();
    await page.locator('sched-booker h2', { hasText: 'You are booked' }).waitFor();
    expect(await bookingsOf('ada@example.org')).toHaveLength(1);
    await page.context().close();
  });

  const NOT_HELD = 'This time could not be held for you, but you can still book it: it stays open to others until you do.';

  it('goes on to the form without a hold when the hold is refused with HOLD_LIMIT_REACHED; says RATE_LIMITED as it is', async () => {
    const page = await open(shop.origin);
    const said = await listen(page);
    await intercept(page, '/v1/public/holds', [refuse(429, 'HOLD_LIMIT_REACHED')]);
    const attempts = await intercept(page, '/v1/public/bookings', [refuse(429, 'RATE_LIMITED', 90)]);
    const bodies: unknown[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/v1/public/bookings')) bodies.push(request.postDataJSON());
    });
    // The form comes at once, with no countdown: nothing is held.
    await fillForm(page, 'limited@example.com');
    expect(await page.locator('sched-booker [data-countdown]').count()).toBe(0);
    expect(await page.locator('sched-booker [role="alert"]').count()).toBe(0);
    await page.locator('sched-booker button[type="submit"]').click();
    await page.locator('sched-booker [role="status"]', { hasText: 'Too many attempts' }).waitFor();
    expect(await said()).toEqual([NOT_HELD, 'Too many attempts from your connection. Please try again in 2 min.']);
    expect(attempts).toHaveLength(1);
    expect(bodies[0]).not.toHaveProperty('holdId');
    expect(bodies[0]).not.toHaveProperty('holdToken');
    expect(await page.locator('sched-booker button[type="submit"]').isEnabled()).toBe(true);
    expect(await page.locator('sched-booker #sched-name').inputValue()).toBe('Ada Lovelace');
    expect(await bookingsOf('limited@example.com')).toHaveLength(0);
    await page.locator('sched-booker button', { hasText: 'Back' }).click();
    await page.locator('sched-booker ul button').first().waitFor();
    await page.context().close();
  });

  it('books a host whose 10 held starts two other addresses keep: the third visitor goes on without a hold and is booked', async () => {
    // Two addresses hold the host's first 10 free starts through the page's keys (each key and address its fair share: 2).
    const keys = await Promise.all(
      [1, 2, 3].map(
        async () => (await createApiKey(t.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [shop.origin] })).apiKey,
      ),
    );
    const now = new Date(t.clock.now()).getTime();
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const free = await slots(t, { apiKey: org.apiKey }, org.eventTypeId, day(now), day(now + 7 * 86_400_000));
    const starts: string[] = free
      .filter((slot) => Date.parse(slot.start) > now)
      .slice(0, 11)
      .map((slot) => slot.start);
    const held: { address: string; key: string; id: string; token: string }[] = [];
    for (const [i, startTime] of starts.slice(0, 10).entries()) {
      const address = i % 2 ? '127.0.0.3' : '127.0.0.2';
      const key = keys[Math.floor(i / 4)];
      const res = await fromAddress(
        t,
        address,
        'POST',
        '/v1/public/holds',
        { authorization: `ApiKey ${key}`, origin: shop.origin },
        {
          eventTypeId: org.eventTypeId,
          startTime,
          timezone: 'UTC',
        },
      );
      expect(res.status).toBe(201);
      held.push({ address, key, id: res.body.hold.id, token: res.body.holdToken });
    }
    try {
      const page = await open(shop.origin);
      const said = await listen(page);
      const booked = page.evaluate<Record<string, string>>(
        `new Promise((resolve) => document.addEventListener('sched:booked', (event) => resolve(event.detail)))`,
      );
      const holdAnswers: number[] = [];
      page.on('response', (response) => {
        if (response.request().method() === 'POST' && response.url().endsWith('/v1/public/holds')) holdAnswers.push(response.status());
      });
      await page.locator('sched-booker button.has').first().click();
      const time = page.locator('sched-booker ul button').first();
      expect(Date.parse((await time.getAttribute('data-start'))!)).toBe(Date.parse(starts[10]));
      await time.click();
      await page.locator('sched-booker #sched-name').fill('Third Visitor');
      await page.locator('sched-booker #sched-email').fill('third@example.com');
      await page.locator('sched-booker #sched-q-company').fill('Persistence Ltd');
      await page.locator('sched-booker button[type="submit"]').click();
      await page.locator('sched-booker h2', { hasText: 'You are booked' }).waitFor();
      expect(holdAnswers).toEqual([429]);
      expect((await said())[0]).toBe(NOT_HELD);
      const detail = await booked;
      const booking = (await t.http.get(`/v1/bookings/${detail.bookingId}`, { apiKey: org.apiKey })).body.booking;
      expect(booking).toMatchObject({ status: 'confirmed', attendee: { email: 'third@example.com' } });
      expect(Date.parse(booking.startsAt)).toBe(Date.parse(starts[10]));
      // The others' holds are untouched: still 10.
      expect((await t.http.get('/v1/holds?limit=100', { apiKey: org.apiKey })).body.totalCount).toBe(10);
      await page.context().close();
    } finally {
      for (const hold of held) {
        await fromAddress(
          t,
          hold.address,
          'POST',
          `/v1/public/holds/${hold.id}/release`,
          {
            authorization: `ApiKey ${hold.key}`,
            origin: shop.origin,
          },
          { holdToken: hold.token },
        );
      }
    }
  });
});
