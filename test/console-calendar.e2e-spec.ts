import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody } from './support/bookings.js';
import { insertBooking } from './support/bookings-sql.js';
import { buildConsole, launchBrowser, screenshots, seriousViolations } from './support/browser.js';
import { createApiKey, registerOwner, type RegisteredOwner } from './support/factories.js';
import { createEventType, putSchedule } from './support/scheduling.js';
import { createWebhook, eventually, WebhookReceiver } from './support/webhooks.js';

const ZONE = 'America/New_York';
const EVERY_DAY_8_TO_18 = [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({ dayOfWeek, slots: [{ startTime: '08:00', endTime: '18:00' }] }));

/** Busy on Friday 2027-03-12, 15:00–16:00 in New York (EST), in the owner's ICS feed. */
const FEED = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//console-calendar//EN',
  'BEGIN:VEVENT',
  'UID:busy@console-calendar',
  'DTSTART:20270312T200000Z',
  'DTEND:20270312T210000Z',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

/**
 * The console's calendar views (issue 27) in the real browser: the week of bookings across the US DST change, the
 * home page, the time zone picker; axe and screenshots at 1280 and 390 pixels (the week becomes a day).
 */
describe('console calendar views', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let owner: RegisteredOwner;
  let apiKey: string;
  let coaching: string;
  let review: string;
  let feedServer: Server;
  let feedFails = false;
  let receiver: WebhookReceiver;
  const ids: Record<string, string> = {};

  const book = async (eventTypeId: string, startTime: string, email: string): Promise<string> => {
    const res = await t.http.post(
      '/v1/bookings',
      bookingBody(eventTypeId, startTime, { attendee: { email, firstName: email.split('@')[0] } }),
      {
        apiKey,
      },
    );
    if (res.status !== 201) throw new Error(`booking ${startTime}: ${res.status} ${res.text}`);
    return res.body.booking.id;
  };

  beforeAll(async () => {
    feedServer = createServer((_request, response) => {
      if (feedFails) response.writeHead(500).end('down');
      else response.writeHead(200, { 'content-type': 'text/calendar' }).end(FEED);
    });
    await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
    receiver = await WebhookReceiver.start();
    receiver.respond('/gone', () => ({ status: 410 }));
    t = await startTestApp({ env: { ADMIN_DIR: await buildConsole() } });
    t.clock.set('2027-03-08T12:00:00Z');
    base = `http://localhost:${new URL(t.url).port}`;
    owner = await registerOwner(t.http, { timezone: ZONE, organizationName: 'Calendar Co' });
    await putSchedule(t, { token: owner.accessToken }, ZONE, EVERY_DAY_8_TO_18);
    apiKey = (await createApiKey(t.http, owner.accessToken, { rateLimitPerMinute: 10000 })).apiKey;
    coaching = await createEventType(t, { token: owner.accessToken }, { title: 'Coaching', slug: 'coaching', durationMinutes: 60 });
    review = await createEventType(
      t,
      { token: owner.accessToken },
      { title: 'Review', slug: 'review', durationMinutes: 30, requiresConfirmation: true },
    );
    // 09:00 in New York on each side of the change (Sunday 2027-03-14): 14:00Z on Saturday, 13:00Z on Sunday.
    ids.saturday = await book(coaching, '2027-03-13T14:00:00Z', 'sat@example.com');
    ids.sunday = await book(coaching, '2027-03-14T13:00:00Z', 'sun@example.com');
    // Wednesday 11:00: one cancelled, then booked again by someone else: two blocks at one time.
    ids.cancelled = await book(coaching, '2027-03-10T16:00:00Z', 'gone@example.com');
    expect((await t.http.post(`/v1/bookings/${ids.cancelled}/cancel`, {}, { apiKey })).status).toBe(200);
    ids.rebooked = await book(coaching, '2027-03-10T16:00:00Z', 'again@example.com');
    ids.pending = await book(review, '2027-03-11T18:00:00Z', 'asks@example.com');
    const feedUrl = `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}/busy.ics`;
    const calendar = await t.http.post('/v1/calendars', { type: 'ics', url: feedUrl, name: 'Work feed' }, { token: owner.accessToken });
    expect(calendar.body.calendar).toMatchObject({ status: 'ok', busyCount: 1 });
    ids.calendar = calendar.body.calendar.id;
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.stop();
    feedServer?.close();
  });

  /** `now`: the browser's clock as well, for what the console decides by the time (the API's is the test's Clock). */
  async function signedIn(now?: string): Promise<{ context: BrowserContext; page: Page }> {
    // en-GB: weeks start on Monday, so the week of 2027-03-10 runs Monday 8 to Sunday 14 March.
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
    const page = await context.newPage();
    if (now) await page.clock.setFixedTime(new Date(now));
    await page.goto('/admin/');
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Home', exact: true }).waitFor();
    return { context, page };
  }

  async function check(page: Page, name: string): Promise<void> {
    expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
    expect({ page: name, width: await screenshots(page, name) }).toEqual({ page: name, width: 390 });
  }

  const block = (page: Page, id: string) => page.locator(`a[href="/admin/bookings/${id}"]`).first();

  it('places the week’s bookings by wall-clock time across the DST change, side by side when they overlap', async () => {
    const { context, page } = await signedIn();
    await page.goto('/admin/bookings?date=2027-03-10');
    await page.getByRole('heading', { name: 'Mon 8 Mar – Sun 14 Mar' }).waitFor();
    await block(page, ids.sunday).waitFor();

    // 09:00 on both sides of the change sits on the 09:00 row, in the Saturday and the Sunday columns.
    const saturday = (await block(page, ids.saturday).boundingBox())!;
    const sunday = (await block(page, ids.sunday).boundingBox())!;
    expect(Math.abs(saturday.y - sunday.y)).toBeLessThan(1);
    expect(sunday.x).toBeGreaterThan(saturday.x + saturday.width - 1);
    const nineRow = page.locator('.wg-hours span', { hasText: '09:00' });
    expect(Math.abs((await nineRow.boundingBox())!.y - saturday.y)).toBeLessThan(3);
    await expect(page.locator('.wg-col[data-date="2027-03-14"] a').first().textContent()).resolves.toContain('09:00');

    // The cancelled and the new booking at one time: side by side, neither on top of the other.
    const gone = (await block(page, ids.cancelled).boundingBox())!;
    const again = (await block(page, ids.rebooked).boundingBox())!;
    expect(Math.abs(gone.y - again.y)).toBeLessThan(1);
    expect(gone.x + gone.width <= again.x + 1 || again.x + again.width <= gone.x + 1).toBe(true);

    // Status in the accessible names (and in the look: their classes).
    await expect(block(page, ids.cancelled).getAttribute('aria-label')).resolves.toMatch(/Coaching with gone, cancelled$/);
    await expect(block(page, ids.pending).getAttribute('aria-label')).resolves.toMatch(/Review with asks, pending$/);
    await expect(block(page, ids.rebooked).getAttribute('aria-label')).resolves.toBe(
      '10 Mar 2027, 11:00 to 12:00, Coaching with again, confirmed',
    );
    await expect(page.locator('.wg-item.cancelled').count()).resolves.toBe(1);
    await expect(page.locator('.wg-item.pending').count()).resolves.toBe(1);

    // The feed's busy hour hatched on Friday; working hours shaded on every day.
    await expect(page.locator('.wg-col[data-date="2027-03-12"] .wg-band.busy').count()).resolves.toBe(1);
    await expect(page.locator('.wg-col .wg-band.working').count()).resolves.toBeGreaterThanOrEqual(7);
    await check(page, 'bookings-week');

    // A click opens the booking.
    await block(page, ids.sunday).click();
    await page.getByRole('heading', { name: 'Booking', exact: true }).waitFor();
    expect(page.url()).toContain(`/admin/bookings/${ids.sunday}`);
    await context.close();
  }, 60_000);

  it('is operable by keyboard: Tab reaches every block by its name; the week changes from the keyboard', async () => {
    const { context, page } = await signedIn();
    await page.goto('/admin/bookings?date=2027-03-10');
    await block(page, ids.sunday).waitFor();
    const labels = await page.locator('.week-grid a').evaluateAll((links) => links.map((link) => link.getAttribute('aria-label')));
    expect(labels).toHaveLength(5);
    await page.getByRole('button', { name: 'Next week' }).focus();
    const reached: string[] = [];
    for (let i = 0; i < 20 && reached.length < labels.length; i++) {
      await page.keyboard.press('Tab');
      const label = await page.evaluate<string | null>("document.activeElement.getAttribute('aria-label')");
      if (label && labels.includes(label)) reached.push(label);
    }
    expect(reached.sort()).toEqual([...labels].sort());

    await page.getByRole('button', { name: 'Next week' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Mon 15 Mar – Sun 21 Mar' }).waitFor();
    await expect(page.locator('.week-grid a').count()).resolves.toBe(0);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Mon 22 Mar – Sun 28 Mar' }).waitFor();
    await page.getByRole('button', { name: 'Previous week' }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Mon 8 Mar – Sun 14 Mar' }).waitFor();

    // On a phone the week becomes a day.
    await page.setViewportSize({ width: 390, height: 800 });
    await page.getByRole('button', { name: 'Next day' }).waitFor();
    await expect(page.locator('.wg-col').count()).resolves.toBe(1);
    await page.setViewportSize({ width: 1280, height: 900 });
    await context.close();
  }, 60_000);

  it('the time zone picker offers zones by city with their offsets, and the preview moves with the zone', async () => {
    const { context, page } = await signedIn();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Availability' }).click();
    await page.getByRole('heading', { name: 'Availability preview', exact: true }).waitFor();
    await page.getByLabel('Event type').selectOption({ label: 'Coaching' });
    await page.getByLabel('From').fill('2027-03-15');
    await page.getByLabel('To').fill('2027-03-15');
    const picker = page.getByRole('combobox', { name: 'Timezone' });
    await picker.fill('');
    await picker.pressSequentially('london');
    await page.getByRole('option', { name: /^Europe\/London \(GMT/ }).click();
    await page.getByRole('button', { name: 'Show slots' }).click();
    await page.getByText('shown in Europe/London').waitFor();
    // 08:00 in New York is 12:00 in London that Monday (New York already on summer time, London not yet).
    await expect(page.locator('.wg-item.slot').first().textContent()).resolves.toBe('12:00 free');

    await picker.fill('');
    await picker.pressSequentially('york');
    const option = page.getByRole('option', { name: /^America\/New York \(GMT-\d+\)$/ });
    await option.waitFor();
    await check(page, 'zone-picker');
    await picker.press('ArrowDown');
    await picker.press('ArrowUp');
    await picker.press('Enter');
    await expect(picker.inputValue()).resolves.toBe(ZONE);
    await page.getByRole('button', { name: 'Show slots' }).click();
    await page.getByText('shown in America/New_York').waitFor();
    await expect(page.locator('.wg-item.slot').first().textContent()).resolves.toBe('08:00 free');
    await check(page, 'availability-week');
    await context.close();
  }, 60_000);

  it('home: the pending booking confirmed in place; a failing calendar and a failing webhook listed with links', async () => {
    const created = await createWebhook(t.http, { apiKey }, { url: receiver.url('/gone'), events: ['booking.created'] });
    receiver.expectSecret('/gone', created.secret);
    await book(coaching, '2027-03-16T14:00:00Z', 'hooked@example.com');
    await eventually(
      async () => ((await t.http.get(`/v1/webhooks/${created.id}`, { apiKey })).body.webhook.active === false ? true : undefined),
      10_000,
      'the 410 to pause the webhook',
    );
    // The worker stamps attempts with the database's time (today's date), the list counts back from the API's Clock (2027).
    await t.app
      .get(DataSource)
      .query(`UPDATE webhook_deliveries SET last_attempt_at = $2 WHERE webhook_id = $1`, [created.id, t.clock.now()]);
    feedFails = true;
    expect((await t.http.post(`/v1/calendars/${ids.calendar}/sync`, undefined, { token: owner.accessToken })).status).toBe(202);
    await eventually(
      async () =>
        (await t.http.get(`/v1/calendars/${ids.calendar}`, { token: owner.accessToken })).body.calendar.status === 'error'
          ? true
          : undefined,
      10_000,
      'the failed sync',
    );

    const { context, page } = await signedIn();
    const attention = page.getByRole('region', { name: 'Needs attention' });
    await attention.getByRole('link', { name: 'Work feed' }).waitFor();
    await expect(attention.textContent()).resolves.toContain('cannot be read');
    const hook = attention.getByRole('link', { name: receiver.url('/gone') });
    await expect(hook.getAttribute('href')).resolves.toBe(`/admin/webhooks/${created.id}`);
    await expect(attention.textContent()).resolves.toMatch(/is paused and has 1 failed delivery in the last 24 hours/);
    await check(page, 'home');

    const waiting = page.getByRole('region', { name: 'Waiting for confirmation' });
    await waiting.getByRole('button', { name: /^Confirm Review with asks@example.com/ }).click();
    await waiting.getByRole('status').getByText('Confirmed').waitFor();
    expect((await t.http.get(`/v1/bookings/${ids.pending}`, { apiKey })).body.booking.status).toBe('confirmed');

    await attention.getByRole('link', { name: 'Work feed' }).click();
    await page.getByRole('heading', { name: 'Calendars', exact: true }).waitFor();

    // The member's own timezone, picked the same way.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Organization' }).click();
    const picker = page.getByRole('combobox', { name: 'Your timezone' });
    await picker.fill('');
    await picker.pressSequentially('tokyo');
    await page.getByRole('option', { name: 'Asia/Tokyo (GMT+9)' }).click();
    await page.getByRole('button', { name: 'Save timezone' }).click();
    await page.getByText('Timezone saved.').waitFor();
    expect((await t.http.get('/v1/users/me', { token: owner.accessToken })).body.user.timezone).toBe('Asia/Tokyo');
    await context.close();
  }, 60_000);

  it('after a meeting, marks who did not come from the booking; the location field shows what a template gives', async () => {
    const now = '2027-03-13T15:30:00Z'; // Saturday's meeting (14:00–15:00Z) is over, Sunday's is ahead
    t.clock.set(now);
    const { context, page } = await signedIn(now);
    await page.goto(`/admin/bookings/${ids.saturday}`);
    const attendee = page.getByRole('button', { name: 'The attendee did not come' });
    await attendee.waitFor();
    expect(await attendee.getAttribute('aria-pressed')).toBe('false');
    await attendee.click();
    await page.locator('button[aria-pressed="true"]', { hasText: 'The attendee did not come' }).waitFor();
    const marked = (await t.http.get(`/v1/bookings/${ids.saturday}`, { apiKey })).body.booking;
    expect(marked.noShow).toEqual({ attendee: true, host: false });
    await check(page, 'booking-no-show');

    await page.goto(`/admin/bookings/${ids.sunday}`);
    await page.getByText('Attendee’s timezone').waitFor();
    expect(await page.getByRole('heading', { name: 'Who did not come' }).count()).toBe(0);

    await page.goto(`/admin/event-types/${coaching}`);
    await page.getByLabel('Location').fill('https://meet.example/c-{bookingId}');
    await page.getByText('Each booking gets its own: https://meet.example/c-bkg_…').waitFor();
    // Reminders: one a day before, to the attendee only; the hint says what the minutes mean.
    await page.getByText('Reminders', { exact: true }).click();
    await page.getByRole('button', { name: 'Add a reminder' }).click();
    await page.getByLabel('Minutes before').fill('1440');
    await page.getByText('1 day before the start').waitFor();
    await page.getByLabel('Mail the hosts').uncheck();
    await check(page, 'event-type-reminders');
    await page.getByRole('button', { name: 'Save event type' }).click();
    await page.getByRole('heading', { name: 'Event types', exact: true }).waitFor();
    const saved = (await t.http.get(`/v1/event-types/${coaching}`, { apiKey })).body.eventType;
    expect(saved.location).toBe('https://meet.example/c-{bookingId}');
    expect(saved.reminders).toEqual([{ minutesBefore: 1440, recipients: ['attendee'] }]);
    await context.close();
  }, 60_000);

  it('pages through a week of 150 bookings: every one on the home page and in the week grid', async () => {
    // The owner in New York again (the home test moved them to Tokyo), with their first token, valid at the first time.
    t.clock.set('2027-03-08T12:00:00Z');
    expect((await t.http.patch('/v1/users/me', { timezone: ZONE }, { token: owner.accessToken })).status).toBe(200);
    t.clock.set('2027-04-05T11:00:00Z');
    // Monday 5 to Sunday 11 April, 22 a day from 08:00 New York time (EDT, UTC-4), half an hour each.
    const starts = Array.from(
      { length: 150 },
      (_, i) => Date.parse('2027-04-05T12:00:00Z') + Math.floor(i / 22) * 86_400_000 + (i % 22) * 1_800_000,
    );
    // Ten at a time: 150 at once waited on the app's pool past its connect timeout on a loaded machine.
    for (let i = 0; i < starts.length; i += 10) {
      await Promise.all(
        starts.slice(i, i + 10).map((start) =>
          insertBooking(t, {
            organizationId: owner.organizationId,
            eventTypeId: coaching,
            hostUserIds: [owner.userId],
            startsAt: new Date(start),
            endsAt: new Date(start + 1_800_000),
          }),
        ),
      );
    }
    // Monday morning: today's 22 on the day grid, the other 128 later this week.
    const { context, page } = await signedIn(t.clock.now().toISOString());
    const later = page.getByRole('region', { name: 'Later this week' }).getByRole('listitem');
    await later.nth(127).waitFor();
    await expect(later.count()).resolves.toBe(128);
    await expect(page.locator('.week-grid a').count()).resolves.toBe(22);

    await page.goto('/admin/bookings?date=2027-04-07');
    await page.getByRole('heading', { name: 'Mon 5 Apr – Sun 11 Apr' }).waitFor();
    await page.locator('.week-grid a').nth(149).waitFor();
    await expect(page.locator('.week-grid a').count()).resolves.toBe(150);
    await context.close();
  }, 60_000);

  it('event type questions and hold time made on the form, in order; a booking’s answers on its page', async () => {
    const intake = await createEventType(t, { apiKey }, { title: 'Intake', slug: 'intake', durationMinutes: 30 });
    const { context, page } = await signedIn();
    await page.goto(`/admin/event-types/${intake}`);
    await page.getByText('Booking form: questions and hold time').click();
    await page.getByLabel('Hold a chosen time for (minutes)').fill('25');
    const question = (n: number) => page.getByRole('group', { name: new RegExp(`^Question ${n}(:|$)`) });
    const add = async (n: number, label: string, type?: string): Promise<void> => {
      await page.getByRole('button', { name: 'Add a question' }).click();
      await question(n).getByLabel('Label').fill(label);
      if (type) await question(n).getByLabel('Type').selectOption({ label: type });
    };
    await add(1, 'Company');
    await add(2, 'Team size', 'Number');
    await question(2).getByLabel('An answer is required').check();
    await add(3, 'Topics', 'Several of a list');
    await question(3).getByLabel('Options, one per line').fill('Pricing\nOnboarding\n\nSupport\n');
    await check(page, 'event-type-questions');
    await add(4, 'Plan', 'One of a list');
    await question(4).getByLabel('Options, one per line').fill('Free\nPro');
    await add(5, 'Dropped later', 'Date');
    await add(6, 'I agree to the terms', 'Checkbox (yes or no)');
    await question(6).getByLabel('Must be checked (consent)').check();
    await question(6).getByLabel('Id').fill('consent');
    await question(5).getByRole('button', { name: 'Remove question 5' }).click();
    // Plan before Topics; the focus stays with the question it moved.
    await question(4).getByRole('button', { name: 'Move question 4 up' }).click();
    await page.locator('#question-2-up:focus').waitFor();
    await expect(question(3).getByLabel('Label').inputValue()).resolves.toBe('Plan');
    await page.getByRole('button', { name: 'Save event type' }).click();
    await page.getByRole('heading', { name: 'Event types', exact: true }).waitFor();

    const saved = (await t.http.get(`/v1/event-types/${intake}`, { apiKey })).body.eventType;
    expect(saved.holdMinutes).toBe(25);
    expect(saved.questions).toEqual([
      { id: 'company', label: 'Company', type: 'text', required: false, maxLength: 500 },
      { id: 'team_size', label: 'Team size', type: 'number', required: true },
      { id: 'plan', label: 'Plan', type: 'select', required: false, options: ['Free', 'Pro'] },
      { id: 'topics', label: 'Topics', type: 'multiselect', required: false, options: ['Pricing', 'Onboarding', 'Support'] },
      { id: 'consent', label: 'I agree to the terms', type: 'checkbox', required: true },
    ]);

    const answers = { company: 'Acme', team_size: 12, plan: 'Pro', topics: ['Pricing', 'Support'], consent: true };
    const booked = await t.http.post('/v1/bookings', bookingBody(intake, '2027-04-12T14:00:00Z', { answers }), { apiKey });
    expect(booked.status).toBe(201);
    await page.goto(`/admin/bookings/${booked.body.booking.id}`);
    const shown = page.getByRole('region', { name: 'Answers' });
    await shown.waitFor();
    const pairs = await shown.locator('dt, dd').allTextContents();
    expect(pairs).toEqual([
      'Company',
      'Acme',
      'Team size',
      '12',
      'Plan',
      'Pro',
      'Topics',
      'Pricing, Support',
      'I agree to the terms',
      'Yes',
    ]);
    await context.close();
  }, 60_000);
});
