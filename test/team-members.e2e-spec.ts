import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { addMember, createApiKey, inviteMember, registerOwner, uniqueEmail, type RegisteredOwner } from './support/factories.js';

describe('team: organization and members', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const members = (orgId: string, token: string, query = '') => t.http.get(`/v1/organizations/${orgId}/members${query}`, { token });
  const query = <T = any>(sql: string, params: unknown[] = []): Promise<T[]> => t.app.get(DataSource).query(sql, params);

  describe('organization', () => {
    it('shows and renames the caller’s organization; the slug stays', async () => {
      const owner = await registerOwner(t.http, { organizationName: 'Acme Dental' });
      const shown = await t.http.get(`/v1/organizations/${owner.organizationId}`, { token: owner.accessToken });
      expect(shown.status).toBe(200);
      expect(shown.body).toEqual({
        organization: {
          id: owner.organizationId,
          name: 'Acme Dental',
          slug: expect.stringMatching(/^acme-dental/),
          defaultLocale: 'en',
          createdAt: expect.any(String),
        },
      });
      expect(shown.body.organization.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

      const renamed = await t.http.patch(
        `/v1/organizations/${owner.organizationId}`,
        { name: 'Acme Dental Group' },
        { token: owner.accessToken },
      );
      expect(renamed.status).toBe(200);
      expect(renamed.body.organization).toEqual({ ...shown.body.organization, name: 'Acme Dental Group' });
      const again = await t.http.get(`/v1/organizations/${owner.organizationId}`, { token: owner.accessToken });
      expect(again.body.organization.name).toBe('Acme Dental Group');
    });
  });

  describe('members', () => {
    let owner: RegisteredOwner;

    beforeAll(async () => {
      owner = await registerOwner(t.http);
    });

    it('invites: 201 with the invited member, listed with invitedAt and without userId', async () => {
      const email = uniqueEmail('Invitee').toUpperCase();
      const res = await t.http.post(
        `/v1/organizations/${owner.organizationId}/members`,
        { email, role: 'admin', firstName: 'Grace', lastName: 'Hopper' },
        { token: owner.accessToken },
      );
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        member: {
          id: expect.stringMatching(/^mem_[0-9A-Za-z]{20,}$/),
          email: email.toLowerCase(),
          firstName: 'Grace',
          lastName: 'Hopper',
          role: 'admin',
          status: 'invited',
          invitedAt: new Date(t.clock.now()).toISOString(),
        },
      });
      const list = await members(owner.organizationId, owner.accessToken, '?status=invited');
      expect(list.status).toBe(200);
      const listed = list.body.members.find((m: { id: string }) => m.id === res.body.member.id);
      expect(listed).toEqual({ ...res.body.member, bookingLimits: null, updatedAt: res.body.member.invitedAt });
    });

    it('lists active members with userId and joinedAt, filters by status and role, and pages', async () => {
      // The list is in creation order; the test clock stands still unless moved.
      const org = await registerOwner(t.http);
      t.clock.advance(1);
      const admin = await addMember(t, org.accessToken, org.organizationId, 'admin');
      for (const role of ['member', 'member', 'admin']) {
        t.clock.advance(1);
        await inviteMember(t.http, org.accessToken, org.organizationId, { role });
      }

      const all = await members(org.organizationId, org.accessToken);
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({ totalCount: 5, hasMore: false });
      expect(all.body.members).toHaveLength(5);
      const first = all.body.members[0];
      expect(first).toEqual({
        id: org.memberId,
        userId: org.userId,
        email: org.email,
        firstName: 'Ada',
        lastName: 'Owner',
        role: 'owner',
        status: 'active',
        joinedAt: expect.any(String),
        bookingLimits: null,
        updatedAt: expect.any(String),
      });
      const joined = all.body.members.find((m: { id: string }) => m.id === admin.memberId);
      expect(joined).toMatchObject({ userId: admin.userId, status: 'active', role: 'admin' });
      expect(joined).not.toHaveProperty('invitedAt');

      const active = await members(org.organizationId, org.accessToken, '?status=active');
      expect(active.body.members.map((m: { id: string }) => m.id)).toEqual([org.memberId, admin.memberId]);
      const invitedMembers = await members(org.organizationId, org.accessToken, '?status=invited&role=member');
      expect(invitedMembers.body).toMatchObject({ totalCount: 2, hasMore: false });
      const admins = await members(org.organizationId, org.accessToken, '?role=admin');
      expect(admins.body.totalCount).toBe(2);

      const page1 = await members(org.organizationId, org.accessToken, '?limit=2');
      const page3 = await members(org.organizationId, org.accessToken, '?limit=2&page=3');
      expect(page1.body).toMatchObject({ totalCount: 5, hasMore: true });
      expect(page1.body.members.map((m: { id: string }) => m.id)).toEqual(all.body.members.slice(0, 2).map((m: { id: string }) => m.id));
      expect(page3.body).toMatchObject({ totalCount: 5, hasMore: false });
      expect(page3.body.members).toHaveLength(1);

      // A member may read the organization and its members too.
      const asMember = await addMember(t, org.accessToken, org.organizationId, 'member');
      expect((await members(org.organizationId, asMember.accessToken)).status).toBe(200);
    });

    it('shows an active member’s current profile names', async () => {
      const joined = await addMember(t, owner.accessToken, owner.organizationId, 'member');
      const patched = await t.http.patch('/v1/users/me', { firstName: 'Renamed' }, { token: joined.accessToken });
      expect(patched.status).toBe(200);
      const list = await members(owner.organizationId, owner.accessToken, '?status=active&limit=100');
      expect(list.body.members.find((m: { id: string }) => m.id === joined.memberId).firstName).toBe('Renamed');
    });

    it('changes a role: 200 with id, role and updatedAt', async () => {
      const joined = await addMember(t, owner.accessToken, owner.organizationId, 'member');
      t.clock.advance(1000);
      const res = await t.http.patch(
        `/v1/organizations/${owner.organizationId}/members/${joined.memberId}`,
        { role: 'admin' },
        { token: owner.accessToken },
      );
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        member: { id: joined.memberId, role: 'admin', bookingLimits: null, updatedAt: t.clock.now().toISOString() },
      });
      // The new role counts on the member's next request.
      const invite = await t.http.post(
        `/v1/organizations/${owner.organizationId}/members`,
        { email: uniqueEmail(), role: 'member' },
        { token: joined.accessToken },
      );
      expect(invite.status).toBe(201);
    });

    it('removing an active member ends its sessions at once and keeps the user for a later invitation', async () => {
      const joined = await addMember(t, owner.accessToken, owner.organizationId, 'admin');
      expect((await t.http.get('/v1/users/me', { token: joined.accessToken })).status).toBe(200);
      const res = await t.http.delete(`/v1/organizations/${owner.organizationId}/members/${joined.memberId}`, { token: owner.accessToken });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');

      const me = await t.http.get('/v1/users/me', { token: joined.accessToken });
      expect(me.status).toBe(401);
      expect(me.body.code).toBe('UNAUTHORIZED');
      expect((await t.http.post('/v1/auth/refresh', { refreshToken: joined.refreshToken })).status).toBe(401);
      const login = await t.http.post('/v1/auth/login', { email: joined.email, password: joined.password });
      expect(login.status).toBe(401);
      expect(
        (await members(owner.organizationId, owner.accessToken, '?limit=100')).body.members.map((m: { id: string }) => m.id),
      ).not.toContain(joined.memberId);
      expect(await query(`SELECT id FROM users WHERE id = $1`, [joined.userId])).toHaveLength(1);
      expect(await query(`SELECT id FROM sessions WHERE user_id = $1`, [joined.userId])).toHaveLength(0);
      const again = await t.http.delete(`/v1/organizations/${owner.organizationId}/members/${joined.memberId}`, {
        token: owner.accessToken,
      });
      expect(again.status).toBe(404);
    });

    it('records member.invited, member.joined, member.updated and member.removed with the member as GET shows it', async () => {
      const org = await registerOwner(t.http);
      const joined = await addMember(t, org.accessToken, org.organizationId, 'member');
      await t.http.patch(
        `/v1/organizations/${org.organizationId}/members/${joined.memberId}`,
        { role: 'admin' },
        { token: org.accessToken },
      );
      await t.http.delete(`/v1/organizations/${org.organizationId}/members/${joined.memberId}`, { token: org.accessToken });
      const events = await query<{ type: string; livemode: boolean; data: { member: Record<string, unknown> } }>(
        `SELECT type, livemode, data FROM domain_events WHERE organization_id = $1 ORDER BY created_at, type`,
        [org.organizationId],
      );
      const types = events.map((e) => e.type);
      expect(types).toEqual(expect.arrayContaining(['member.invited', 'member.joined', 'member.updated', 'member.removed']));
      expect(events.every((e) => e.livemode && e.data.member.id === joined.memberId)).toBe(true);
      const byType = Object.fromEntries(events.map((e) => [e.type, e.data.member]));
      expect(byType['member.invited']).toMatchObject({ status: 'invited', role: 'member', invitedAt: expect.any(String) });
      expect(byType['member.invited']).not.toHaveProperty('userId');
      expect(byType['member.joined']).toMatchObject({ status: 'active', userId: joined.userId, joinedAt: expect.any(String) });
      expect(byType['member.updated']).toMatchObject({ role: 'admin', status: 'active' });
      expect(byType['member.removed']).toMatchObject({ id: joined.memberId, role: 'admin', email: joined.email });
    });
  });

  describe('owners', () => {
    it('two owners demoting each other at the same moment: one 200, one 403 (the second is no owner by then), one owner left', async () => {
      for (let round = 0; round < 3; round++) {
        const a = await registerOwner(t.http);
        const b = await addMember(t, a.accessToken, a.organizationId, 'owner');
        const [ab, ba] = await Promise.all([
          t.http.patch(`/v1/organizations/${a.organizationId}/members/${b.memberId}`, { role: 'admin' }, { token: a.accessToken }),
          t.http.patch(`/v1/organizations/${a.organizationId}/members/${a.memberId}`, { role: 'member' }, { token: b.accessToken }),
        ]);
        expect([ab.status, ba.status].sort()).toEqual([200, 403]);
        expect([ab, ba].find((r) => r.status === 403)!.body.code).toBe('FORBIDDEN');
        const owners = await query(`SELECT id FROM members WHERE organization_id = $1 AND role = 'owner' AND status = 'active'`, [
          a.organizationId,
        ]);
        expect(owners).toHaveLength(1);
      }
    });

    it('two owners removing each other at the same moment: one 204, the other refused', async () => {
      const a = await registerOwner(t.http);
      const b = await addMember(t, a.accessToken, a.organizationId, 'owner');
      const results = await Promise.all([
        t.http.delete(`/v1/organizations/${a.organizationId}/members/${b.memberId}`, { token: a.accessToken }),
        t.http.delete(`/v1/organizations/${a.organizationId}/members/${a.memberId}`, { token: b.accessToken }),
      ]);
      // The loser's session is gone with its membership (401), or its membership is (403).
      const statuses = results.map((r) => r.status).sort();
      expect(statuses[0]).toBe(204);
      expect([401, 403]).toContain(statuses[1]);
      const owners = await query(`SELECT id FROM members WHERE organization_id = $1 AND role = 'owner' AND status = 'active'`, [
        a.organizationId,
      ]);
      expect(owners).toHaveLength(1);
    });

    it('an admin demoting or removing the only owner is refused for its role (403), not for the owner count', async () => {
      const org = await registerOwner(t.http);
      const admin = await addMember(t, org.accessToken, org.organizationId, 'admin');
      const demote = await t.http.patch(
        `/v1/organizations/${org.organizationId}/members/${org.memberId}`,
        { role: 'member' },
        { token: admin.accessToken },
      );
      expect(demote.status).toBe(403);
      expect(demote.body.code).toBe('FORBIDDEN');
      const remove = await t.http.delete(`/v1/organizations/${org.organizationId}/members/${org.memberId}`, { token: admin.accessToken });
      expect(remove.status).toBe(403);
      expect(remove.body.code).toBe('FORBIDDEN');
    });

    it('the last owner can neither be removed nor demoted, not even by itself; an invited owner does not count', async () => {
      const org = await registerOwner(t.http);
      await inviteMember(t.http, org.accessToken, org.organizationId, { role: 'owner' });
      const remove = await t.http.delete(`/v1/organizations/${org.organizationId}/members/${org.memberId}`, { token: org.accessToken });
      expect(remove.status).toBe(409);
      expect(remove.body.code).toBe('LAST_OWNER');
      const demote = await t.http.patch(
        `/v1/organizations/${org.organizationId}/members/${org.memberId}`,
        { role: 'admin' },
        { token: org.accessToken },
      );
      expect(demote.status).toBe(409);
      expect(demote.body.code).toBe('LAST_OWNER');
      // Re-granting owner to the last owner is no demotion.
      const same = await t.http.patch(
        `/v1/organizations/${org.organizationId}/members/${org.memberId}`,
        { role: 'owner' },
        { token: org.accessToken },
      );
      expect(same.status).toBe(200);
    });

    it('with a second active owner, an owner may step down', async () => {
      const org = await registerOwner(t.http);
      await addMember(t, org.accessToken, org.organizationId, 'owner');
      const res = await t.http.patch(
        `/v1/organizations/${org.organizationId}/members/${org.memberId}`,
        { role: 'member' },
        { token: org.accessToken },
      );
      expect(res.status).toBe(200);
      // The new role holds on the next request of the same session.
      const patch = await t.http.patch(`/v1/organizations/${org.organizationId}`, { name: 'Nope' }, { token: org.accessToken });
      expect(patch.status).toBe(403);
    });
  });

  describe('other organizations', () => {
    it('answers 404 on every team route for another organization’s ids', async () => {
      const mine = await registerOwner(t.http);
      const theirs = await registerOwner(t.http);
      const theirMember = await inviteMember(t.http, theirs.accessToken, theirs.organizationId, { role: 'member' });
      const key = await createApiKey(t.http, mine.accessToken);
      const other = `/v1/organizations/${theirs.organizationId}`;
      const own = `/v1/organizations/${mine.organizationId}`;
      const cases: [string, string, unknown?][] = [
        ['GET', other],
        ['PATCH', other, { name: 'Taken over' }],
        ['DELETE', other],
        ['GET', `${other}/members`],
        ['POST', `${other}/members`, { email: uniqueEmail(), role: 'member' }],
        ['PATCH', `${other}/members/${theirMember.id}`, { role: 'admin' }],
        ['DELETE', `${other}/members/${theirMember.id}`],
        ['PATCH', `${other}/members/${theirs.memberId}`, { role: 'member' }],
        ['DELETE', `${other}/members/${theirs.memberId}`],
        // Their member id under my organization.
        ['PATCH', `${own}/members/${theirMember.id}`, { role: 'admin' }],
        ['DELETE', `${own}/members/${theirMember.id}`],
        ['DELETE', `${own}/members/${theirs.memberId}`],
      ];
      for (const [method, path, body] of cases) {
        const asOwner = await t.http.request(method, path, { token: mine.accessToken, body });
        expect({ method, path, status: asOwner.status, code: asOwner.body?.code }).toEqual({
          method,
          path,
          status: 404,
          code: 'NOT_FOUND',
        });
        if (method === 'DELETE' && path === other) continue; // JWT only: a key gets 403 before any lookup
        const asKey = await t.http.request(method, path, { apiKey: key.apiKey, body });
        expect({ method, path, status: asKey.status }).toEqual({ method, path, status: 404 });
      }
      // Nothing of theirs changed.
      const list = await members(theirs.organizationId, theirs.accessToken);
      expect(list.body.totalCount).toBe(2);
      expect((await t.http.get(other, { token: theirs.accessToken })).body.organization.name).toBe('Acme Scheduling');
    });
  });

  describe('deleting the organization', () => {
    it('removes everything of it in one go and ends every session of it', async () => {
      const org = await registerOwner(t.http);
      const admin = await addMember(t, org.accessToken, org.organizationId, 'admin');
      await inviteMember(t.http, org.accessToken, org.organizationId, { role: 'member' });
      const key = await createApiKey(t.http, org.accessToken);
      const bystander = await registerOwner(t.http);

      const denied = await t.http.delete(`/v1/organizations/${org.organizationId}`, { token: admin.accessToken });
      expect(denied.status).toBe(403);
      const res = await t.http.delete(`/v1/organizations/${org.organizationId}`, { token: org.accessToken });
      expect(res.status).toBe(204);

      expect((await t.http.get('/v1/users/me', { token: org.accessToken })).status).toBe(401);
      expect((await t.http.get('/v1/users/me', { token: admin.accessToken })).status).toBe(401);
      expect((await t.http.get('/v1/users/me', { apiKey: key.apiKey })).status).toBe(401);
      expect((await t.http.post('/v1/auth/login', { email: admin.email, password: admin.password })).status).toBe(401);
      for (const table of ['members', 'api_keys', 'domain_events', 'mail_outbox']) {
        expect({ table, rows: await query(`SELECT 1 FROM ${table} WHERE organization_id = $1`, [org.organizationId]) }).toEqual({
          table,
          rows: [],
        });
      }
      expect(await query(`SELECT 1 FROM organizations WHERE id = $1`, [org.organizationId])).toHaveLength(0);
      expect(await query(`SELECT 1 FROM users WHERE id = ANY($1)`, [[org.userId, admin.userId]])).toHaveLength(0);
      // The email is free again.
      expect(
        (await t.http.post('/v1/auth/register', { email: org.email, password: 'long enough pw', organizationName: 'Again' })).status,
      ).toBe(201);
      expect((await t.http.get(`/v1/organizations/${bystander.organizationId}`, { token: bystander.accessToken })).status).toBe(200);
    });

    it('an owner demoted while its DELETE waits for the organization lock gets 403 and nothing is deleted', async () => {
      const a = await registerOwner(t.http);
      const b = await addMember(t, a.accessToken, a.organizationId, 'owner');
      const runner = t.app.get(DataSource).createQueryRunner();
      await runner.connect();
      try {
        await runner.startTransaction();
        // What a concurrent role change holds while it demotes b.
        await runner.query(`SELECT id FROM organizations WHERE id = $1 FOR NO KEY UPDATE`, [a.organizationId]);
        const pending = t.http.delete(`/v1/organizations/${a.organizationId}`, { token: b.accessToken });
        // Wait until b's DELETE has passed the guard (b still an owner) and blocks on the organization row.
        for (let i = 0; i < 200; i++) {
          const waiting = await query(
            `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FROM organizations WHERE id = $1 FOR UPDATE%'`,
          );
          if (waiting.length > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await runner.query(`UPDATE members SET role = 'admin' WHERE id = $1`, [b.memberId]);
        await runner.commitTransaction();
        const res = await pending;
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('FORBIDDEN');
      } finally {
        await runner.release();
      }
      expect(await query(`SELECT 1 FROM organizations WHERE id = $1`, [a.organizationId])).toHaveLength(1);
    });
  });
});
