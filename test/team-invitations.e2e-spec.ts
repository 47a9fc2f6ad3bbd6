import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import {
  addMember,
  invitationToken,
  invitationTokens,
  inviteMember,
  registerOwner,
  uniqueEmail,
  type RegisteredOwner,
} from './support/factories.js';

const DAY_MS = 24 * 3600 * 1000;

describe('team: invitations', () => {
  let t: TestApp;
  let owner: RegisteredOwner;

  beforeAll(async () => {
    t = await startTestApp({ env: { APP_URL: 'https://app.example.test' } });
    owner = await registerOwner(t.http);
  });
  afterAll(async () => {
    await t.close();
  });

  const accept = (body: Record<string, unknown>) => t.http.post('/v1/invitations/accept', body);
  const invite = (org: RegisteredOwner, email: string, role = 'member') =>
    t.http.post(`/v1/organizations/${org.organizationId}/members`, { email, role }, { token: org.accessToken });

  it('accepting creates the user and an active membership and signs in; the password works for login', async () => {
    const invited = await inviteMember(t.http, owner.accessToken, owner.organizationId, {
      role: 'admin',
      firstName: 'Grace',
      lastName: 'Hopper',
    });
    const token = await invitationToken(t, invited.email);
    expect(token.length).toBeGreaterThanOrEqual(22); // ≥ 128 bits of base62
    // Only the hash is stored.
    const stored = await t.app.get(DataSource).query(`SELECT invitation_token_hash FROM members WHERE id = $1`, [invited.id]);
    expect(stored[0].invitation_token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored[0].invitation_token_hash).not.toContain(token);

    const res = await accept({ token, password: 'a new password', timezone: 'Europe/Berlin' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      member: {
        id: invited.id,
        userId: expect.stringMatching(/^usr_[0-9A-Za-z]{20,}$/),
        email: invited.email,
        role: 'admin',
        status: 'active',
        joinedAt: t.clock.now().toISOString(),
      },
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      tokenType: 'Bearer',
      expiresIn: 900,
    });
    const me = await t.http.get('/v1/users/me', { token: res.body.accessToken });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      user: { id: res.body.member.userId, email: invited.email, firstName: 'Grace', lastName: 'Hopper', timezone: 'Europe/Berlin' },
      organization: { id: owner.organizationId },
      member: { id: invited.id, role: 'admin' },
    });
    const login = await t.http.post('/v1/auth/login', { email: invited.email, password: 'a new password' });
    expect(login.status).toBe(200);
    const stored2 = await t.app.get(DataSource).query(`SELECT invitation_token_hash FROM members WHERE id = $1`, [invited.id]);
    expect(stored2[0].invitation_token_hash).toBeNull();
  });

  it('a token works once: a used token → 404 INVITATION_NOT_FOUND, also when two accept at once', async () => {
    const invited = await inviteMember(t.http, owner.accessToken, owner.organizationId, { role: 'member' });
    const token = await invitationToken(t, invited.email);
    const results = await Promise.all([accept({ token, password: 'first password' }), accept({ token, password: 'second password' })]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 404]);
    const again = await accept({ token, password: 'third password' });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('INVITATION_NOT_FOUND');
  });

  it('unknown and cancelled tokens → 404 INVITATION_NOT_FOUND', async () => {
    const invited = await inviteMember(t.http, owner.accessToken, owner.organizationId, { role: 'member' });
    const token = await invitationToken(t, invited.email);
    const cancelled = await t.http.delete(`/v1/organizations/${owner.organizationId}/members/${invited.id}`, { token: owner.accessToken });
    expect(cancelled.status).toBe(204);
    for (const candidate of [token, 'x', 'A'.repeat(43), `${token}x`]) {
      const res = await accept({ token: candidate, password: 'long enough' });
      expect({ candidate, status: res.status, code: res.body.code }).toEqual({ candidate, status: 404, code: 'INVITATION_NOT_FOUND' });
    }
  });

  it('MEMBER_EXISTS: an email already invited or a member here, in any case; concurrent invites give one 201', async () => {
    const email = uniqueEmail('dup');
    expect((await invite(owner, email)).status).toBe(201);
    const again = await invite(owner, email.toUpperCase(), 'admin');
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('MEMBER_EXISTS');
    const ownEmail = await invite(owner, owner.email);
    expect([ownEmail.status, ownEmail.body.code]).toEqual([409, 'MEMBER_EXISTS']);

    const raced = uniqueEmail('race');
    const results = await Promise.all([1, 2, 3].map(() => invite(owner, raced)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.code === 'MEMBER_EXISTS')).toBe(true);
  });

  it('EMAIL_TAKEN: inviting an active member of another organization', async () => {
    const other = await registerOwner(t.http);
    const res = await invite(owner, other.email.toUpperCase());
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('EMAIL_TAKEN');
  });

  it('two organizations may invite one new email; only the first acceptance wins, the second → 409 EMAIL_TAKEN', async () => {
    const other = await registerOwner(t.http);
    const email = uniqueEmail('wanted');
    expect((await invite(owner, email)).status).toBe(201);
    expect((await invite(other, email)).status).toBe(201);
    const [first, second] = await invitationTokens(t, email, 2);
    expect((await accept({ token: first, password: 'long enough' })).status).toBe(200);
    const res = await accept({ token: second, password: 'long enough' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('EMAIL_TAKEN');
    // Now that the email has a membership, a new invitation elsewhere is refused up front.
    const third = await registerOwner(t.http);
    expect((await invite(third, email)).body.code).toBe('EMAIL_TAKEN');
  });

  it('accepting both at the same moment: one 200, one 409 EMAIL_TAKEN', async () => {
    const other = await registerOwner(t.http);
    const email = uniqueEmail('both');
    await invite(owner, email);
    await invite(other, email);
    const tokens = await invitationTokens(t, email, 2);
    const results = await Promise.all(tokens.map((token) => accept({ token, password: 'long enough' })));
    expect(results.map((r) => [r.status, r.body.code]).sort()).toEqual([
      [200, undefined],
      [409, 'EMAIL_TAKEN'],
    ]);
  });

  it('a removed member’s user is re-attached by a later invitation, with the new password', async () => {
    const joined = await addMember(t, owner.accessToken, owner.organizationId, 'admin');
    expect(
      (await t.http.delete(`/v1/organizations/${owner.organizationId}/members/${joined.memberId}`, { token: owner.accessToken })).status,
    ).toBe(204);
    const other = await registerOwner(t.http);
    expect((await invite(other, joined.email)).status).toBe(201);
    const token = await invitationToken(t, joined.email, 2);
    const res = await accept({ token, password: 'brand new password' });
    expect(res.status).toBe(200);
    expect(res.body.member.userId).toBe(joined.userId);
    expect((await t.http.post('/v1/auth/login', { email: joined.email, password: joined.password })).status).toBe(401);
    const login = await t.http.post('/v1/auth/login', { email: joined.email, password: 'brand new password' });
    expect(login.status).toBe(200);
    const me = await t.http.get('/v1/users/me', { token: login.body.accessToken });
    expect(me.body.organization.id).toBe(other.organizationId);
  });

  it.each([
    [{}, 'token'],
    [{ token: 123 }, 'token'],
    [{ password: 'short' }, 'password'],
    [{ password: 'x'.repeat(129) }, 'password'],
    [{ timezone: 'Mars/Olympus' }, 'timezone'],
    [{ firstName: '' }, 'firstName'],
    [{ role: 'owner' }, 'role'],
  ])('rejects %j with 400 naming %s', async (patch, field) => {
    const body: Record<string, unknown> = { token: 'A'.repeat(43), password: 'long enough', ...patch };
    if (field === 'token' && !('token' in patch)) delete body.token;
    const res = await accept(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  // Last: it moves the shared clock a week ahead.
  it('a token is valid for 7 days from invitedAt, then 410 INVITATION_EXPIRED', async () => {
    const early = await inviteMember(t.http, owner.accessToken, owner.organizationId, { role: 'member' });
    const late = await inviteMember(t.http, owner.accessToken, owner.organizationId, { role: 'member' });
    const [earlyToken, lateToken] = await Promise.all([invitationToken(t, early.email), invitationToken(t, late.email)]);
    t.clock.advance(7 * DAY_MS - 60_000);
    expect((await accept({ token: earlyToken, password: 'long enough' })).status).toBe(200);
    t.clock.advance(60_000);
    const res = await accept({ token: lateToken, password: 'long enough' });
    expect(res.status).toBe(410);
    expect(res.body.code).toBe('INVITATION_EXPIRED');
    // The invitation stays listed until cancelled; cancelling frees the email for a new invitation.
    const fresh = await t.http.post('/v1/auth/login', { email: owner.email, password: owner.password });
    const token = fresh.body.accessToken;
    const list = await t.http.get(`/v1/organizations/${owner.organizationId}/members?status=invited&limit=100`, { token });
    expect(list.body.members.map((m: { id: string }) => m.id)).toContain(late.id);
    expect((await t.http.delete(`/v1/organizations/${owner.organizationId}/members/${late.id}`, { token })).status).toBe(204);
    expect(
      (await t.http.post(`/v1/organizations/${owner.organizationId}/members`, { email: late.email, role: 'member' }, { token })).status,
    ).toBe(201);
    const renewed = await invitationToken(t, late.email, 2);
    expect((await accept({ token: renewed, password: 'long enough' })).status).toBe(200);
  });
});
