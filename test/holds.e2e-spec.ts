import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, NOW, WEEKDAYS_9_TO_5 } from './support/bookings.js';
import { addMember, createApiKey } from './support/factories.js';
import { check, createEventType, putSchedule, starts } from './support/scheduling.js';
import { fromAddress } from './support/visitor.js';

const TEN = '2027-03-02T10:00:00Z';
const TEN_ISO = '2027-03-02T10:00:00.000Z';

describe('holds (api-rules.md § Browser booking)', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp();
    // A second instance on the same database and clock: holds must block across instances. It shares the
    // data directory too, so that invitation mails either instance sends land where addMember reads them.
    b = await startTestApp({ databaseUrl: a.databaseUrl, clock: a.clock, env: { DATA_DIR: a.config.dataDir } });
  });
  afterAll(async () => {
    await b.app.close();
    await a.close();
  });

  const hold = (t: TestApp, apiKey: string, eventTypeId: string, startTime = TEN, extra: Record<string, unknown> = {}) =>
    t.http.post('/v1/holds', { eventTypeId, startTime, timezone: 'UTC', ...extra }, { apiKey });

  it('blocks its time for every other caller with the reason held, and its booking takes its place', async () => {
    const org = await bookingOrg(a);
    const placed = await hold(a, org.apiKey, org.eventTypeId);
    expect(placed.status).toBe(201);
    expect(placed.body).toEqual({
      hold: {
        id: expect.stringMatching(/^hld_[0-9A-Za-z]{24}$/),
        eventTypeId: org.eventTypeId,
        startsAt: TEN_ISO,
        endsAt: '2027-03-02T10:30:00.000Z',
        expiresAt: new Date(Date.parse(NOW) + 10 * 60_000).toISOString(),
      },
    });
    expect(placed.body.holdToken).toBeUndefined();
    const holdId = placed.body.hold.id as string;

    // On the other instance too: availability, check, another hold, another booking.
    expect(await starts(b, { apiKey: org.apiKey }, org.eventTypeId, '2027-03-02', '2027-03-02')).not.toContain(TEN_ISO);
    expect(await check(b, { apiKey: org.apiKey }, org.eventTypeId, TEN)).toEqual({ available: false, reason: 'held' });
    const second = await hold(b, org.apiKey, org.eventTypeId);
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: 'SLOT_UNAVAILABLE', details: [{ field: 'startTime', message: 'held' }] });
    const other = await b.http.post('/v1/bookings', bookingBody(org.eventTypeId, TEN), { apiKey: org.apiKey });
    expect(other.status).toBe(409);
    expect(other.body.details).toEqual([{ field: 'startTime', message: 'held' }]);

    const listed = await a.http.get(`/v1/holds?eventTypeId=${org.eventTypeId}`, { apiKey: org.apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ holds: [placed.body.hold], totalCount: 1, hasMore: false });

    const booked = await b.http.post('/v1/bookings', bookingBody(org.eventTypeId, TEN, { holdId }), { apiKey: org.apiKey });
    expect(booked.status).toBe(201);
    expect(booked.body.booking.startsAt).toBe(TEN_ISO);
    expect((await a.http.get('/v1/holds', { apiKey: org.apiKey })).body.totalCount).toBe(0);
    expect(await check(a, { apiKey: org.apiKey }, org.eventTypeId, TEN)).toEqual({ available: false, reason: 'already_booked' });
  });

  it('stops blocking at expiresAt exactly (no sweeper), and a second attendee can then hold the time', async () => {
    const org = await bookingOrg(a, { holdMinutes: 5, bufferAfterMinutes: 15 });
    const placed = await hold(a, org.apiKey, org.eventTypeId);
    const expiresAt = Date.parse(placed.body.hold.expiresAt);
    expect(expiresAt).toBe(Date.parse(NOW) + 5 * 60_000);
    // The cache sees the hold come (a version) and go (its expiry ends the cached answer).
    expect(await starts(a, { apiKey: org.apiKey }, org.eventTypeId, '2027-03-02', '2027-03-02')).not.toContain(TEN_ISO);
    // Buffers count: 10:30 is inside the hold's 15 minutes after.
    expect(await check(a, { apiKey: org.apiKey }, org.eventTypeId, '2027-03-02T10:30:00Z')).toEqual({ available: false, reason: 'held' });

    a.clock.set(expiresAt - 1);
    expect(await check(b, { apiKey: org.apiKey }, org.eventTypeId, TEN)).toEqual({ available: false, reason: 'held' });
    expect((await hold(b, org.apiKey, org.eventTypeId)).status).toBe(409);

    a.clock.set(expiresAt);
    expect(await check(b, { apiKey: org.apiKey }, org.eventTypeId, TEN)).toEqual({ available: true });
    expect(await starts(a, { apiKey: org.apiKey }, org.eventTypeId, '2027-03-02', '2027-03-02')).toContain(TEN_ISO);
    expect((await a.http.get('/v1/holds', { apiKey: org.apiKey })).body.totalCount).toBe(0);
    // The expired hold's rows are still there: the next hold deletes them under the host's lock.
    const again = await hold(b, org.apiKey, org.eventTypeId, TEN, { ttlSeconds: 60 });
    expect(again.status).toBe(201);
    expect(again.body.hold.expiresAt).toBe(new Date(expiresAt + 60_000).toISOString());

    // Booking with the expired first hold: ignored, and the time is held by someone else now → 409.
    const late = await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, TEN, { holdId: placed.body.hold.id }), {
      apiKey: org.apiKey,
    });
    expect(late.status).toBe(409);
    // Once the second hold has expired too, the expired first one is simply ignored.
    a.clock.set(expiresAt + 60_000);
    const free = await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, TEN, { holdId: placed.body.hold.id }), {
      apiKey: org.apiKey,
    });
    expect(free.status).toBe(201);
  });

  it('a booking through a live hold takes the hold’s place as granted, whatever changed since (the hold is a promise)', async () => {
    const org = await bookingOrg(a, { bufferAfterMinutes: 10 });
    const placed = await hold(a, org.apiKey, org.eventTypeId);
    // The host takes the day off and the event type's buffers change while the attendee fills in the form.
    const dayOff = await a.http.post(
      '/v1/availability/overrides',
      { date: '2027-03-02', type: 'unavailable' },
      { token: org.owner.accessToken },
    );
    expect(dayOff.status).toBe(201);
    await a.http.patch(`/v1/event-types/${org.eventTypeId}`, { bufferAfterMinutes: 0 }, { apiKey: org.apiKey });
    const booked = await b.http.post('/v1/bookings', bookingBody(org.eventTypeId, TEN, { holdId: placed.body.hold.id }), {
      apiKey: org.apiKey,
    });
    expect(booked.status).toBe(201);
    expect((await a.http.get('/v1/holds', { apiKey: org.apiKey })).body.totalCount).toBe(0);
    // It occupies the host like any booking, with the buffers the hold was granted with.
    const other = await createEventType(a, { token: org.owner.accessToken }, { durationMinutes: 30 });
    await a.http.delete(`/v1/availability/overrides/${dayOff.body.override.id}`, { token: org.owner.accessToken });
    expect(await check(a, { apiKey: org.apiKey }, other, '2027-03-02T10:30:00Z')).toEqual({ available: false, reason: 'already_booked' });
    expect(await check(a, { apiKey: org.apiKey }, other, '2027-03-02T11:00:00Z')).toEqual({ available: true });
  });

  it('a live hold whose start has passed books nothing: the meeting has begun', async () => {
    const org = await bookingOrg(a, { holdMinutes: 60 });
    a.clock.set('2027-03-01T08:30:00Z');
    const placed = await hold(a, org.apiKey, org.eventTypeId, '2027-03-01T09:00:00Z');
    expect(placed.status).toBe(201);
    // Still held (until 09:30), but the meeting began at 09:00.
    a.clock.set('2027-03-01T09:10:00Z');
    const late = await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-01T09:00:00Z', { holdId: placed.body.hold.id }), {
      apiKey: org.apiKey,
    });
    expect(late.status).toBe(409);
    expect(late.body.details).toEqual([{ field: 'startTime', message: 'in_the_past' }]);
    a.clock.set(NOW);
  });

  it('releases a hold with DELETE: the time is free at once; the hold is then gone (404)', async () => {
    const org = await bookingOrg(a);
    const placed = await hold(a, org.apiKey, org.eventTypeId);
    expect((await b.http.delete(`/v1/holds/${placed.body.hold.id}`, { apiKey: org.apiKey })).status).toBe(204);
    expect(await check(a, { apiKey: org.apiKey }, org.eventTypeId, TEN)).toEqual({ available: true });
    expect((await b.http.delete(`/v1/holds/${placed.body.hold.id}`, { apiKey: org.apiKey })).status).toBe(404);
  });

  it('20 concurrent holds of one slot over two instances: exactly one 201, 19 × 409, no 5xx', async () => {
    const org = await bookingOrg(a);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => hold(i % 2 ? b : a, org.apiKey, org.eventTypeId)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
  });

  it('a hold and a booking of one slot at once: exactly one wins, 10 times over', async () => {
    const org = await bookingOrg(a);
    for (let i = 0; i < 10; i++) {
      const time = `2027-03-0${2 + (i % 4)}T${String(9 + Math.floor(i / 4)).padStart(2, '0')}:00:00Z`;
      const [held, booked] = await Promise.all([
        hold(a, org.apiKey, org.eventTypeId, time),
        b.http.post('/v1/bookings', bookingBody(org.eventTypeId, time), { apiKey: org.apiKey }),
      ]);
      expect([held.status, booked.status].sort()).toEqual([201, 409]);
    }
  });

  it('a booking through its own hold never fails because of it, under concurrent bookings of the same time', async () => {
    const org = await bookingOrg(a);
    for (const day of ['02', '03', '04', '05', '08']) {
      const time = `2027-03-${day}T11:00:00Z`;
      const placed = await hold(a, org.apiKey, org.eventTypeId, time);
      const results = await Promise.all([
        b.http.post('/v1/bookings', bookingBody(org.eventTypeId, time, { holdId: placed.body.hold.id }), { apiKey: org.apiKey }),
        ...Array.from({ length: 5 }, (_, j) =>
          (j % 2 ? a : b).http.post('/v1/bookings', bookingBody(org.eventTypeId, time, { attendee: { email: `x${j}@example.com` } }), {
            apiKey: org.apiKey,
          }),
        ),
      ]);
      expect(results[0].status).toBe(201);
      expect(results.slice(1).every((r) => r.status === 409)).toBe(true);
    }
  });

  it('round robin: the hold occupies the host the booking would get, and its booking keeps that host', async () => {
    const org = await bookingOrg(a);
    const alice = await addMember(a, org.owner.accessToken, org.owner.organizationId, 'member');
    await putSchedule(a, { apiKey: org.apiKey }, 'UTC', WEEKDAYS_9_TO_5, alice.userId);
    const eventTypeId = await createEventType(
      a,
      { token: org.owner.accessToken },
      { durationMinutes: 30, schedulingType: 'round_robin', hostUserIds: [org.owner.userId, alice.userId] },
    );
    const first = await hold(a, org.apiKey, eventTypeId);
    const second = await hold(b, org.apiKey, eventTypeId);
    expect([first.status, second.status]).toEqual([201, 201]);
    // Both hosts are held: a third attendee gets nothing at 10:00.
    expect(await check(a, { apiKey: org.apiKey }, eventTypeId, TEN)).toEqual({ available: false, reason: 'held' });
    const booked = await a.http.post('/v1/bookings', bookingBody(eventTypeId, TEN, { holdId: second.body.hold.id }), {
      apiKey: org.apiKey,
    });
    const bookedFirst = await a.http.post('/v1/bookings', bookingBody(eventTypeId, TEN, { holdId: first.body.hold.id }), {
      apiKey: org.apiKey,
    });
    expect([booked.status, bookedFirst.status]).toEqual([201, 201]);
    expect(new Set([booked.body.booking.hostUserId, bookedFirst.body.booking.hostUserId])).toEqual(
      new Set([org.owner.userId, alice.userId]),
    );
  });

  it('collective: the hold occupies every host', async () => {
    const org = await bookingOrg(a);
    const alice = await addMember(a, org.owner.accessToken, org.owner.organizationId, 'member');
    await putSchedule(a, { apiKey: org.apiKey }, 'UTC', WEEKDAYS_9_TO_5, alice.userId);
    const collective = await createEventType(
      a,
      { token: org.owner.accessToken },
      { durationMinutes: 30, schedulingType: 'collective', hostUserIds: [org.owner.userId, alice.userId] },
    );
    const alicesOwn = await createEventType(a, { token: org.owner.accessToken }, { durationMinutes: 30, hostUserIds: [alice.userId] });
    expect((await hold(a, org.apiKey, collective)).status).toBe(201);
    expect(await check(b, { apiKey: org.apiKey }, alicesOwn, TEN)).toEqual({ available: false, reason: 'held' });
  });

  it('modes never block each other: a test key’s hold leaves the live time free', async () => {
    const org = await bookingOrg(a);
    expect((await hold(a, org.testKey, org.eventTypeId)).status).toBe(201);
    expect(await check(a, { apiKey: org.apiKey }, org.eventTypeId, TEN)).toEqual({ available: true });
    expect(await check(a, { apiKey: org.testKey }, org.eventTypeId, TEN)).toEqual({ available: false, reason: 'held' });
    expect((await a.http.get('/v1/holds', { apiKey: org.apiKey })).body.totalCount).toBe(0);
    expect((await a.http.get('/v1/holds', { apiKey: org.testKey })).body.totalCount).toBe(1);
  });

  it('refuses bad input with the documented codes, never a 500', async () => {
    const org = await bookingOrg(a);
    const foreign = await bookingOrg(a);
    const cases: [Record<string, unknown>, number, string?][] = [
      [{ eventTypeId: org.eventTypeId, startTime: TEN, timezone: 'UTC', ttlSeconds: 59 }, 400, 'ttlSeconds'],
      [{ eventTypeId: org.eventTypeId, startTime: TEN, timezone: 'UTC', ttlSeconds: 3601 }, 400, 'ttlSeconds'],
      [{ eventTypeId: org.eventTypeId, startTime: TEN, timezone: 'UTC', ttlSeconds: '60' }, 400, 'ttlSeconds'],
      [{ eventTypeId: org.eventTypeId, startTime: 'tomorrow', timezone: 'UTC' }, 400, 'startTime'],
      [{ eventTypeId: org.eventTypeId, startTime: TEN, timezone: 'Mars/Olympus' }, 400, 'timezone'],
      [{ eventTypeId: 'evt_x', startTime: TEN, timezone: 'UTC' }, 400, 'eventTypeId'],
      [{ startTime: TEN, timezone: 'UTC' }, 400, 'eventTypeId'],
      [{ eventTypeId: org.eventTypeId, startTime: TEN, timezone: 'UTC', extra: 1 }, 400, 'extra'],
      [{ eventTypeId: foreign.eventTypeId, startTime: TEN, timezone: 'UTC' }, 404],
      [{ eventTypeId: org.eventTypeId, startTime: '2027-03-02T03:00:00Z', timezone: 'UTC' }, 409],
    ];
    for (const [body, status, field] of cases) {
      const res = await a.http.post('/v1/holds', body, { apiKey: org.apiKey });
      expect({ body, status: res.status }).toEqual({ body, status });
      if (field) expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }

    const placed = await hold(a, org.apiKey, org.eventTypeId);
    const holdId = placed.body.hold.id as string;
    // A hold for another start or event type → 400 naming holdId; a malformed id → 400; nothing is lost.
    const otherStart = await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T11:00:00Z', { holdId }), {
      apiKey: org.apiKey,
    });
    expect(otherStart.status).toBe(400);
    expect(otherStart.body.details).toEqual([{ field: 'holdId', message: expect.any(String) }]);
    const otherType = await createEventType(a, { token: org.owner.accessToken }, { durationMinutes: 30 });
    expect((await a.http.post('/v1/bookings', bookingBody(otherType, TEN, { holdId }), { apiKey: org.apiKey })).status).toBe(400);
    expect((await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, TEN, { holdId: 'hld_1' }), { apiKey: org.apiKey })).status).toBe(
      400,
    );
    expect(await check(a, { apiKey: org.apiKey }, org.eventTypeId, TEN)).toEqual({ available: false, reason: 'held' });

    // Another organization's hold is not found there, and cannot be used or released from here.
    expect((await a.http.delete(`/v1/holds/${holdId}`, { apiKey: foreign.apiKey })).status).toBe(404);
    expect((await a.http.delete('/v1/holds/nope', { apiKey: org.apiKey })).status).toBe(400);
    expect((await a.http.get('/v1/holds?limit=0', { apiKey: org.apiKey })).status).toBe(400);
    expect((await a.http.get('/v1/holds', { apiKey: foreign.apiKey })).body.totalCount).toBe(0);
    const readOnly = await createApiKey(a.http, org.owner.accessToken, { scopes: ['bookings:read'] });
    expect((await hold(a, readOnly.apiKey, org.eventTypeId, '2027-03-03T10:00:00Z')).status).toBe(403);
  });

  it('a member sees and releases only the holds of its own time', async () => {
    const org = await bookingOrg(a);
    const alice = await addMember(a, org.owner.accessToken, org.owner.organizationId, 'member');
    const placed = await hold(a, org.apiKey, org.eventTypeId);
    expect((await a.http.get('/v1/holds', { token: alice.accessToken })).body.totalCount).toBe(0);
    expect((await a.http.delete(`/v1/holds/${placed.body.hold.id}`, { token: alice.accessToken })).status).toBe(404);
    expect((await a.http.get('/v1/holds', { token: org.owner.accessToken })).body.totalCount).toBe(1);
  });

  describe('holds through publishable keys (api-rules.md § Browser booking)', () => {
    const SHOP = 'https://shop.example.com';
    const publicHold = (t: TestApp, key: string, address: string, eventTypeId: string, startTime: string) =>
      fromAddress(
        t,
        address,
        'POST',
        '/v1/public/holds',
        { authorization: `ApiKey ${key}`, origin: SHOP },
        { eventTypeId, startTime, timezone: 'UTC' },
      );
    const halfHours = (day: string, count: number) =>
      Array.from(
        { length: count },
        (_, i) => `2027-03-${day}T${String(9 + Math.floor(i / 2)).padStart(2, '0')}:${i % 2 ? '30' : '00'}:00Z`,
      );

    it('counts an IPv6 visitor by its /64: two addresses of one /64 share the 5 holds, the next /64 has its own', async () => {
      // Seats of one start: a visitor's fair share of the host's held starts (2) does not apply, only the 5 holds.
      const org = await bookingOrg(a, { seatsPerSlot: 20 });
      const key = (await createApiKey(a.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
      const [first, ...rest] = Array.from({ length: 7 }, () => '2027-03-03T09:00:00Z');
      const one64 = ['2001:db8:1:2::a', '2001:db8:1:2:ffff:ffff:ffff:ffff'];
      expect((await publicHold(a, key, one64[0], org.eventTypeId, first)).status).toBe(201);
      for (const [i, startTime] of rest.slice(0, 4).entries()) {
        expect((await publicHold(i % 2 ? a : b, key, one64[i % 2], org.eventTypeId, startTime)).status).toBe(201);
      }
      const sixth = await publicHold(b, key, '2001:db8:1:2:1::1', org.eventTypeId, rest[4]);
      expect([sixth.status, sixth.body.code]).toEqual([429, 'HOLD_LIMIT_REACHED']);
      expect((await publicHold(a, key, '2001:db8:1:3::a', org.eventTypeId, rest[4])).status).toBe(201);
      // An IPv4-mapped IPv6 peer is its IPv4 address.
      expect((await publicHold(a, key, '::ffff:198.51.100.7', org.eventTypeId, rest[5])).status).toBe(201);
    });

    it('a key and client address covers at most 2 starts of one host (its fair share of the 10), whatever else it holds', async () => {
      const org = await bookingOrg(a, { seatsPerSlot: 3 });
      const key = (await createApiKey(a.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
      const [one, two, three, four] = halfHours('08', 4);
      const first = await publicHold(a, key, '198.51.100.20', org.eventTypeId, one);
      expect(first.status).toBe(201);
      expect((await publicHold(b, key, '198.51.100.20', org.eventTypeId, two)).status).toBe(201);
      const third = await publicHold(a, key, '198.51.100.20', org.eventTypeId, three);
      expect([third.status, third.body.code]).toEqual([429, 'HOLD_LIMIT_REACHED']);
      expect(third.body.message).toMatch(/at most 2 start times of one host/);
      // Another seat of a start it holds is no new start; another host's event type is another share.
      expect((await publicHold(a, key, '198.51.100.20', org.eventTypeId, one)).status).toBe(201);
      const alice = await addMember(a, org.owner.accessToken, org.owner.organizationId, 'member');
      await putSchedule(a, { apiKey: org.apiKey }, 'UTC', WEEKDAYS_9_TO_5, alice.userId);
      const alices = await createEventType(a, { apiKey: org.apiKey }, { durationMinutes: 30, hostUserIds: [alice.userId] });
      expect((await publicHold(b, key, '198.51.100.20', alices, three)).status).toBe(201);
      // Other visitors have their own share: another address, or the same address through another key.
      expect((await publicHold(a, key, '198.51.100.21', org.eventTypeId, three)).status).toBe(201);
      const otherKey = (await createApiKey(a.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
      expect((await publicHold(b, otherKey, '198.51.100.20', org.eventTypeId, four)).status).toBe(201);
      // Released, a hold gives its share back at once.
      const released = await fromAddress(
        a,
        '198.51.100.20',
        'POST',
        `/v1/public/holds/${first.body.hold.id}/release`,
        {
          authorization: `ApiKey ${key}`,
          origin: SHOP,
        },
        { holdToken: first.body.holdToken },
      );
      expect(released.status).toBe(204);
      // The other seat of `one` is still held by the visitor: a new start is still its third.
      expect((await publicHold(a, key, '198.51.100.20', org.eventTypeId, four)).status).toBe(429);
      a.clock.set(NOW);
    });

    it('takes an Idempotency-Key: a retry after a lost answer gets the same hold and holdToken, never a second hold', async () => {
      const org = await bookingOrg(a);
      const key = (await createApiKey(a.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
      const headers = { authorization: `ApiKey ${key}`, origin: SHOP, 'idempotency-key': 'hold-retry-1' };
      const body = { eventTypeId: org.eventTypeId, startTime: TEN, timezone: 'UTC' };
      const first = await fromAddress(a, '198.51.100.30', 'POST', '/v1/public/holds', headers, body);
      expect(first.status).toBe(201);
      // The retry, from another instance and the same address.
      const again = await fromAddress(b, '198.51.100.30', 'POST', '/v1/public/holds', headers, body);
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect((await a.http.get('/v1/holds', { apiKey: org.apiKey })).body.totalCount).toBe(1);
      // The key and body are no secret (the publishable key is public): from another address, or through another key of
      // the organization from the same address, they are another request (422), and no holdToken is handed out.
      const otherKey = (await createApiKey(a.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
      for (const [address, sent] of [
        ['198.51.100.31', headers],
        ['198.51.100.30', { ...headers, authorization: `ApiKey ${otherKey}` }],
      ] as const) {
        const stranger = await fromAddress(b, address, 'POST', '/v1/public/holds', sent, body);
        expect([stranger.status, stranger.body.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
        expect(JSON.stringify(stranger.body)).not.toContain(first.body.holdToken);
        expect(stranger.headers['idempotent-replayed']).toBeUndefined();
      }
      // An IPv6 visitor is its /64, as for the hold limit: another address of that prefix replays, another prefix does not.
      const v6 = { ...headers, 'idempotency-key': 'hold-retry-v6' };
      const eleven = { ...body, startTime: '2027-03-02T11:30:00Z' };
      const placedV6 = await fromAddress(a, '2001:db8:1:2::5', 'POST', '/v1/public/holds', v6, eleven);
      const replayedV6 = await fromAddress(b, '2001:db8:1:2:a::6', 'POST', '/v1/public/holds', v6, eleven);
      expect([placedV6.status, replayedV6.status, replayedV6.headers['idempotent-replayed']]).toEqual([201, 201, 'true']);
      expect(replayedV6.body).toEqual(placedV6.body);
      expect((await fromAddress(b, '2001:db8:1:3::5', 'POST', '/v1/public/holds', v6, eleven)).status).toBe(422);
      expect((await a.http.get('/v1/holds', { apiKey: org.apiKey })).body.totalCount).toBe(2);
      // The token the replay gave opens the hold.
      const booked = await a.http.post(
        '/v1/public/bookings',
        bookingBody(org.eventTypeId, TEN, { holdId: again.body.hold.id, holdToken: again.body.holdToken }),
        { apiKey: key, headers: { origin: SHOP } },
      );
      expect(booked.status).toBe(201);
      const reused = await fromAddress(a, '198.51.100.30', 'POST', '/v1/public/holds', headers, {
        ...body,
        startTime: '2027-03-02T11:00:00Z',
      });
      expect([reused.status, reused.body.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);

      // POST /holds (secret keys) likewise.
      const secret = { eventTypeId: org.eventTypeId, startTime: '2027-03-02T12:00:00Z', timezone: 'UTC' };
      const placed = await a.http.post('/v1/holds', secret, { apiKey: org.apiKey, headers: { 'Idempotency-Key': 'backend-hold-1' } });
      const replayed = await b.http.post('/v1/holds', secret, { apiKey: org.apiKey, headers: { 'Idempotency-Key': 'backend-hold-1' } });
      expect([placed.status, replayed.status, replayed.headers.get('idempotent-replayed')]).toEqual([201, 201, 'true']);
      expect(replayed.body).toEqual(placed.body);
      // It and the IPv6 visitor's hold (TEN's became a booking).
      expect((await a.http.get('/v1/holds', { apiKey: org.apiKey })).body.totalCount).toBe(2);
      expect((await a.http.post('/v1/holds', secret, { apiKey: org.apiKey, headers: { 'Idempotency-Key': ' ' } })).status).toBe(400);
    });

    it('cover at most 10 start times of one host at once, whatever the addresses, over two instances; seats of a start count once', async () => {
      const org = await bookingOrg(a, { seatsPerSlot: 2 });
      const key = (await createApiKey(a.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
      const times = halfHours('04', 14);
      // One address per hold: the 5-per-visitor limit never applies, only the host's.
      const results = await Promise.all(
        times.map((startTime, i) => publicHold(i % 2 ? b : a, key, `203.0.113.${i + 1}`, org.eventTypeId, startTime)),
      );
      const granted = times.filter((_, i) => results[i].status === 201);
      const refused = times.filter((_, i) => results[i].status !== 201);
      expect(granted).toHaveLength(10);
      expect(results.filter((r) => r.status !== 201).map((r) => [r.status, r.body.code])).toEqual(
        Array.from({ length: 4 }, () => [429, 'HOLD_LIMIT_REACHED']),
      );
      // Another seat of a held start is no new start; a new start stays refused, with another key too.
      expect((await publicHold(b, key, '203.0.113.50', org.eventTypeId, granted[0])).status).toBe(201);
      const otherKey = (await createApiKey(a.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
      expect((await publicHold(a, otherKey, '198.51.100.1', org.eventTypeId, refused[0])).status).toBe(429);
      // A backend's hold (secret key) is not a booking page's: it is neither counted nor refused.
      expect((await hold(b, org.apiKey, org.eventTypeId, refused[0])).status).toBe(201);
      // Released or expired, a hold frees its start for the pages at once.
      a.clock.advance(10 * 60_000);
      expect((await publicHold(a, key, '203.0.113.1', org.eventTypeId, refused[1])).status).toBe(201);
      a.clock.set(NOW);
    });
  });
});
