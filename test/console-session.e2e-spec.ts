import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from './support/app.js';
import { registerOwner, type RegisteredOwner } from './support/factories.js';

const COOKIE = 'sched_console_refresh';

/** The `name=value` of the console cookie a response sets, and the attributes it sets it with. */
function consoleCookie(response: { headers: Headers }): { value: string; attributes: string[] } | undefined {
  const header = response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${COOKIE}=`));
  if (!header) return undefined;
  const [pair, ...attributes] = header.split(';').map((part) => part.trim());
  return { value: pair.slice(COOKIE.length + 1), attributes: attributes.map((a) => a.toLowerCase()) };
}

describe('console sessions: the refresh token only in an HttpOnly cookie', () => {
  let t: TestApp;
  let owner: RegisteredOwner;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerOwner(t.http);
  });
  afterAll(async () => {
    await t.close();
  });

  const login = () => t.http.post('/v1/auth/console/login', { email: owner.email, password: owner.password });
  const refresh = (value?: string) =>
    t.http.post('/v1/auth/console/refresh', undefined, value === undefined ? {} : { headers: { cookie: `${COOKIE}=${value}` } });

  it('signs in: the access token in the body, the refresh token in an HttpOnly, Secure, SameSite=Strict cookie on the console routes', async () => {
    const res = await login();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['accessToken', 'expiresIn', 'tokenType']);
    const cookie = consoleCookie(res)!;
    expect(cookie.value).toMatch(/^ses_\w+\.\w{43}$/);
    expect(cookie.attributes).toEqual(expect.arrayContaining(['httponly', 'secure', 'samesite=strict', 'path=/v1/auth/console']));
    expect((await t.http.get('/v1/users/me', { token: res.body.accessToken })).body.user.email).toBe(owner.email);
  });

  it('refreshes from the cookie alone, rotating it; a rotated value presented again ends the session', async () => {
    const first = consoleCookie(await login())!.value;
    const rotated = await refresh(first);
    expect(rotated.status).toBe(200);
    const second = consoleCookie(rotated)!.value;
    expect(second).not.toBe(first);
    expect((await t.http.get('/v1/users/me', { token: rotated.body.accessToken })).status).toBe(200);

    const reused = await refresh(first);
    expect(reused.status).toBe(401);
    expect((await refresh(second)).status).toBe(401);
    expect((await t.http.get('/v1/users/me', { token: rotated.body.accessToken })).status).toBe(401);
  });

  it('answers 401 without a cookie or with a malformed or foreign one, and the same login failures as /auth/login', async () => {
    expect((await refresh()).body.code).toBe('UNAUTHORIZED');
    expect((await refresh('nonsense')).status).toBe(401);
    expect((await refresh(owner.refreshToken.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a')))).status).toBe(401);
    const wrong = await t.http.post('/v1/auth/console/login', { email: owner.email, password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('INVALID_CREDENTIALS');
    expect(consoleCookie(wrong)).toBeUndefined();
    const malformed = await t.http.post('/v1/auth/console/login', { email: 42 });
    expect(malformed.status).toBe(400);
    expect(malformed.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['email', 'password']);
  });

  it('documents its cookie and answers malformed JSON with a 400 the document lists (fuzzer finding)', async () => {
    const document = (await t.http.get('/docs-json')).body as { paths: Record<string, Record<string, { parameters?: unknown[] }>> };
    for (const path of ['/v1/auth/console/refresh', '/v1/auth/console/logout']) {
      expect(document.paths[path].post.parameters).toEqual([expect.objectContaining({ in: 'cookie', name: 'sched_console_refresh' })]);
      // The response check of t.http fails on a status the document does not list.
      const res = await t.http.request('POST', path, { rawBody: '{"broken', headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(400);
    }
  });

  it('signs out: the session ends and the cookie is cleared; signing out again or without a cookie is harmless', async () => {
    const res = await login();
    const value = consoleCookie(res)!.value;
    const out = await t.http.post('/v1/auth/console/logout', undefined, { headers: { cookie: `${COOKIE}=${value}` } });
    expect(out.status).toBe(204);
    const cleared = consoleCookie(out)!;
    expect(cleared.value).toBe('');
    expect(cleared.attributes).toEqual(expect.arrayContaining(['path=/v1/auth/console']));
    expect(cleared.attributes.some((a) => a.startsWith('expires=thu, 01 jan 1970') || a === 'max-age=0')).toBe(true);
    expect((await refresh(value)).status).toBe(401);
    expect((await t.http.get('/v1/users/me', { token: res.body.accessToken })).status).toBe(401);
    expect((await t.http.post('/v1/auth/console/logout', undefined, { headers: { cookie: `${COOKIE}=${value}` } })).status).toBe(204);
    expect((await t.http.post('/v1/auth/console/logout')).status).toBe(204);
  });
});

describe('GET /admin: the built console, under a strict Content-Security-Policy', () => {
  let t: TestApp;
  const dir = mkdtempSync(join(tmpdir(), 'sched-admin-'));

  beforeAll(async () => {
    mkdirSync(join(dir, 'assets'));
    writeFileSync(
      join(dir, 'index.html'),
      '<!doctype html><title>console</title><script type="module" src="/admin/assets/app-abc123.js"></script>',
    );
    writeFileSync(join(dir, 'assets', 'app-abc123.js'), 'console.log(1)');
    writeFileSync(join(dir, 'secret.txt'), 'outside assets');
    t = await startTestApp({ env: { ADMIN_DIR: dir } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('serves index.html at /admin and for every client route below it, revalidated on each load, with the CSP', async () => {
    for (const path of ['/admin', '/admin/', '/admin/bookings', '/admin/bookings/bkg_123?x=1', '/admin/webhooks/wh_1/deliveries']) {
      const res = await fetch(t.url + path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await res.text()).toContain('<title>console</title>');
    }
  });

  it('serves hashed assets for a year, immutable; a missing or hostile asset path is 404, never a file outside assets', async () => {
    const asset = await fetch(`${t.url}/admin/assets/app-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(await asset.text()).toBe('console.log(1)');
    for (const path of [
      '/admin/assets/missing.js',
      '/admin/assets/..%2fsecret.txt',
      '/admin/assets/%2e%2e/secret.txt',
      '/admin/assets/../../package.json',
    ]) {
      const res = await fetch(t.url + path);
      // The URL parser folds some of these out of /admin/assets (then the page itself answers); none reads the file.
      if (new URL(t.url + path).pathname.startsWith('/admin/assets/')) expect(res.status).toBe(404);
      expect(await res.text()).not.toContain('outside assets');
    }
  });

  it('is outside the API: no credentials, no rate limit, other methods 405', async () => {
    // Each body is read: a response left unread keeps its connection busy, and the app's close waits for it.
    const page = await fetch(`${t.url}/admin/team`);
    expect(page.status).toBe(200);
    await page.text();
    const post = await fetch(`${t.url}/admin/team`, { method: 'POST' });
    expect(post.status).toBe(405);
    await post.text();
  });
});

describe('GET /admin before the console is built', () => {
  it('answers 503 naming the build command', async () => {
    const t = await startTestApp({ env: { ADMIN_DIR: mkdtempSync(join(tmpdir(), 'sched-admin-empty-')) } });
    try {
      const res = await fetch(`${t.url}/admin/bookings`);
      expect(res.status).toBe(503);
      expect(await res.text()).toContain('npm run build');
    } finally {
      await t.close();
    }
  });
});
