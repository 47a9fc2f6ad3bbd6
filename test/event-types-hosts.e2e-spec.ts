import { jest } from '@jest/globals';
import { HostLocksRepository } from '../apps/api/src/modules/slot-decision/host-locks.repository.js';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, NOW, WEEKDAYS_9_TO_5 } from './support/bookings.js';
import { addMember, createApiKey, inviteMember, registerOwner, type AddedMember, type RegisteredOwner } from './support/factories.js';
import { putSchedule } from './support/scheduling.js';

describe('event types: hosts', () => {
  let t: TestApp;
  let owner: RegisteredOwner;
  let alice: AddedMember;
  let bob: AddedMember;
  let n = 0;
  const create = (body: Record<string, unknown>, token = owner.accessToken) =>
    t.http.post('/v1/event-types', { title: 'Team call', slug: `team-call-${++n}`, durationMinutes: 30, ...body }, { token });
  const hostsOf = async (id: string): Promise<string[]> =>
    (await t.http.get(`/v1/event-types/${id}`, { token: owner.accessToken })).body.eventType.hostUserIds;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerOwner(t.http);
    alice = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    bob = await addMember(t, owner.accessToken, owner.organizationId, 'admin');
  });
  afterAll(async () => {
    await t.close();
  });

  it('defaults to the acting user and keeps the given order', async () => {
    expect((await create({})).body.eventType.hostUserIds).toEqual([owner.userId]);
    expect((await create({ schedulingType: 'collective' }, bob.accessToken)).body.eventType.hostUserIds).toEqual([bob.userId]);
    const ordered = await create({ schedulingType: 'round_robin', hostUserIds: [bob.userId, owner.userId, alice.userId] });
    expect(ordered.status).toBe(201);
    expect(ordered.body.eventType.hostUserIds).toEqual([bob.userId, owner.userId, alice.userId]);
    expect(await hostsOf(ordered.body.eventType.id)).toEqual([bob.userId, owner.userId, alice.userId]);
  });

  it.each([
    ['one_on_one with two hosts', () => ({ hostUserIds: [owner.userId, alice.userId] })],
    ['round_robin with none', () => ({ schedulingType: 'round_robin', hostUserIds: [] })],
    ['collective with none', () => ({ schedulingType: 'collective', hostUserIds: [] })],
    ['a duplicate host', () => ({ schedulingType: 'collective', hostUserIds: [alice.userId, alice.userId] })],
    ['an unknown user', () => ({ hostUserIds: ['usr_000000000000000000000000'] })],
    ['a malformed id', () => ({ hostUserIds: ['mem_000000000000000000000000'] })],
    [
      'more than 50 hosts',
      () => ({ schedulingType: 'collective', hostUserIds: Array.from({ length: 51 }, (_, i) => `usr_${String(i).padStart(24, '0')}`) }),
    ],
  ])('refuses %s with 400 naming hostUserIds', async (_label, body) => {
    const res = await create(body());
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(['hostUserIds']);
  });

  it('refuses a user of another organization and a removed member, naming them', async () => {
    const other = await registerOwner(t.http);
    const foreign = await create({ schedulingType: 'round_robin', hostUserIds: [owner.userId, other.userId] });
    expect(foreign.status).toBe(400);
    expect(foreign.body.details[0]).toEqual({ field: 'hostUserIds', message: expect.stringContaining(other.userId) });

    const leaving = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    const removed = await t.http.delete(`/v1/organizations/${owner.organizationId}/members/${leaving.memberId}`, {
      token: owner.accessToken,
    });
    expect(removed.status).toBe(204);
    const res = await create({ hostUserIds: [leaving.userId] });
    expect(res.status).toBe(400);
    expect(res.body.details[0].message).toContain(leaving.userId);
  });

  it('an invitation that was not accepted yet has no user id to name', async () => {
    const invited = await inviteMember(t.http, owner.accessToken, owner.organizationId, { role: 'member' });
    const res = await create({ hostUserIds: [invited.id] });
    expect(res.status).toBe(400);
    expect(res.body.details[0].field).toBe('hostUserIds');
  });

  it('takes a removed member off every host list', async () => {
    const leaving = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    const a = (await create({ schedulingType: 'round_robin', hostUserIds: [leaving.userId, owner.userId] })).body.eventType.id;
    const b = (await create({ hostUserIds: [leaving.userId] })).body.eventType.id;
    const c = (await create({ schedulingType: 'collective', hostUserIds: [alice.userId, leaving.userId, bob.userId] })).body.eventType.id;
    await t.http.delete(`/v1/organizations/${owner.organizationId}/members/${leaving.memberId}`, { token: owner.accessToken });
    expect(await hostsOf(a)).toEqual([owner.userId]);
    expect(await hostsOf(b)).toEqual([]);
    expect(await hostsOf(c)).toEqual([alice.userId, bob.userId]);
    const list = await t.http.get('/v1/event-types?limit=100', { token: owner.accessToken });
    const listed = list.body.eventTypes.find((e: { id: string }) => e.id === c);
    expect(listed.hostUserIds).toEqual([alice.userId, bob.userId]);
  });

  it('PATCH replaces the host list and checks it against the (new) scheduling type', async () => {
    const id = (await create({ schedulingType: 'round_robin', hostUserIds: [owner.userId, alice.userId] })).body.eventType.id;
    const reordered = await t.http.patch(
      `/v1/event-types/${id}`,
      { hostUserIds: [alice.userId, bob.userId, owner.userId] },
      { token: owner.accessToken },
    );
    expect(reordered.status).toBe(200);
    expect(reordered.body.eventType.hostUserIds).toEqual([alice.userId, bob.userId, owner.userId]);

    const toOneOnOne = await t.http.patch(`/v1/event-types/${id}`, { schedulingType: 'one_on_one' }, { token: owner.accessToken });
    expect(toOneOnOne.status).toBe(400);
    expect(toOneOnOne.body.details[0].field).toBe('hostUserIds');
    const unknown = await t.http.patch(
      `/v1/event-types/${id}`,
      { hostUserIds: ['usr_000000000000000000000000'] },
      { token: owner.accessToken },
    );
    expect(unknown.status).toBe(400);
    expect(await hostsOf(id)).toEqual([alice.userId, bob.userId, owner.userId]);

    const single = await t.http.patch(
      `/v1/event-types/${id}`,
      { schedulingType: 'one_on_one', hostUserIds: [bob.userId] },
      { token: owner.accessToken },
    );
    expect(single.status).toBe(200);
    expect(single.body.eventType).toMatchObject({ schedulingType: 'one_on_one', hostUserIds: [bob.userId] });
  });

  it('refuses an API key whose creator has left as the default host', async () => {
    const admin = await addMember(t, owner.accessToken, owner.organizationId, 'admin');
    const key = await createApiKey(t.http, admin.accessToken);
    await t.http.delete(`/v1/organizations/${owner.organizationId}/members/${admin.memberId}`, { token: owner.accessToken });
    const res = await t.http.post(
      '/v1/event-types',
      { title: 'Orphan', slug: `orphan-${++n}`, durationMinutes: 30 },
      { apiKey: key.apiKey },
    );
    expect(res.status).toBe(400);
    expect(res.body.details[0].field).toBe('hostUserIds');
    const explicit = await t.http.post(
      '/v1/event-types',
      { title: 'Orphan', slug: `orphan-${++n}`, durationMinutes: 30, hostUserIds: [owner.userId] },
      { apiKey: key.apiKey },
    );
    expect(explicit.status).toBe(201);
  });

  it('a host added to a round-robin event type takes its next booking at once, though this instance knew the hosts without it', async () => {
    const id = (await create({ schedulingType: 'round_robin', hostUserIds: [owner.userId] })).body.eventType.id as string;
    // An API key: the clock moves to the bookable week, past the session's expiry (the last test of the file).
    const auth = { apiKey: (await createApiKey(t.http, owner.accessToken, { rateLimitPerMinute: 10000 })).apiKey };
    t.clock.set(NOW);
    for (const userId of [owner.userId, alice.userId]) await putSchedule(t, auth, 'UTC', WEEKDAYS_9_TO_5, userId);
    const book = (time: string) => t.http.post('/v1/bookings', bookingBody(id, time), auth);
    // A first booking: the instance now knows the event type's hosts (owner), which choose a write's locks.
    expect((await book('2027-03-02T09:00:00Z')).body.booking.hostUserId).toBe(owner.userId);
    expect((await t.http.patch(`/v1/event-types/${id}`, { hostUserIds: [owner.userId, alice.userId] }, auth)).status).toBe(200);
    // The owner is taken at 10:00; the newcomer, read under the locks, gets the second booking of that time.
    const locks = jest.spyOn(t.app.get(HostLocksRepository, { strict: false }), 'lockHosts');
    const lockedBy = async (request: () => Promise<{ status: number; body: { booking: { hostUserId: string } } }>) => {
      locks.mockClear();
      const res = await request();
      return { res, locked: locks.mock.calls.map(([, hosts]) => [...hosts].sort()) };
    };
    try {
      // The first write after the change locks the hosts it knew, meets alice under the locks, and starts again with her.
      const first = await lockedBy(() => book('2027-03-02T10:00:00Z'));
      expect(first.locked).toEqual([[owner.userId], [owner.userId, alice.userId].sort()]);
      // The next knows her from the start: one decision.
      const second = await lockedBy(() => book('2027-03-02T10:00:00Z'));
      expect(second.locked).toEqual([[owner.userId, alice.userId].sort()]);
      expect([first.res.status, second.res.status]).toEqual([201, 201]);
      expect([first.res.body.booking.hostUserId, second.res.body.booking.hostUserId].sort()).toEqual([owner.userId, alice.userId].sort());
      expect((await book('2027-03-02T10:00:00Z')).status).toBe(409);
    } finally {
      locks.mockRestore();
    }
  });
});
