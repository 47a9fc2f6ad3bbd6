import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { DataSource } from 'typeorm';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from './support/app.js';
import { createApiKey, registerOwner, uniqueEmail } from './support/factories.js';

function b64url(value: object | string): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

function forgeJwt(header: object, claims: object, secret?: string): string {
  const unsigned = `${b64url(header)}.${b64url(claims)}`;
  const signature = secret ? createHmac('sha256', secret).update(unsigned).digest('base64url') : '';
  return `${unsigned}.${signature}`;
}

function decodeClaims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
}

/** POST /v1/auth/login from a chosen loopback address (the lockout counts per client address). */
function loginFrom(
  url: string,
  address: string,
  email: string,
  password: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const body = JSON.stringify({ email, password });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      new URL('/v1/auth/login', url),
      { method: 'POST', localAddress: address, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (data += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) as Record<string, unknown> }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('auth: registration, sessions, tokens', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  describe('register', () => {
    it('creates user, organization and owner membership and returns tokens', async () => {
      const email = uniqueEmail('Reg').toUpperCase();
      const res = await t.http.post('/v1/auth/register', {
        email,
        password: 'long enough pw',
        organizationName: 'Zürich Dental & Co',
        timezone: 'Europe/Zurich',
      });
      expect(res.status).toBe(201);
      expect(res.body.user).toMatchObject({
        id: expect.stringMatching(/^usr_[0-9A-Za-z]{20,}$/),
        email: email.toLowerCase(),
        timezone: 'Europe/Zurich',
      });
      expect(res.body.organization).toMatchObject({
        id: expect.stringMatching(/^org_/),
        name: 'Zürich Dental & Co',
        slug: 'zurich-dental-co',
      });
      expect(res.body.member).toMatchObject({ id: expect.stringMatching(/^mem_/), role: 'owner' });
      expect(res.body).toMatchObject({
        tokenType: 'Bearer',
        expiresIn: 900,
        accessToken: expect.any(String),
        refreshToken: expect.any(String),
      });
      const claims = decodeClaims(res.body.accessToken);
      expect(claims).toMatchObject({ sub: res.body.user.id, org: res.body.organization.id, iss: 'scheduling-api', aud: 'scheduling-api' });
      expect(String(claims.sid)).toMatch(/^ses_/);
      expect(JSON.parse(Buffer.from(res.body.accessToken.split('.')[0], 'base64url').toString()).alg).toBe('HS256');
    });

    it('makes organization slugs unique', async () => {
      const a = await t.http.post('/v1/auth/register', { email: uniqueEmail(), password: 'long enough pw', organizationName: 'Same Name' });
      const b = await t.http.post('/v1/auth/register', { email: uniqueEmail(), password: 'long enough pw', organizationName: 'Same Name' });
      expect(a.body.organization.slug).not.toBe(b.body.organization.slug);
    });

    it('refuses an email in use, whatever its case, with 409 EMAIL_TAKEN', async () => {
      const owner = await registerOwner(t.http);
      const res = await t.http.post('/v1/auth/register', {
        email: owner.email.toUpperCase(),
        password: 'long enough pw',
        organizationName: 'X',
      });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('EMAIL_TAKEN');
    });

    it('gives exactly one 201 when the same email registers twice at once', async () => {
      const email = uniqueEmail('race');
      const results = await Promise.all(
        [1, 2, 3].map(() => t.http.post('/v1/auth/register', { email, password: 'long enough pw', organizationName: 'Race' })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    });

    it.each([
      [{ password: 'short' }, 'password'],
      [{ password: 'x'.repeat(129) }, 'password'],
      [{ email: 'not-an-email' }, 'email'],
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ organizationName: '' }, 'organizationName'],
      [{ organizationName: '   ' }, 'organizationName'],
      [{ organizationName: 'x'.repeat(101) }, 'organizationName'],
      [{ isAdmin: true }, 'isAdmin'],
    ])('rejects %j with 400 naming %s', async (patch, field) => {
      const res = await t.http.post('/v1/auth/register', {
        email: uniqueEmail(),
        password: 'long enough pw',
        organizationName: 'Org',
        ...patch,
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    });
  });

  describe('login', () => {
    it('returns tokens for the right password and the same 401 for a wrong password or unknown email', async () => {
      const owner = await registerOwner(t.http);
      const ok = await t.http.post('/v1/auth/login', { email: owner.email.toUpperCase(), password: owner.password });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ tokenType: 'Bearer', expiresIn: 900 });
      const wrong = await t.http.post('/v1/auth/login', { email: owner.email, password: 'wrong password' });
      const unknown = await t.http.post('/v1/auth/login', { email: uniqueEmail('nobody'), password: 'wrong password' });
      for (const res of [wrong, unknown]) {
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toContain('Bearer');
      }
      expect({ ...wrong.body, requestId: 0 }).toEqual({ ...unknown.body, requestId: 0 });
      expect(wrong.body.code).toBe('INVALID_CREDENTIALS');
    });

    it('locks an email for 15 minutes after 10 failures from one address, even for the right password, there only', async () => {
      const owner = await registerOwner(t.http);
      for (let i = 0; i < 10; i++) {
        const res = await t.http.post('/v1/auth/login', { email: owner.email, password: `wrong ${i}` });
        expect(res.status).toBe(401);
      }
      const locked = await t.http.post('/v1/auth/login', { email: owner.email, password: owner.password });
      expect(locked.status).toBe(429);
      expect(locked.body.code).toBe('RATE_LIMITED');
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
      // One client cannot lock the user out: the right password from another address signs in.
      const elsewhere = await loginFrom(t.url, '127.0.0.2', owner.email, owner.password);
      expect(elsewhere.status).toBe(200);
      // That success clears nothing of the first address's failures.
      expect((await t.http.post('/v1/auth/login', { email: owner.email, password: owner.password })).status).toBe(429);
      t.clock.advance(15 * 60 * 1000 + 1000);
      const later = await t.http.post('/v1/auth/login', { email: owner.email, password: owner.password });
      expect(later.status).toBe(200);
    });

    it('locks an email everywhere after 100 failures from all addresses together', async () => {
      const owner = await registerOwner(t.http);
      // 99 failures from 33 addresses (3 each, none locked alone), written as the login path writes them.
      await t.app
        .get(DataSource)
        .query(
          `INSERT INTO login_failures (email, client_ip, failed_at) SELECT $1, '10.0.0.' || (n % 33), $2 FROM generate_series(1, 99) n`,
          [owner.email, t.clock.now()],
        );
      expect((await loginFrom(t.url, '127.0.0.3', owner.email, 'wrong')).status).toBe(401);
      const everywhere = await loginFrom(t.url, '127.0.0.4', owner.email, owner.password);
      expect(everywhere.status).toBe(429);
      expect(everywhere.body.code).toBe('RATE_LIMITED');
      t.clock.advance(15 * 60 * 1000 + 1000);
      expect((await loginFrom(t.url, '127.0.0.4', owner.email, owner.password)).status).toBe(200);
    });
  });

  describe('sessions', () => {
    it('rotates refresh tokens and revokes the session when a rotated one comes back', async () => {
      const owner = await registerOwner(t.http);
      const first = await t.http.post('/v1/auth/refresh', { refreshToken: owner.refreshToken });
      expect(first.status).toBe(200);
      expect(first.body.refreshToken).not.toBe(owner.refreshToken);
      const second = await t.http.post('/v1/auth/refresh', { refreshToken: first.body.refreshToken });
      expect(second.status).toBe(200);

      const reused = await t.http.post('/v1/auth/refresh', { refreshToken: owner.refreshToken });
      expect(reused.status).toBe(401);
      expect(reused.body.code).toBe('UNAUTHORIZED');
      // The whole session is gone: the newest refresh token and its access token too.
      expect((await t.http.post('/v1/auth/refresh', { refreshToken: second.body.refreshToken })).status).toBe(401);
      expect((await t.http.get('/v1/users/me', { token: second.body.accessToken })).status).toBe(401);
    });

    it('rejects garbage refresh tokens with 401', async () => {
      for (const refreshToken of ['', 'abc', 'ses_xxxxxxxxxxxxxxxxxxxxxxxx.yyyy', 'x'.repeat(500)]) {
        const res = await t.http.post('/v1/auth/refresh', { refreshToken });
        expect([400, 401]).toContain(res.status);
      }
    });

    it('logout ends the session at once: access and refresh tokens stop working', async () => {
      const owner = await registerOwner(t.http);
      expect((await t.http.get('/v1/users/me', { token: owner.accessToken })).status).toBe(200);
      const out = await t.http.post('/v1/auth/logout', undefined, { token: owner.accessToken });
      expect(out.status).toBe(204);
      const after = await t.http.get('/v1/users/me', { token: owner.accessToken });
      expect(after.status).toBe(401);
      expect(after.body.code).toBe('UNAUTHORIZED');
      expect((await t.http.post('/v1/auth/refresh', { refreshToken: owner.refreshToken })).status).toBe(401);
    });

    it('lists sessions with the current one marked and deletes another', async () => {
      const owner = await registerOwner(t.http);
      const second = await t.http.post(
        '/v1/auth/login',
        { email: owner.email, password: owner.password },
        { headers: { 'user-agent': 'phone/1.0' } },
      );
      const list = await t.http.get('/v1/auth/sessions', { token: owner.accessToken });
      expect(list.status).toBe(200);
      expect(list.body.sessions).toHaveLength(2);
      const current = list.body.sessions.find((s: { current: boolean }) => s.current);
      const other = list.body.sessions.find((s: { current: boolean }) => !s.current);
      expect(current.id).toBe(decodeClaims(owner.accessToken).sid);
      expect(other).toMatchObject({ userAgent: 'phone/1.0', createdAt: expect.any(String), lastUsedAt: expect.any(String) });
      expect((await t.http.delete(`/v1/auth/sessions/${other.id}`, { token: owner.accessToken })).status).toBe(204);
      expect((await t.http.get('/v1/users/me', { token: second.body.accessToken })).status).toBe(401);
      expect((await t.http.get('/v1/auth/sessions', { token: owner.accessToken })).body.sessions).toHaveLength(1);
    });

    it('answers 404 for another user’s session id', async () => {
      const a = await registerOwner(t.http);
      const b = await registerOwner(t.http);
      const res = await t.http.delete(`/v1/auth/sessions/${decodeClaims(b.accessToken).sid}`, { token: a.accessToken });
      expect(res.status).toBe(404);
      expect((await t.http.get('/v1/users/me', { token: b.accessToken })).status).toBe(200);
    });

    it('answers TOKEN_EXPIRED once the access token is past exp', async () => {
      const owner = await registerOwner(t.http);
      t.clock.advance(901 * 1000);
      const res = await t.http.get('/v1/users/me', { token: owner.accessToken });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('TOKEN_EXPIRED');
      const refreshed = await t.http.post('/v1/auth/refresh', { refreshToken: owner.refreshToken });
      expect((await t.http.get('/v1/users/me', { token: refreshed.body.accessToken })).status).toBe(200);
    });
  });

  describe('users/me', () => {
    it('shows and updates the caller', async () => {
      const owner = await registerOwner(t.http);
      const me = await t.http.get('/v1/users/me', { token: owner.accessToken });
      expect(me.status).toBe(200);
      expect(me.body).toEqual({
        user: {
          id: owner.userId,
          email: owner.email,
          firstName: 'Ada',
          lastName: 'Owner',
          timezone: 'UTC',
          locale: null,
          createdAt: expect.any(String),
        },
        organization: { id: owner.organizationId, name: 'Acme Scheduling', slug: expect.any(String), defaultLocale: 'en' },
        member: { id: owner.memberId, role: 'owner' },
      });
      const patched = await t.http.patch('/v1/users/me', { firstName: 'Grace', timezone: 'Asia/Kolkata' }, { token: owner.accessToken });
      expect(patched.status).toBe(200);
      expect(patched.body.user).toMatchObject({ firstName: 'Grace', lastName: 'Owner', timezone: 'Asia/Kolkata' });
      expect((await t.http.patch('/v1/users/me', { timezone: 'Nowhere/City' }, { token: owner.accessToken })).status).toBe(400);
      const nullZone = await t.http.patch('/v1/users/me', { timezone: null }, { token: owner.accessToken });
      expect(nullZone.status).toBe(400);
      expect(nullZone.body.details[0].field).toBe('timezone');
      expect((await t.http.patch('/v1/users/me', { email: 'x@y.z' }, { token: owner.accessToken })).status).toBe(400);
    });

    it('with an API key shows the key’s creator, a null role and the key', async () => {
      const owner = await registerOwner(t.http);
      const key = await createApiKey(t.http, owner.accessToken, { scopes: ['bookings:read'], mode: 'test' });
      const me = await t.http.get('/v1/users/me', { apiKey: key.apiKey });
      expect(me.status).toBe(200);
      expect(me.body.user.id).toBe(owner.userId);
      expect(me.body.member).toEqual({ id: owner.memberId, role: null });
      expect(me.body.apiKey).toEqual({ id: key.id, scopes: ['bookings:read'], mode: 'test' });
      const patch = await t.http.patch('/v1/users/me', { firstName: 'K' }, { apiKey: key.apiKey });
      expect(patch.status).toBe(403);
      expect(patch.body.code).toBe('FORBIDDEN');
    });
  });

  describe('hostile credentials never reach a 500', () => {
    it.each([
      ['no header', undefined],
      ['empty', ''],
      ['ApiKey alone', 'ApiKey'],
      ['Bearer alone', 'Bearer'],
      ['Bearer with spaces', 'Bearer a b c'],
      ['double space', 'Bearer  abc'],
      ['unknown scheme', 'Basic dXNlcjpwYXNz'],
      ['10 KB value', `Bearer ${'a'.repeat(10 * 1024)}`],
      ['key with a wrong prefix', 'ApiKey mk_prod_abcdefghijklmnopqrstuvwxyz0123456789'],
      ['unknown key', 'ApiKey mk_live_abcdefghijklmnopqrstuvwxyz0123456789AB'],
      ['garbage JWT', 'Bearer not.a.jwt'],
    ])('%s → 401 UNAUTHORIZED', async (_label, header) => {
      const res = await t.http.get('/v1/users/me', { headers: header === undefined ? {} : { authorization: header } });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
      expect(res.headers.get('www-authenticate')).toBeTruthy();
    });

    it('refuses alg none, a foreign secret, a wrong audience and a deleted session', async () => {
      const owner = await registerOwner(t.http);
      const claims = decodeClaims(owner.accessToken);
      const tokens = [
        forgeJwt({ alg: 'none', typ: 'JWT' }, claims),
        forgeJwt({ alg: 'HS256', typ: 'JWT' }, claims, 'another-secret-that-is-long-enough-1234'),
        forgeJwt({ alg: 'HS256', typ: 'JWT' }, { ...claims, aud: 'someone-else' }, TEST_JWT_SECRET),
        forgeJwt({ alg: 'HS256', typ: 'JWT' }, { ...claims, iss: 'someone-else' }, TEST_JWT_SECRET),
        forgeJwt({ alg: 'HS512', typ: 'JWT' }, claims, TEST_JWT_SECRET),
        forgeJwt({ alg: 'HS256', typ: 'JWT' }, { ...claims, sid: 'ses_doesnotexist0000000000000' }, TEST_JWT_SECRET),
      ];
      for (const token of tokens) {
        const res = await t.http.get('/v1/users/me', { token });
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('UNAUTHORIZED');
      }
      // Control: the same forging code with the right secret is accepted.
      expect((await t.http.get('/v1/users/me', { token: forgeJwt({ alg: 'HS256', typ: 'JWT' }, claims, TEST_JWT_SECRET) })).status).toBe(
        200,
      );
    });
  });
});
