import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { invitationToken, inviteMember, registerOwner, type RegisteredOwner } from './support/factories.js';
import { TestOidcProvider } from './support/oidc-provider.js';

const PUBLIC_URL = 'http://app.example.test';
const REDIRECT_URI = `${PUBLIC_URL}/v1/auth/sso/callback`;
const DOMAIN = 'acme.test';

describe('single sign-on through a real OpenID Provider (contract § 21)', () => {
  let t: TestApp;
  let idp: TestOidcProvider;
  let owner: RegisteredOwner;
  let db: DataSource;

  const configure = (overrides: Record<string, unknown> = {}, token = owner.accessToken, orgId = owner.organizationId) =>
    t.http.put(
      `/v1/organizations/${orgId}/sso`,
      { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, domains: [DOMAIN], ...overrides },
      { token },
    );

  /** The app's start, the provider's round trip, then the app's callback: its redirect and cookie. */
  const signIn = async (email: string): Promise<{ location: string; cookie: string | null; returned: URL }> => {
    // The provider dates its tokens by the real clock; the app checks them by its own, which the test sets to it.
    t.clock.set(Date.now());
    const start = await fetch(`${t.url}/v1/auth/sso/start?email=${encodeURIComponent(email)}`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const returned = await idp.authorize(start.headers.get('location')!);
    const callback = await fetch(`${t.url}/v1/auth/sso/callback${returned.search}`, { redirect: 'manual' });
    expect(callback.status).toBe(302);
    const cookie = callback.headers.getSetCookie().find((c) => c.startsWith('sched_console_refresh=')) ?? null;
    return { location: callback.headers.get('location')!, cookie, returned };
  };

  const userCount = async (email: string): Promise<number> =>
    Number((await db.query(`SELECT count(*) AS n FROM users WHERE email = $1`, [email]))[0].n);

  const lastFailure = async (): Promise<Record<string, unknown> | undefined> =>
    (
      await db.query(
        `SELECT action, details FROM audit_entries WHERE organization_id = $1 AND action = 'session.failed' ORDER BY tx_id DESC LIMIT 1`,
        [owner.organizationId],
      )
    )[0];

  beforeAll(async () => {
    t = await startTestApp({ env: { PUBLIC_URL } });
    db = t.app.get(DataSource);
    idp = new TestOidcProvider('scheduling-app', 'a-client-secret-for-the-tests', REDIRECT_URI);
    await idp.start();
    owner = await registerOwner(t.http, { email: `owner@${DOMAIN}` });
  });

  afterAll(async () => {
    await idp?.close();
    await t.close();
  });

  it('saves the configuration after reading the provider’s discovery document; the secret is sealed and never returned', async () => {
    expect((await t.http.get(`/v1/organizations/${owner.organizationId}/sso`, { token: owner.accessToken })).status).toBe(404);
    const res = await configure();
    expect(res.status).toBe(200);
    expect(res.body.sso).toEqual({
      issuer: idp.issuer,
      clientId: 'scheduling-app',
      domains: [DOMAIN],
      enforce: false,
      defaultRole: 'member',
      redirectUri: REDIRECT_URI,
      updatedAt: expect.any(String),
    });
    expect(res.text).not.toContain(idp.clientSecret);
    const [row] = await db.query(`SELECT client_secret FROM sso_connections WHERE organization_id = $1`, [owner.organizationId]);
    expect(row.client_secret).toMatch(/^k1\./);
    expect((await t.http.get(`/v1/organizations/${owner.organizationId}/sso`, { token: owner.accessToken })).body.sso.domains).toEqual([
      DOMAIN,
    ]);
  });

  it('refuses an issuer whose discovery cannot be read or names another issuer (400 naming issuer)', async () => {
    const unreachable = await configure({ issuer: 'http://127.0.0.1:1' });
    expect(unreachable.status).toBe(400);
    expect(unreachable.body.details[0].field).toBe('issuer');
    const other = await configure({ issuer: `${idp.issuer}/other` });
    expect(other.status).toBe(400);
    expect(other.body.details[0].field).toBe('issuer');
  });

  it('a domain another organization claims → 409 DOMAIN_TAKEN; an admin may not configure', async () => {
    const other = await registerOwner(t.http);
    const res = await configure({}, other.accessToken, other.organizationId);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('DOMAIN_TAKEN');
    const invited = await inviteMember(t.http, owner.accessToken, owner.organizationId, { role: 'admin' });
    const accepted = await t.http.post('/v1/invitations/accept', {
      token: await invitationToken(t, invited.email),
      password: 'admin password 1',
    });
    const asAdmin = await t.http.get(`/v1/organizations/${owner.organizationId}/sso`, { token: accepted.body.accessToken });
    expect(asAdmin.status).toBe(403);
  });

  it('two organizations claiming one domain at once: the database lets one have it, the other hears 409 DOMAIN_TAKEN', async () => {
    const [first, second] = [await registerOwner(t.http), await registerOwner(t.http)];
    const answers = await Promise.all([first, second].map((o) => configure({ domains: ['race.test'] }, o.accessToken, o.organizationId)));
    expect(answers.map((res) => res.status).sort()).toEqual([200, 409]);
    expect(answers.find((res) => res.status === 409)!.body.code).toBe('DOMAIN_TAKEN');
    expect(Number((await db.query(`SELECT count(*) AS n FROM sso_domains WHERE domain = 'race.test'`))[0].n)).toBe(1);
  });

  it('reads the issuer through the outbound rules: a private address is refused where they forbid it', async () => {
    const strict = await startTestApp({ databaseUrl: t.databaseUrl, env: { PUBLIC_URL, SSO_ALLOW_PRIVATE_URLS: 'false' } });
    try {
      const res = await strict.http.put(
        `/v1/organizations/${owner.organizationId}/sso`,
        { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, domains: [DOMAIN] },
        { token: owner.accessToken },
      );
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([{ field: 'issuer', message: expect.stringMatching(/public addresses/) }]);
    } finally {
      await strict.close();
    }
  });

  it('starts with PKCE S256, state, nonce and login_hint; an unclaimed domain → 404 SSO_NOT_CONFIGURED', async () => {
    const unknown = await t.http.get('/v1/auth/sso/start?email=someone@nowhere.test');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('SSO_NOT_CONFIGURED');
    const start = await fetch(`${t.url}/v1/auth/sso/start?email=Ann@${DOMAIN}`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const url = new URL(start.headers.get('location')!);
    expect(url.origin).toBe(idp.issuer);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: 'scheduling-app',
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid email profile',
      code_challenge_method: 'S256',
      login_hint: `ann@${DOMAIN}`,
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      state: expect.stringMatching(/^ssl_/),
      nonce: expect.any(String),
    });
  });

  it('provisions an unknown email at once as an active member and opens a console session', async () => {
    idp.accounts.set(`ann@${DOMAIN}`, { email: `ann@${DOMAIN}`, email_verified: true, given_name: 'Ann', family_name: 'Lee' });
    const { location, cookie } = await signIn(`ann@${DOMAIN}`);
    expect(location).toBe('/admin');
    expect(cookie).toMatch(/HttpOnly/i);
    const refreshed = await fetch(`${t.url}/v1/auth/console/refresh`, { method: 'POST', headers: { cookie: cookie!.split(';')[0] } });
    expect(refreshed.status).toBe(200);
    const me = await t.http.get('/v1/users/me', { token: ((await refreshed.json()) as { accessToken: string }).accessToken });
    expect(me.body.user.email).toBe(`ann@${DOMAIN}`);
    expect(me.body.member.role).toBe('member');
    expect(me.body.organization.id).toBe(owner.organizationId);
    const [entry] = await db.query(
      `SELECT actor_type, actor_label FROM audit_entries WHERE organization_id = $1 AND action = 'session.created' ORDER BY occurred_at DESC LIMIT 1`,
      [owner.organizationId],
    );
    expect(entry).toEqual({ actor_type: 'user', actor_label: `ann@${DOMAIN}` });
    // The second time, the same member signs in: no second user.
    expect((await signIn(`ann@${DOMAIN}`)).location).toBe('/admin');
    expect(await userCount(`ann@${DOMAIN}`)).toBe(1);
  });

  it.each([
    ['a wrong audience', (c: Record<string, unknown>) => ({ ...c, aud: 'another-client' })],
    ['a wrong nonce', (c: Record<string, unknown>) => ({ ...c, nonce: 'not-the-nonce' })],
    ['an expired token', (c: Record<string, unknown>) => ({ ...c, iat: Number(c.iat) - 7200, exp: Number(c.iat) - 3600 })],
    ['a wrong issuer', (c: Record<string, unknown>) => ({ ...c, iss: 'https://evil.example' })],
  ])('refuses an ID token with %s: nothing created, session.failed audited', async (_name, tamper) => {
    const email = `refused-${Math.random().toString(36).slice(2, 8)}@${DOMAIN}`;
    idp.accounts.set(email, { email, email_verified: true });
    idp.tamper = tamper;
    try {
      const { location, cookie } = await signIn(email);
      expect(location).toBe('/admin/sign-in?error=sso_failed');
      expect(cookie).toBeNull();
    } finally {
      idp.tamper = null;
    }
    expect(await userCount(email)).toBe(0);
    expect(((await lastFailure())?.details as { reason: string }).reason).toMatch(/^id_token_refused/);
  });

  it('refuses an ID token whose signature no key of the provider’s JWKS makes', async () => {
    const email = `forged@${DOMAIN}`;
    idp.accounts.set(email, { email, email_verified: true });
    idp.tamper = (claims) => claims;
    idp.forgeSignature = true;
    try {
      expect((await signIn(email)).location).toBe('/admin/sign-in?error=sso_failed');
    } finally {
      idp.tamper = null;
      idp.forgeSignature = false;
    }
    expect(await userCount(email)).toBe(0);
    expect(((await lastFailure())?.details as { reason: string }).reason).toMatch(/^id_token_refused/);
  });

  it('refuses an unverified email and an email of a foreign domain', async () => {
    idp.accounts.set(`unverified@${DOMAIN}`, { email: `unverified@${DOMAIN}`, email_verified: false });
    expect((await signIn(`unverified@${DOMAIN}`)).location).toBe('/admin/sign-in?error=sso_failed');
    expect(await userCount(`unverified@${DOMAIN}`)).toBe(0);
    expect((await lastFailure())?.details).toEqual({ reason: 'email_unverified' });
    // The provider vouches for an address outside the organization's domains.
    idp.accounts.set(`mallory@${DOMAIN}`, { email: 'mallory@elsewhere.test', email_verified: true });
    expect((await signIn(`mallory@${DOMAIN}`)).location).toBe('/admin/sign-in?error=sso_failed');
    expect(await userCount('mallory@elsewhere.test')).toBe(0);
    expect((await lastFailure())?.details).toEqual({ reason: 'foreign_domain' });
  });

  it('refuses a replayed state: the sign-in is spent once', async () => {
    idp.accounts.set(`bob@${DOMAIN}`, { email: `bob@${DOMAIN}`, email_verified: true });
    const { location, returned } = await signIn(`bob@${DOMAIN}`);
    expect(location).toBe('/admin');
    t.clock.advance(1000);
    const again = await fetch(`${t.url}/v1/auth/sso/callback${returned.search}`, { redirect: 'manual' });
    expect(again.headers.get('location')).toBe('/admin/sign-in?error=sso_failed');
    expect(again.headers.getSetCookie().some((c) => c.startsWith('sched_console_refresh='))).toBe(false);
    expect((await lastFailure())?.details).toEqual({ reason: 'invalid_state' });
  });

  it('refuses a user of another organization', async () => {
    const other = await registerOwner(t.http, { email: `elsewhere@${DOMAIN}` });
    idp.accounts.set(other.email, { email: other.email, email_verified: true });
    expect((await signIn(other.email)).location).toBe('/admin/sign-in?error=sso_failed');
    expect((await lastFailure())?.details).toEqual({ reason: 'other_organization' });
    const [member] = await db.query(`SELECT organization_id FROM members WHERE user_id = $1`, [other.userId]);
    expect(member.organization_id).toBe(other.organizationId);
  });

  it('follows the provider’s key rotation: a new kid makes it fetch the keys once', async () => {
    idp.accounts.set(`carol@${DOMAIN}`, { email: `carol@${DOMAIN}`, email_verified: true });
    expect((await signIn(`carol@${DOMAIN}`)).location).toBe('/admin');
    const before = idp.jwksRequests;
    await idp.rotateKeys();
    expect((await signIn(`carol@${DOMAIN}`)).location).toBe('/admin');
    expect(idp.jwksRequests).toBe(before + 1);
    // The new key is kept: the next sign-in fetches nothing.
    expect((await signIn(`carol@${DOMAIN}`)).location).toBe('/admin');
    expect(idp.jwksRequests).toBe(before + 1);
  });

  it('with enforce, password sign-in for the domain is refused on both routes (403 SSO_REQUIRED), owners excepted', async () => {
    const invited = await inviteMember(t.http, owner.accessToken, owner.organizationId, { role: 'member', email: `dave@${DOMAIN}` });
    await t.http.post('/v1/invitations/accept', { token: await invitationToken(t, invited.email), password: 'dave password 1' });
    expect((await t.http.post('/v1/auth/login', { email: `dave@${DOMAIN}`, password: 'dave password 1' })).status).toBe(200);
    expect((await configure({ enforce: true })).status).toBe(200);
    for (const route of ['/v1/auth/login', '/v1/auth/console/login']) {
      const refused = await t.http.post(route, { email: `dave@${DOMAIN}`, password: 'dave password 1' });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('SSO_REQUIRED');
      expect((await t.http.post(route, { email: owner.email, password: owner.password })).status).toBe(200);
    }
    expect((await t.http.delete(`/v1/organizations/${owner.organizationId}/sso`, { token: owner.accessToken })).status).toBe(204);
    expect((await t.http.post('/v1/auth/login', { email: `dave@${DOMAIN}`, password: 'dave password 1' })).status).toBe(200);
  });
});
