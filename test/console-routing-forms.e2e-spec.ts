import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './support/app.js';
import { buildConsole, launchBrowser, screenshots, seriousViolations } from './support/browser.js';
import { addMember, createApiKey, registerOwner, type AddedMember, type RegisteredOwner } from './support/factories.js';
import { createEventType } from './support/scheduling.js';

/**
 * The console's Routing forms page (contract § 22, api-rules.md § Routing forms) in a real Chromium: a form with a
 * field, one rule and a fallback made through the editor and checked through the API; a save refused beside its
 * field; the "Try it" panel; a response submitted by a backend in the responses list.
 */
describe('admin console: routing forms', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let owner: RegisteredOwner;
  let introId: string;
  let backendKey: string;
  let member: AddedMember;

  beforeAll(async () => {
    const consoleDir = await buildConsole();
    t = await startTestApp({ env: { ADMIN_DIR: consoleDir } });
    t.clock.set('2027-03-01T09:00:00Z');
    base = `http://localhost:${new URL(t.url).port}`;
    owner = await registerOwner(t.http, { timezone: 'UTC' });
    introId = await createEventType(t, { token: owner.accessToken }, { title: 'Intro call', slug: 'intro-call', durationMinutes: 30 });
    backendKey = (await createApiKey(t.http, owner.accessToken, { scopes: ['bookings:write', 'bookings:read'] })).apiKey;
    member = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signIn(email = owner.email, password = owner.password): Promise<Page> {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto('/admin/');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Home', exact: true }).waitFor();
    return page;
  }

  it('creates a form with a rule and a fallback, tries it, and lists a response', async () => {
    const page = await signIn();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Routing forms' }).click();
    await page.getByRole('heading', { name: 'Routing forms', exact: true }).waitFor();
    await page.getByText('No routing forms yet.').waitFor();

    await page.getByRole('button', { name: 'New routing form' }).click();
    const editor = page.getByRole('form', { name: 'New routing form' });
    await editor.getByLabel('Name').fill('Sales');
    await editor.getByRole('button', { name: 'Add a field' }).click();
    await editor.getByLabel('Label').fill('Company size');
    expect(await editor.getByLabel('Id', { exact: true }).inputValue()).toBe('company_size');
    await editor.getByLabel('Type').selectOption({ label: 'Number' });

    await editor.getByRole('button', { name: 'Add a rule' }).click();
    expect(await editor.getByLabel('Field of rule 1, condition 1').inputValue()).toBe('company_size');
    // A number field is offered the ops that fit it (no `contains`).
    const op = editor.getByLabel('Operator of rule 1, condition 1');
    expect((await op.locator('option').allInnerTexts()).map((text) => text.trim())).toEqual([
      'is',
      'is not',
      'is one of',
      'is at least',
      'is at most',
    ]);
    await op.selectOption({ label: 'is at least' });
    await editor.getByLabel('Value of rule 1, condition 1').fill('200');
    await editor.getByLabel('Rule 1 routes to: event type').selectOption({ label: 'Intro call' });

    // The fallback's message left empty: the API's 400 is shown beside that field.
    await editor.getByRole('button', { name: 'Create routing form' }).click();
    const message = editor.getByLabel('Fallback: message');
    await editor.locator('[aria-invalid="true"]').first().waitFor();
    expect(await message.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await message.getAttribute('aria-describedby')) ?? '';
    expect(await page.locator(`[id="${describedBy.split(' ').pop()}"]`).textContent()).toMatch(/message/i);

    await message.fill('A colleague will write to you within a day.');
    await editor.getByRole('button', { name: 'Create routing form' }).click();
    const rows = page.getByRole('table', { name: 'Routing forms' }).locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.first().textContent()).toContain('Company size');

    const listed = await t.http.get('/v1/routing-forms', { token: owner.accessToken });
    expect(listed.body.routingForms).toEqual([
      expect.objectContaining({
        name: 'Sales',
        fields: [{ id: 'company_size', label: 'Company size', type: 'number', required: false }],
        routes: [{ when: { all: [{ field: 'company_size', op: 'gte', value: 200 }] }, to: { eventTypeId: introId } }],
        fallback: { message: 'A colleague will write to you within a day.' },
      }),
    ]);
    const formId: string = listed.body.routingForms[0].id;

    // Try it: the rule that holds and where it sends the visitor.
    await page.getByRole('link', { name: 'Sales' }).click();
    await page.getByRole('heading', { name: 'Edit routing form' }).waitFor();
    const tryIt = page.getByRole('form', { name: 'Try it' });
    await tryIt.getByLabel('Company size').fill('250');
    await tryIt.getByRole('button', { name: 'Try these answers' }).click();
    await tryIt.getByRole('status').filter({ hasText: 'Rule 1 holds → Intro call (every host)' }).waitFor();
    await tryIt.getByLabel('Company size').fill('20');
    await tryIt.getByRole('button', { name: 'Try these answers' }).click();
    await tryIt
      .getByRole('status')
      .filter({ hasText: 'No rule holds: the fallback → Message: A colleague will write to you within a day.' })
      .waitFor();

    // A backend's response appears in the list.
    const submitted = await t.http.post(
      `/v1/routing-forms/${formId}/responses`,
      { answers: { company_size: 250 } },
      { apiKey: backendKey },
    );
    expect(submitted.status).toBe(201);
    await page.getByRole('button', { name: 'Refresh responses' }).click();
    const responses = page.getByRole('table', { name: 'Responses, newest first' }).locator('tbody tr');
    await responses.first().waitFor();
    const cells = (await responses.first().locator('td').allInnerTexts()).map((text) => text.trim());
    expect(cells).toEqual(['1 Mar 2027, 09:00', 'Company size: 250', 'Intro call (every host)', 'Rule 1', '—']);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await screenshots(page, 'routing-form')).toBe(390);
    await page.context().close();
  }, 90_000);

  it('pages through more forms than fit one page (25 a page)', async () => {
    const before = (await t.http.get('/v1/routing-forms', { token: owner.accessToken })).body.totalCount as number;
    for (let i = 0; i < 26; i++) {
      const made = await t.http.post(
        '/v1/routing-forms',
        {
          name: `Paged ${String(i).padStart(2, '0')}`,
          fields: [{ id: 'q', label: 'Question', type: 'text' }],
          routes: [{ when: { all: [{ field: 'q', op: 'equals', value: 'yes' }] }, to: { message: 'Yes' } }],
          fallback: { message: 'Thanks' },
        },
        { token: owner.accessToken },
      );
      expect(made.status).toBe(201);
    }
    const total = before + 26;
    const page = await signIn();
    await page.goto('/admin/routing-forms');
    const rows = page.getByRole('table', { name: 'Routing forms' }).locator('tbody tr');
    await page.getByText(`Page 1 · ${total} forms`).waitFor();
    expect(await rows.count()).toBe(25);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText(`Page 2 · ${total} forms`).waitFor();
    expect(await rows.count()).toBe(total - 25);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText(`Page 1 · ${total} forms`).waitFor();
    await page.context().close();
  }, 60_000);

  it('is not offered to a member', async () => {
    const page = await signIn(member.email, member.password);
    expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Routing forms' }).count()).toBe(0);
    await page.goto('/admin/routing-forms');
    await page.getByRole('heading', { name: 'Not allowed' }).waitFor();
    await page.context().close();
  }, 60_000);
});
