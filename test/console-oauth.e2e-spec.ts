import { createHash, randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './support/app.js';
import { buildConsole, launchBrowser, seriousViolations } from './support/browser.js';
import { addMember, registerOwner, type AddedMember, type RegisteredOwner } from './support/factories.js';

const REDIRECT = 'https://partner.example/callback';

/**
 * Partner apps in the console (contract § 20) in a real Chromium: the consent page on a phone (390 px) driven by the
 * keyboard from GET /oauth/authorize through sign-in to the app's redirect URI with a code that exchanges; a member
 * who may only decline; the Partner apps page (the secret shown once, a new secret) and Connected apps (revoke).
 */
describe('admin console: partner apps', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let partner: RegisteredOwner;
  let customer: RegisteredOwner;
  let member: AddedMember;
  let app: { id: string; clientId: string };
  let clientSecret: string;

  beforeAll(async () => {
    const consoleDir = await buildConsole();
    t = await startTestApp({ env: { ADMIN_DIR: consoleDir } });
    base = `http://localhost:${new URL(t.url).port}`;
    partner = await registerOwner(t.http, { organizationName: 'Partner Inc' });
    customer = await registerOwner(t.http, { organizationName: 'Customer Co' });
    member = await addMember(t, customer.accessToken, customer.organizationId, 'member');
    const created = await t.http.post(
      '/v1/oauth-apps',
      {
        name: 'Partner CRM',
        type: 'confidential',
        redirectUris: [REDIRECT],
        scopes: ['bookings:read', 'team:read'],
        homepageUrl: 'https://partner.example',
        logoUrl: 'https://partner.example/logo.png',
      },
      { token: partner.accessToken },
    );
    app = created.body.app;
    clientSecret = created.body.clientSecret;
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A phone-sized page whose requests to the partner's site are answered here (no network). */
  async function phone(): Promise<Page> {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 390, height: 800 } });
    await context.route('https://partner.example/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Partner</title><p>Partner callback</p>' }),
    );
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    return page;
  }

  function authorizeUrl(state: string, verifier: string): string {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: REDIRECT,
      scope: 'bookings:read team:read',
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    return `/oauth/authorize?${query.toString()}`;
  }

  /** Signs in on the page the browser was sent to, by keyboard. */
  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.getByLabel('Email').focus();
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
  }

  /** Tabs to the button named `name` (at most 30 steps), then presses Enter. */
  async function pressByKeyboard(page: Page, name: string): Promise<void> {
    for (let step = 0; step < 30; step += 1) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate<string>("document.activeElement?.innerText?.trim() ?? ''");
      if (focused === name) {
        await page.keyboard.press('Enter');
        return;
      }
    }
    throw new Error(`No button ${name} reached by Tab`);
  }

  it('an owner allows by keyboard on a phone, and the browser lands on the app with a code that exchanges', async () => {
    const page = await phone();
    const state = randomBytes(8).toString('hex');
    const verifier = randomBytes(32).toString('base64url');
    await page.goto(authorizeUrl(state, verifier));
    await signIn(page, customer.email, customer.password);
    await page.getByRole('heading', { name: 'Connect Partner CRM?' }).waitFor();
    const consent = page.getByRole('region', { name: 'Connect Partner CRM?' });
    await consent.getByText('Customer Co', { exact: true }).waitFor();
    await consent.getByText('See bookings', { exact: true }).waitFor();
    await consent.getByText('See the organization and its members', { exact: true }).waitFor();
    expect(await consent.getByRole('link', { name: 'https://partner.example' }).count()).toBe(1);
    expect(await consent.locator('img').getAttribute('src')).toBe('https://partner.example/logo.png');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBe(390);
    expect(await seriousViolations(page)).toEqual([]);

    await pressByKeyboard(page, 'Allow');
    await page.waitForURL(/^https:\/\/partner\.example\/callback\?/);
    const callback = new URL(page.url());
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('iss')).toBe(t.config.publicUrl);
    const token = await fetch(`${t.url}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${app.clientId}:${clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      }).toString(),
    });
    expect(token.status).toBe(200);
    expect(await token.json()).toMatchObject({ token_type: 'Bearer', scope: 'bookings:read team:read' });
    await page.context().close();
  });

  it('a member sees no Allow and may deny: the app gets access_denied', async () => {
    const page = await phone();
    const state = randomBytes(8).toString('hex');
    await page.goto(authorizeUrl(state, randomBytes(32).toString('base64url')));
    await signIn(page, member.email, member.password);
    await page.getByRole('heading', { name: 'Connect Partner CRM?' }).waitFor();
    await page.getByText('Only an owner or admin of Customer Co can connect an app.').waitFor();
    expect(await page.getByRole('button', { name: 'Allow' }).count()).toBe(0);
    await pressByKeyboard(page, 'Deny');
    await page.waitForURL(/^https:\/\/partner\.example\/callback\?/);
    const callback = new URL(page.url());
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(state);
    await page.context().close();
  });

  it('registers an app with its secret shown once, issues a new secret, and revokes a connected app', async () => {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto('/admin/oauth-apps');
    await signIn(page, partner.email, partner.password);
    await page.getByRole('heading', { name: 'Partner apps', exact: true }).waitFor();
    const form = page.getByRole('form', { name: 'New partner app' });
    await form.getByLabel('Name', { exact: true }).fill('Course platform');
    await form.getByLabel('Redirect URIs').fill('http://partner.example/cb');
    await form.getByRole('button', { name: 'Register app' }).click();
    await form.getByText('must be https').waitFor();
    await form.getByLabel('Redirect URIs').fill('https://courses.example/cb\nhttp://localhost:8080/cb');
    await form.getByRole('button', { name: 'Register app' }).click();
    const secret = page.getByLabel('Client secret of Course platform');
    await secret.waitFor();
    expect(await secret.innerText()).toMatch(/^cs_[0-9A-Za-z]{32,}$/);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('cell', { name: 'Course platform (confidential)', exact: true }).waitFor();
    await page.getByRole('button', { name: 'New secret for Course platform' }).click();
    expect(await page.getByLabel('New client secret of Course platform').innerText()).toMatch(/^cs_/);
    expect(await seriousViolations(page)).toEqual([]);

    // The customer's owner sees Partner CRM (connected in the first test) under Connected apps and revokes it.
    await context.clearCookies();
    const customerPage = await browser.newPage({ baseURL: base, viewport: { width: 1280, height: 800 } });
    customerPage.on('dialog', (dialog) => void dialog.accept());
    await customerPage.goto('/admin/connected-apps');
    await signIn(customerPage, customer.email, customer.password);
    await customerPage.getByRole('heading', { name: 'Connected apps', exact: true }).waitFor();
    await customerPage.getByRole('link', { name: 'Partner CRM' }).waitFor();
    await customerPage.getByRole('button', { name: 'Revoke Partner CRM' }).click();
    await customerPage.getByText('No apps are connected.').waitFor();
    const grants = await t.http.get('/v1/oauth-grants', { token: customer.accessToken });
    expect(grants.body.grants).toEqual([]);
    await customerPage.close();
    await context.close();
  });
});
