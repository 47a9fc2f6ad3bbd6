import { createServer } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './support/app.js';
import { buildConsole, launchBrowser, seriousViolations } from './support/browser.js';
import { registerOwner, type RegisteredOwner } from './support/factories.js';
import { TestOidcProvider } from './support/oidc-provider.js';

const DOMAIN = 'console-sso.test';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The console's single sign-on (contract § 21) in a real Chromium against a real OpenID Provider: the owner configures
 * it under Organization and makes a SCIM token; a person of the domain goes from the sign-in page's "Sign in with SSO"
 * through the provider to the console's home; a refused sign-in comes back to the sign-in page with its message.
 */
describe('admin console: single sign-on', () => {
  let t: TestApp;
  let idp: TestOidcProvider;
  let browser: Browser;
  let base: string;
  let owner: RegisteredOwner;

  beforeAll(async () => {
    const consoleDir = await buildConsole();
    const port = await freePort();
    base = `http://localhost:${port}`;
    idp = new TestOidcProvider('console-app', 'console-app-secret', `${base}/v1/auth/sso/callback`);
    await idp.start();
    t = await startTestApp({ env: { ADMIN_DIR: consoleDir, PUBLIC_URL: base }, port });
    owner = await registerOwner(t.http, { email: `owner@${DOMAIN}`, timezone: 'UTC' });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await idp?.close();
  });

  const newPage = async (): Promise<Page> => {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 } });
    return context.newPage();
  };

  it('the owner configures single sign-on under Organization and makes a SCIM token, shown once', async () => {
    const page = await newPage();
    await page.goto('/admin/');
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Home', exact: true }).waitFor();
    await page.goto('/admin/organization');
    const form = page.getByRole('form', { name: 'Single sign-on' });
    await form.getByText(`${base}/v1/auth/sso/callback`).waitFor();
    await form.getByLabel('Issuer URL').fill(idp.issuer);
    await form.getByLabel('Client ID').fill(idp.clientId);
    await form.getByLabel('Client secret').fill(idp.clientSecret);
    await form.getByLabel('Email domains').fill(DOMAIN);
    await form.getByRole('button', { name: 'Save and test connection' }).click();
    await form.getByText('the provider’s discovery document was read and checked').waitFor();
    const saved = await t.http.get(`/v1/organizations/${owner.organizationId}/sso`, { token: owner.accessToken });
    expect(saved.body.sso).toMatchObject({ issuer: idp.issuer, domains: [DOMAIN], enforce: false });

    const scim = page.getByRole('region', { name: 'SCIM provisioning' });
    await scim.getByRole('button', { name: 'Create SCIM token' }).click();
    const shown = await scim.getByRole('status').locator('code').innerText();
    expect(shown).toMatch(/^scim_[0-9A-Za-z]{40}$/);
    const listed = await fetch(`${t.url}/scim/v2/Users`, { headers: { authorization: `Bearer ${shown}` } });
    expect(listed.status).toBe(200);
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });

  it('a person of the domain signs in with SSO from the sign-in page and lands on the console’s home', async () => {
    idp.accounts.set(`erin@${DOMAIN}`, { email: `erin@${DOMAIN}`, email_verified: true, given_name: 'Erin', family_name: 'Ng' });
    t.clock.set(Date.now());
    const page = await newPage();
    await page.goto('/admin/');
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.getByLabel('Work email').fill(`erin@${DOMAIN}`);
    await page.getByRole('button', { name: 'Continue with SSO' }).click();
    await page.getByRole('heading', { name: 'Home', exact: true }).waitFor();
    const me = await page.evaluate(async () => (await fetch('/v1/auth/console/refresh', { method: 'POST' })).status);
    expect(me).toBe(200);
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });

  it('an email without single sign-on is told so on the page; a refused sign-in comes back with its message', async () => {
    const page = await newPage();
    await page.goto('/admin/');
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.getByLabel('Work email').fill('someone@nowhere.test');
    await page.getByRole('button', { name: 'Continue with SSO' }).click();
    await page.getByText('No organization signs in with single sign-on').waitFor();
    idp.accounts.set(`frank@${DOMAIN}`, { email: `frank@${DOMAIN}`, email_verified: false });
    t.clock.set(Date.now());
    await page.getByLabel('Work email').fill(`frank@${DOMAIN}`);
    await page.getByRole('button', { name: 'Continue with SSO' }).click();
    await page.getByText('Single sign-on did not succeed').waitFor();
    expect(new URL(page.url()).search).toBe('?error=sso_failed');
    const [entry] = await t.http
      .get(`/v1/audit-log?action=session.failed`, { token: owner.accessToken })
      .then((res) => res.body.entries as { details?: { reason: string } }[]);
    expect(entry).toBeDefined();
    await page.context().close();
  });
});
