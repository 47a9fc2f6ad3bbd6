import pg from 'pg';
import { startTestApp, type TestApp } from './support/app.js';
import { insertBooking } from './support/bookings-sql.js';
import { addMember, createApiKey, registerOwner, type AddedMember, type RegisteredOwner } from './support/factories.js';
import { check, createEventType, putSchedule, slots } from './support/scheduling.js';

describe('availability: round robin and collective', () => {
  let t: TestApp;
  let owner: RegisteredOwner;
  let alice: AddedMember;
  let bob: AddedMember;
  let key: { apiKey: string };
  let testKey: { apiKey: string };
  const hosts = (): string[] => [owner.userId, alice.userId, bob.userId];
  const book = (eventTypeId: string, hostUserIds: string[], startsAt: string, createdAt: string, extra: Record<string, unknown> = {}) =>
    insertBooking(t, {
      organizationId: owner.organizationId,
      eventTypeId,
      hostUserIds,
      startsAt,
      endsAt: new Date(Date.parse(startsAt) + 3600_000).toISOString(),
      createdAt,
      ...extra,
    });
  const byStart = async (eventTypeId: string, date: string): Promise<Record<string, string>> =>
    Object.fromEntries((await slots(t, key, eventTypeId, date, date)).map((slot) => [slot.start.slice(11, 16), slot.hostUserId]));

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerOwner(t.http);
    alice = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    bob = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    key = await createApiKey(t.http, owner.accessToken, { rateLimitPerMinute: 10000 });
    testKey = await createApiKey(t.http, owner.accessToken, { mode: 'test', rateLimitPerMinute: 10000 });
    t.clock.set('2027-02-22T00:00:00Z');
    for (const userId of hosts()) {
      await putSchedule(t, key, 'UTC', [{ dayOfWeek: 1, slots: [{ startTime: '09:00', endTime: '12:00' }] }], userId);
    }
  });
  afterAll(async () => {
    await t.close();
  });

  it('round robin: never booked first, then least recently booked, ties by hostUserIds order; a busy host is skipped', async () => {
    const id = await createEventType(t, key, { schedulingType: 'round_robin', hostUserIds: hosts() });
    expect(await byStart(id, '2027-03-01')).toEqual({ '09:00': owner.userId, '10:00': owner.userId, '11:00': owner.userId });

    await book(id, [owner.userId], '2027-03-08T09:00:00Z', '2027-02-20T10:00:00Z');
    await book(id, [alice.userId], '2027-03-08T10:00:00Z', '2027-02-20T11:00:00Z');
    expect(await byStart(id, '2027-03-01')).toEqual({ '09:00': bob.userId, '10:00': bob.userId, '11:00': bob.userId });

    await book(id, [bob.userId], '2027-03-15T11:00:00Z', '2027-02-20T12:00:00Z');
    // The owner was booked longest ago; at 10:00 the owner is busy with another event type, so alice is next.
    const other = await createEventType(t, key, { hostUserIds: [owner.userId] });
    await book(other, [owner.userId], '2027-03-01T10:00:00Z', '2027-02-21T00:00:00Z');
    expect(await byStart(id, '2027-03-01')).toEqual({ '09:00': owner.userId, '10:00': alice.userId, '11:00': owner.userId });
    // On 2027-03-08 the owner (09:00) and alice (10:00) are busy themselves.
    expect(await byStart(id, '2027-03-08')).toEqual({ '09:00': alice.userId, '10:00': owner.userId, '11:00': owner.userId });
    expect(await check(t, key, id, '2027-03-01T10:00:00Z')).toEqual({ available: true });
  });

  it('round robin ignores cancelled bookings and the other mode when ordering hosts', async () => {
    const id = await createEventType(t, key, { schedulingType: 'round_robin', hostUserIds: hosts() });
    await book(id, [owner.userId], '2027-03-29T09:00:00Z', '2027-02-20T10:00:00Z', { status: 'cancelled' });
    await book(id, [owner.userId], '2027-03-29T10:00:00Z', '2027-02-20T10:00:00Z', { livemode: false });
    expect(await byStart(id, '2027-04-12')).toEqual({ '09:00': owner.userId, '10:00': owner.userId, '11:00': owner.userId });
    const testSlots = await slots(t, testKey, id, '2027-04-12', '2027-04-12');
    expect(testSlots.map((slot) => slot.hostUserId)).toEqual([alice.userId, alice.userId, alice.userId]);
  });

  it('round robin offers a time while any host is free', async () => {
    const id = await createEventType(t, key, { schedulingType: 'round_robin', hostUserIds: [alice.userId, bob.userId] });
    const other = await createEventType(t, key, { schedulingType: 'collective', hostUserIds: [alice.userId, bob.userId] });
    await book(other, [alice.userId], '2027-03-22T09:00:00Z', '2027-02-21T00:00:00Z');
    await book(other, [alice.userId, bob.userId], '2027-03-22T10:00:00Z', '2027-02-21T00:00:00Z');
    expect(await byStart(id, '2027-03-22')).toEqual({ '09:00': bob.userId, '11:00': alice.userId });
    expect(await check(t, key, id, '2027-03-22T10:00:00Z')).toEqual({ available: false, reason: 'already_booked' });
  });

  it('collective: only times every host is free, reported for the first host; a collective booking occupies each host', async () => {
    await putSchedule(t, key, 'Europe/London', [{ dayOfWeek: 1, slots: [{ startTime: '10:00', endTime: '13:00' }] }], bob.userId);
    const id = await createEventType(t, key, { schedulingType: 'collective', hostUserIds: [alice.userId, bob.userId] });
    expect(await byStart(id, '2027-03-01')).toEqual({ '10:00': alice.userId, '11:00': alice.userId });
    expect(await check(t, key, id, '2027-03-01T09:00:00Z')).toEqual({ available: false, reason: 'outside_availability' });
    // British Summer Time from 2027-03-28: bob's 10:00 is 09:00 UTC.
    expect(await byStart(id, '2027-04-05')).toEqual({ '09:00': alice.userId, '10:00': alice.userId, '11:00': alice.userId });

    const oneOnOne = await createEventType(t, key, { hostUserIds: [alice.userId] });
    await book(id, [alice.userId, bob.userId], '2027-03-01T10:00:00Z', '2027-02-21T00:00:00Z');
    expect(await byStart(id, '2027-03-01')).toEqual({ '11:00': alice.userId });
    expect(await byStart(oneOnOne, '2027-03-01')).toEqual({ '09:00': alice.userId, '11:00': alice.userId });
    expect(await check(t, key, id, '2027-03-01T10:00:00Z')).toEqual({ available: false, reason: 'already_booked' });
  });

  it('reads a fixed number of queries whatever the number of hosts or days (no N+1)', async () => {
    // Every statement, prepared or not, goes through pg's Client.query; count those that read scheduling tables.
    type Query = (this: unknown, config: string | { text: string }, ...rest: unknown[]) => unknown;
    const prototype = pg.Client.prototype as unknown as { query: Query };
    const original = prototype.query;
    const seen: string[] = [];
    prototype.query = function (this: unknown, config: string | { text: string }, ...rest: unknown[]) {
      seen.push(typeof config === 'string' ? config : config.text);
      return original.call(this, config, ...rest);
    };
    const ownQueries = async (eventTypeId: string, end: string): Promise<number> => {
      seen.length = 0;
      await slots(t, key, eventTypeId, '2027-03-01', end);
      return seen.filter((sql) => /event_types|weekly_schedules|date_overrides|booking_hosts/.test(sql)).length;
    };
    try {
      const single = await createEventType(t, key, { hostUserIds: [alice.userId] });
      const many = await createEventType(t, key, { schedulingType: 'round_robin', hostUserIds: hosts() });
      const all = await createEventType(t, key, { schedulingType: 'collective', hostUserIds: hosts() });
      const counts = [await ownQueries(single, '2027-03-01'), await ownQueries(many, '2027-03-31'), await ownQueries(all, '2027-06-01')];
      expect(counts).toEqual([2, 2, 2]);
    } finally {
      prototype.query = original;
    }
  });

  it('a host with an empty week has no slots; an event type whose hosts all left has none either', async () => {
    t.clock.set(Date.now());
    const leaving = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    t.clock.set('2027-02-22T00:00:00Z');
    const id = await createEventType(t, key, { hostUserIds: [leaving.userId] });
    await t.http.put(`/v1/availability/schedules?userId=${leaving.userId}`, { timezone: 'UTC', schedules: [] }, key);
    expect(await slots(t, key, id, '2027-03-01', '2027-03-07')).toEqual([]);
    await putSchedule(t, key, 'UTC', [{ dayOfWeek: 1, slots: [{ startTime: '09:00', endTime: '10:00' }] }], leaving.userId);
    expect(await slots(t, key, id, '2027-03-01', '2027-03-07')).toHaveLength(1);

    t.clock.set(Date.now());
    await t.http.delete(`/v1/organizations/${owner.organizationId}/members/${leaving.memberId}`, { token: owner.accessToken });
    t.clock.set('2027-02-22T00:00:00Z');
    expect(await slots(t, key, id, '2027-03-01', '2027-03-07')).toEqual([]);
    expect(await check(t, key, id, '2027-03-01T09:00:00Z')).toEqual({ available: false, reason: 'outside_availability' });
  });
});
