import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody } from './support/bookings.js';
import { addMember, createApiKey, registerOwner, type AddedMember, type RegisteredOwner } from './support/factories.js';
import { check, createEventType, putSchedule, slots } from './support/scheduling.js';

/** Mon 2027-03-01 .. Fri: 09:00–17:00 in New York (UTC−5 until March 14). */
const WEEKDAYS = [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, slots: [{ startTime: '09:00', endTime: '17:00' }] }));
const ZONE = 'America/New_York';
/** 10:00 New York on 2027-03-0d. */
const nyAt = (day: number, hour = 10): string => `2027-03-0${day}T${String(hour + 5).padStart(2, '0')}:00:00Z`;

describe('host booking limits (contract § 17)', () => {
  let t: TestApp;
  let b: TestApp;
  let owner: RegisteredOwner;
  let alice: AddedMember;
  let bob: AddedMember;
  let key: { apiKey: string };
  let testKey: { apiKey: string };
  const members = (): string => `/v1/organizations/${owner.organizationId}/members`;
  const setLimits = (who: AddedMember | RegisteredOwner, bookingLimits: unknown) =>
    t.http.patch(`${members()}/${who.memberId}`, { bookingLimits }, { token: owner.accessToken });

  beforeAll(async () => {
    t = await startTestApp();
    b = await startTestApp({ databaseUrl: t.databaseUrl, clock: t.clock, env: { DATA_DIR: t.config.dataDir } });
    t.clock.set('2027-02-22T00:00:00Z');
    owner = await registerOwner(t.http);
    alice = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    bob = await addMember(t, owner.accessToken, owner.organizationId, 'admin');
    key = await createApiKey(t.http, owner.accessToken, { rateLimitPerMinute: 10000 });
    testKey = await createApiKey(t.http, owner.accessToken, { mode: 'test', rateLimitPerMinute: 10000 });
    for (const userId of [owner.userId, alice.userId, bob.userId]) await putSchedule(t, key, ZONE, WEEKDAYS, userId);
  });
  afterAll(async () => {
    await b.app.close();
    await t.close();
  });

  it('PATCH validates bookingLimits (role and limits each optional, at least one), lists and clears them; members may not set them', async () => {
    for (const bad of [
      {},
      { bookingLimits: { perDay: 0 } },
      { bookingLimits: { perDay: 101 } },
      { bookingLimits: { perWeek: 501 } },
      { bookingLimits: { perWeek: 2.5 } },
      { bookingLimits: { perDay: '3' } },
      { bookingLimits: 5 },
      { bookingLimits: { perMonth: 3 } },
      { role: null },
    ]) {
      const res = await t.http.patch(`${members()}/${alice.memberId}`, bad, { token: owner.accessToken });
      expect([bad, res.status, res.body.code]).toEqual([bad, 400, 'VALIDATION_ERROR']);
    }
    const set = await setLimits(alice, { perDay: 2 });
    expect(set.status).toBe(200);
    expect(set.body.member).toMatchObject({ id: alice.memberId, role: 'member', bookingLimits: { perDay: 2, perWeek: null } });
    const both = await t.http.patch(
      `${members()}/${alice.memberId}`,
      { role: 'member', bookingLimits: { perDay: 100, perWeek: 500 } },
      { token: owner.accessToken },
    );
    expect(both.body.member.bookingLimits).toEqual({ perDay: 100, perWeek: 500 });
    const listed = await t.http.get(members(), { token: owner.accessToken });
    const byId = new Map(listed.body.members.map((m: { id: string; bookingLimits: unknown }) => [m.id, m.bookingLimits]));
    expect(byId.get(alice.memberId)).toEqual({ perDay: 100, perWeek: 500 });
    expect(byId.get(owner.memberId)).toBeNull();
    expect((await setLimits(alice, null)).body.member.bookingLimits).toBeNull();
    expect((await setLimits(alice, {})).body.member.bookingLimits).toBeNull();
    // A member may not; another organization's member is 404.
    const self = await t.http.patch(`${members()}/${alice.memberId}`, { bookingLimits: { perDay: 1 } }, { token: alice.accessToken });
    expect(self.status).toBe(403);
    const other = await registerOwner(t.http);
    const foreign = await t.http.patch(
      `/v1/organizations/${other.organizationId}/members/${other.memberId}`,
      { bookingLimits: { perDay: 1 } },
      { token: owner.accessToken },
    );
    expect([403, 404]).toContain(foreign.status);
    const notMine = await t.http.patch(
      `/v1/organizations/${other.organizationId}/members/${alice.memberId}`,
      { bookingLimits: { perDay: 1 } },
      { token: other.accessToken },
    );
    expect(notMine.status).toBe(404);
  });

  it('a daily and weekly limit counts every event type and holds, in the host zone; slots disappear, check and booking say host_limit_reached', async () => {
    const first = await createEventType(t, key, { slug: 'one-a', durationMinutes: 30, hostUserIds: [alice.userId] });
    const second = await createEventType(t, key, { slug: 'one-b', durationMinutes: 60, hostUserIds: [alice.userId] });
    expect((await setLimits(alice, { perDay: 2, perWeek: 3 })).status).toBe(200);
    expect((await t.http.post('/v1/bookings', bookingBody(first, nyAt(1, 9)), key)).status).toBe(201);
    expect((await slots(t, key, first, '2027-03-01', '2027-03-01', ZONE)).length).toBeGreaterThan(0);
    // A hold counts like a booking.
    const hold = await t.http.post('/v1/holds', { eventTypeId: second, startTime: nyAt(1, 14), timezone: 'UTC' }, key);
    expect(hold.status).toBe(201);
    expect(await slots(t, key, first, '2027-03-01', '2027-03-01', ZONE)).toEqual([]);
    expect(await check(t, key, first, nyAt(1, 11))).toEqual({ available: false, reason: 'host_limit_reached' });
    const refused = await t.http.post('/v1/bookings', bookingBody(second, nyAt(1, 12)), key);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'SLOT_UNAVAILABLE', details: [{ field: 'startTime', message: 'host_limit_reached' }] });
    // Test mode counts apart.
    expect((await t.http.post('/v1/bookings', bookingBody(first, nyAt(1, 12)), testKey)).status).toBe(201);
    // Tuesday is a new day; one more reaches the weekly limit of 3, so Wednesday to Friday close too.
    expect((await t.http.post('/v1/bookings', bookingBody(second, nyAt(2)), key)).status).toBe(201);
    expect(await slots(t, key, first, '2027-03-02', '2027-03-05', ZONE)).toEqual([]);
    // The next Monday opens a new week.
    expect((await slots(t, key, first, '2027-03-08', '2027-03-08', ZONE)).length).toBeGreaterThan(0);
    // Raising the limit takes effect at once (the cache sees the member's change).
    await setLimits(alice, { perDay: 2 });
    expect((await slots(t, key, first, '2027-03-03', '2027-03-03', ZONE)).length).toBeGreaterThan(0);
    await setLimits(alice, null);
  });

  it('round robin gives the booking to another host; collective slots disappear', async () => {
    const rr = await createEventType(t, key, {
      slug: 'rr',
      durationMinutes: 30,
      schedulingType: 'round_robin',
      hostUserIds: [owner.userId, bob.userId],
    });
    const together = await createEventType(t, key, {
      slug: 'co',
      durationMinutes: 30,
      schedulingType: 'collective',
      hostUserIds: [owner.userId, bob.userId],
    });
    await setLimits(owner, { perDay: 1 });
    const a = await t.http.post('/v1/bookings', bookingBody(rr, nyAt(3, 9)), key);
    const again = await t.http.post('/v1/bookings', bookingBody(rr, nyAt(3, 11)), key);
    const third = await t.http.post('/v1/bookings', bookingBody(rr, nyAt(3, 13)), key);
    const hosts = [a, again, third].map((res) => res.body.booking.hostUserId);
    expect(hosts.filter((host) => host === owner.userId)).toHaveLength(1);
    expect(hosts.filter((host) => host === bob.userId)).toHaveLength(2);
    expect(await slots(t, key, together, '2027-03-03', '2027-03-03', ZONE)).toEqual([]);
    expect(await check(t, key, together, nyAt(3, 15))).toEqual({ available: false, reason: 'host_limit_reached' });
    await setLimits(owner, null);
  });

  it('seats of one start count once', async () => {
    const seated = await createEventType(t, key, { slug: 'seated', durationMinutes: 30, seatsPerSlot: 3, hostUserIds: [bob.userId] });
    await setLimits(bob, { perDay: 1 });
    const start = nyAt(4, 10);
    for (let i = 0; i < 3; i++) {
      const res = await t.http.post('/v1/bookings', bookingBody(seated, start, { attendee: { email: `seat${i}@example.com` } }), key);
      expect([i, res.status]).toEqual([i, 201]);
    }
    expect(await check(t, key, seated, nyAt(4, 11))).toEqual({ available: false, reason: 'host_limit_reached' });
    await setLimits(bob, null);
  });

  it('concurrent bookings on two instances never exceed a limit', async () => {
    const types = await Promise.all(
      ['race-a', 'race-b', 'race-c', 'race-d'].map((slug) =>
        createEventType(t, key, { slug, durationMinutes: 30, hostUserIds: [alice.userId] }),
      ),
    );
    await setLimits(alice, { perDay: 3 });
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        (i % 2 ? b : t).http.post(
          '/v1/bookings',
          bookingBody(types[i % 4], `2027-03-05T${String(14 + Math.floor(i / 2)).padStart(2, '0')}:${i % 2 ? '30' : '00'}:00Z`, {
            attendee: { email: `race${i}@example.com` },
          }),
          key,
        ),
      ),
    );
    const statuses = results.map((res) => res.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(3);
    expect(statuses.filter((status) => status === 409)).toHaveLength(13);
    const listed = await t.http.get('/v1/bookings?hostUserId=' + alice.userId + '&startDate=2027-03-05&endDate=2027-03-05', key);
    expect(listed.body.totalCount).toBe(3);
  });
});
