import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './support/app.js';
import { buildConsole, launchBrowser, seriousViolations } from './support/browser.js';
import { invitationTokens, inviteMember, registerOwner, type RegisteredOwner } from './support/factories.js';
import { createEventType } from './support/scheduling.js';

/** The console's Audit page (contract § 18): owners and admins filter by action, person and date and open an entry's changes. */
describe('admin console: the audit log', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let owner: RegisteredOwner;
  let member: { email: string; password: string };

  beforeAll(async () => {
    const consoleDir = await buildConsole();
    t = await startTestApp({ env: { ADMIN_DIR: consoleDir } });
    t.clock.set('2027-03-01T09:00:00Z');
    base = `http://localhost:${new URL(t.url).port}`;
    owner = await registerOwner(t.http, { timezone: 'UTC' });
    const id = await createEventType(t, { token: owner.accessToken }, { title: 'Intro', slug: 'intro', durationMinutes: 30 });
    t.clock.set('2027-03-01T09:01:00Z');
    await t.http.patch(`/v1/event-types/${id}`, { title: 'Intro call', durationMinutes: 45 }, { token: owner.accessToken });
    const invited = await inviteMember(t.http, owner.accessToken, owner.organizationId, { role: 'member' });
    // The invitation mail, waited for longer than the helper's 5 s: the mail worker is slow on a shared machine.
    const [token] = await invitationTokens(t, invited.email, 1, 30_000);
    member = { email: invited.email, password: 'member password 1' };
    expect((await t.http.post('/v1/invitations/accept', { token, password: member.password })).status).toBe(200);
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signIn(email: string, password: string): Promise<Page> {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto('/admin/');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Home', exact: true }).waitFor();
    return page;
  }

  it('filters by action, person and date and shows an update’s changes side by side', async () => {
    const page = await signIn(owner.email, owner.password);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('heading', { name: 'Audit log', exact: true }).waitFor();
    const rows = page.getByRole('table', { name: 'Audit log entries, newest first' }).locator(':scope > tbody > tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBeGreaterThanOrEqual(4);

    await page.getByLabel('Action').fill('event_type.updated');
    await page.getByLabel('Person').selectOption({ label: owner.email });
    await page.getByLabel('From (day)').fill('2027-03-01');
    await page.getByRole('button', { name: 'Show' }).click();
    // The filtered list holds exactly one row (a locator waits without evaluating a string under the console's CSP).
    await page.getByRole('table', { name: 'Audit log entries, newest first' }).locator(':scope > tbody > tr:only-child').waitFor();
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('event_type.updated');

    await page.getByRole('button', { name: /^Changes of event_type\.updated/ }).click();
    const changes = page.getByRole('table', { name: 'Changes of event_type.updated' });
    await changes.waitFor();
    const cells: string[][] = [];
    for (const tr of await changes.locator('tbody tr').all())
      cells.push((await tr.locator('th, td').allInnerTexts()).map((text) => text.trim()));
    expect(cells).toEqual([
      ['title', 'Intro', 'Intro call'],
      ['durationMinutes', '30', '45'],
    ]);
    expect(await seriousViolations(page)).toEqual([]);

    // Before the day of the update: nothing of that action.
    await page.getByLabel('From (day)').fill('');
    await page.getByLabel('Before (day)').fill('2027-03-01');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('No entries match these filters.').waitFor();
    await page.context().close();
  }, 60_000);

  it('is not offered to a member', async () => {
    const page = await signIn(member.email, member.password);
    expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit' }).count()).toBe(0);
    await page.goto('/admin/audit');
    await page.getByRole('heading', { name: 'Not allowed' }).waitFor();
    await page.context().close();
  }, 60_000);
});
