import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './support/app.js';
import { NOW, WEEKDAYS_9_TO_5 } from './support/bookings.js';
import { buildBooker, launchBrowser, seriousViolations } from './support/browser.js';
import { addMember, createApiKey, registerOwner, type AddedMember, type RegisteredOwner } from './support/factories.js';
import { hostPage, type HostPage } from './support/host-page.js';
import { createEventType, putSchedule } from './support/scheduling.js';

const MESSAGE = 'Thanks! Our self-serve team will email you.';

describe('the booker with form="rtf_…" (contract § 22): the routing form first, from another origin', () => {
  let t: TestApp;
  let browser: Browser;
  let shop: HostPage;
  let owner: RegisteredOwner;
  let x: AddedMember;
  let key: { apiKey: string };
  let pk = '';
  let formId = '';
  let eventTypeA: string;

  beforeAll(async () => {
    const bookerDir = await buildBooker();
    t = await startTestApp({ env: { BOOKER_DIR: bookerDir } });
    t.clock.set(NOW);
    owner = await registerOwner(t.http);
    x = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    key = await createApiKey(t.http, owner.accessToken, { rateLimitPerMinute: 10000 });
    for (const userId of [owner.userId, x.userId]) await putSchedule(t, key, 'UTC', WEEKDAYS_9_TO_5, userId);
    // Round robin in the order [owner, x]: unrouted, the owner (never booked, first) would take every time.
    eventTypeA = await createEventType(t, key, {
      title: 'Enterprise demo',
      durationMinutes: 30,
      schedulingType: 'round_robin',
      hostUserIds: [owner.userId, x.userId],
      questions: [{ id: 'company', label: 'Company', type: 'text', required: true }],
    });
    const form = await t.http.post(
      '/v1/routing-forms',
      {
        name: 'Talk to us',
        fields: [
          { id: 'company', label: 'Company', type: 'text', required: true },
          { id: 'size', label: 'Company size', type: 'number', required: true },
        ],
        routes: [
          { when: { all: [{ field: 'company', op: 'equals', value: 'Docs' }] }, to: { url: 'https://docs.example.com/start' } },
          { when: { all: [{ field: 'size', op: 'gte', value: 200 }] }, to: { eventTypeId: eventTypeA, hostUserIds: [x.userId] } },
        ],
        fallback: { message: MESSAGE },
      },
      key,
    );
    expect(form.status).toBe(201);
    formId = form.body.routingForm.id;
    shop = await hostPage(t.url, () => `<sched-booker key="${pk}" form="${formId}" timezone="Europe/Berlin" locale="en"></sched-booker>`);
    pk = (await createApiKey(t.http, owner.accessToken, { kind: 'publishable', allowedOrigins: [shop.origin] })).apiKey;
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    shop?.server.close();
    await t.close();
  });

  /** The shop's page in a browser whose today is the API's; the requests the booker sends, with their bodies. */
  async function open(): Promise<{ page: Page; sent: string[]; violations: string[] }> {
    const context = await browser.newContext({ timezoneId: 'Europe/Berlin' });
    const page = await context.newPage();
    await page.clock.setFixedTime(new Date(t.clock.now()));
    const sent: string[] = [];
    const violations: string[] = [];
    page.on('request', (request) => sent.push(`${request.method()} ${request.url()} ${request.postData() ?? ''}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${shop.origin}/`);
    await page.locator('sched-booker #sched-q-company').waitFor();
    return { page, sent, violations };
  }

  const focused = (page: Page) =>
    page.evaluate<string | null>(
      `(() => {
        const active = document.querySelector('sched-booker').shadowRoot.activeElement;
        return active ? (active.getAttribute('data-date') ?? active.getAttribute('data-start') ?? (active.id || active.tagName)) : null;
      })()`,
    );

  it('routes "company size ≥ 200" by keyboard to event type A with host X: its times, booked with X, the response naming the booking', async () => {
    const { page, sent, violations } = await open();
    expect(await page.locator('sched-booker h2').textContent()).toBe('Talk to us');
    expect(await page.locator('sched-booker label[for="sched-q-size"]').textContent()).toBe('Company size *');
    expect(await seriousViolations(page)).toEqual([]);
    for (let i = 0; i < 5 && (await focused(page)) !== 'sched-q-company'; i++) await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('sched-q-company');
    await page.keyboard.type('Acme');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('sched-q-size');
    await page.keyboard.type('500');
    await page.keyboard.press('Enter');

    // A's days and times, for the routed host only; the title has the focus.
    await page.locator('sched-booker h2', { hasText: 'Enterprise demo' }).waitFor();
    await page.locator('sched-booker button.has').first().waitFor();
    expect(await focused(page)).toBe('H2');
    const responses = (await t.http.get(`/v1/routing-forms/${formId}/responses`, key)).body.responses;
    expect(responses).toHaveLength(1);
    const responseId = responses[0].id as string;
    expect(sent.some((line) => line.includes('/v1/public/availability?') && line.includes(`routingResponseId=${responseId}`))).toBe(true);

    const booked = page.evaluate<Record<string, string>>(
      `new Promise((resolve) => document.addEventListener('sched:booked', (event) => resolve(event.detail)))`,
    );
    await page.locator('sched-booker button.has').first().click();
    await page.locator('sched-booker ul button').first().click();
    await page.locator('sched-booker #sched-name').waitFor();
    // The booking form shows the routing form's answer to its own question.
    expect(await page.locator('sched-booker #sched-q-company').inputValue()).toBe('Acme');
    await page.locator('sched-booker #sched-name').fill('Ada Lovelace');
    await page.locator('sched-booker #sched-email').fill('ada@example.com');
    await page.locator('sched-booker button[type="submit"]').click();
    await page.locator('sched-booker h2', { hasText: 'You are booked' }).waitFor();
    const detail = await booked;

    const posted = (path: string) => sent.filter((line) => line.startsWith(`POST `) && line.includes(path));
    expect(posted('/v1/public/holds ')[0]).toContain(`"routingResponseId":"${responseId}"`);
    expect(posted('/v1/public/bookings ')[0]).toContain(`"routingResponseId":"${responseId}"`);
    const booking = (await t.http.get(`/v1/bookings/${detail.bookingId}`, key)).body.booking;
    expect(booking.hostUserIds).toEqual([x.userId]);
    expect(booking.eventType.id).toBe(eventTypeA);
    expect(booking.answers).toEqual([{ id: 'company', label: 'Company', type: 'text', value: 'Acme' }]);
    const after = (await t.http.get(`/v1/routing-forms/${formId}/responses`, key)).body.responses;
    expect(after[0]).toMatchObject({ id: responseId, bookingId: detail.bookingId });
    expect(violations).toEqual([]);
    await page.context().close();
  });

  it('takes the attendee back to the form when the response routes no more (booked through elsewhere first)', async () => {
    const { page } = await open();
    await page.locator('sched-booker #sched-q-company').fill('Acme');
    await page.locator('sched-booker #sched-q-size').fill('500');
    await page.locator('sched-booker button[type="submit"]').click();
    await page.locator('sched-booker h2', { hasText: 'Enterprise demo' }).waitFor();
    await page.locator('sched-booker button.has').first().click();
    const times = page.locator('sched-booker ul button');
    await times.nth(1).waitFor();
    // Another tab (here a backend) books through the same response at another time.
    // The newest response the page made (the first test's is booked; both were made at the same clock time).
    const response = (await t.http.get(`/v1/routing-forms/${formId}/responses`, key)).body.responses.find(
      (candidate: { bookingId: string | null }) => candidate.bookingId === null,
    );
    const elsewhere = await t.http.post(
      '/v1/bookings',
      {
        eventTypeId: eventTypeA,
        startTime: await times.nth(1).getAttribute('data-start'),
        timezone: 'Europe/Berlin',
        attendee: { email: 'tab@example.com', firstName: 'Other', lastName: 'Tab' },
        answers: { company: 'Acme' },
        routingResponseId: response.id,
      },
      key,
    );
    expect(elsewhere.status).toBe(201);

    await times.first().click();
    await page.locator('sched-booker h2', { hasText: 'Talk to us' }).waitFor();
    expect(await page.locator('sched-booker [role="status"]').textContent()).toBe(
      'Your answers have expired or were already used to book. Please send them again.',
    );
    expect(await focused(page)).toBe('sched-q-company');
    expect(await page.locator('sched-booker #sched-name').count()).toBe(0);
    // Answered again, a new response routes to the times.
    await page.locator('sched-booker #sched-q-company').fill('Acme');
    await page.locator('sched-booker #sched-q-size').fill('500');
    await page.locator('sched-booker button[type="submit"]').click();
    await page.locator('sched-booker h2', { hasText: 'Enterprise demo' }).waitFor();
    expect((await t.http.get(`/v1/routing-forms/${formId}/responses`, key)).body.responses).toHaveLength(3);
    await page.context().close();
  });

  it('shows the message of a route to a message, announced', async () => {
    const { page } = await open();
    await page.locator('sched-booker #sched-q-company').fill('Tiny');
    await page.locator('sched-booker #sched-q-size').fill('3');
    await page.locator('sched-booker button[type="submit"]').click();
    await page.locator('sched-booker p', { hasText: MESSAGE }).waitFor();
    expect(await page.locator('sched-booker [role="status"]').textContent()).toBe(MESSAGE);
    expect(await page.locator('sched-booker button.has').count()).toBe(0);
    await page.context().close();
  });

  it('shows a link for a route to a url, and does not follow it', async () => {
    const { page } = await open();
    await page.locator('sched-booker #sched-q-company').fill('Docs');
    await page.locator('sched-booker #sched-q-size').fill('3');
    await page.locator('sched-booker button[type="submit"]').click();
    const link = page.locator('sched-booker a', { hasText: 'https://docs.example.com/start' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe('https://docs.example.com/start');
    expect(page.url()).toBe(`${shop.origin}/`);
    await page.context().close();
  });

  it('shows the error of a required field left empty beside it, keeping what was entered, and routes nothing', async () => {
    const { page } = await open();
    await page.locator('sched-booker #sched-q-size').fill('500');
    await page.locator('sched-booker button[type="submit"]').click();
    await page.locator('sched-booker #sched-q-company-error').waitFor();
    expect(await page.locator('sched-booker #sched-q-company').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('sched-booker #sched-q-company').getAttribute('aria-describedby')).toBe('sched-q-company-error');
    expect(await focused(page)).toBe('sched-q-company');
    expect(await page.locator('sched-booker #sched-q-size').inputValue()).toBe('500');
    expect(await page.locator('sched-booker [role="status"]').textContent()).toBe('Please check the fields marked below.');
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });
});
