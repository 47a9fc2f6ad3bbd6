import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { insertBooking } from './support/bookings-sql.js';
import { addMember, createApiKey, registerOwner, type RegisteredOwner } from './support/factories.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('event types', () => {
  let t: TestApp;
  let owner: RegisteredOwner;
  let slugCounter = 0;
  const slug = (label = 'meeting'): string => `${label}-${++slugCounter}`;
  const create = (body: Record<string, unknown>, token = owner.accessToken) =>
    t.http.post('/v1/event-types', { title: 'Intro call', slug: slug(), durationMinutes: 30, ...body }, { token });

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerOwner(t.http);
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates with the documented defaults and returns the full record', async () => {
    const res = await t.http.post(
      '/v1/event-types',
      { title: 'Intro call', slug: 'intro-call', durationMinutes: 30 },
      { token: owner.accessToken },
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      eventType: {
        id: expect.stringMatching(/^evt_[0-9A-Za-z]{20,}$/),
        title: 'Intro call',
        slug: 'intro-call',
        description: null,
        durationMinutes: 30,
        locationType: null,
        location: null,
        bufferBeforeMinutes: 0,
        bufferAfterMinutes: 0,
        minimumNoticeHours: 0,
        bookingWindowDays: 60,
        maxBookingsPerDay: null,
        slotIntervalMinutes: null,
        schedulingType: 'one_on_one',
        hostUserIds: [owner.userId],
        requiresConfirmation: false,
        holdMinutes: 10,
        questions: [],
        seatsPerSlot: null,
        recurrence: null,
        reminders: [],
        attendeeCancellation: { allowed: true, noticeMinutes: 0 },
        attendeeRescheduling: { allowed: true, noticeMinutes: 0 },
        isActive: true,
        bookingsCount: 0,
        createdAt: expect.stringMatching(ISO_UTC),
        updatedAt: expect.stringMatching(ISO_UTC),
      },
    });
    const fetched = await t.http.get(`/v1/event-types/${res.body.eventType.id}`, { token: owner.accessToken });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(res.body);
  });

  it('stores every field as given', async () => {
    const body = {
      title: 'Deep dive',
      slug: slug('deep-dive'),
      durationMinutes: 720,
      description: 'x'.repeat(5000),
      locationType: 'zoom',
      location: 'https://zoom.example.com/j/1',
      bufferBeforeMinutes: 720,
      bufferAfterMinutes: 15,
      minimumNoticeHours: 0.5,
      bookingWindowDays: 730,
      maxBookingsPerDay: 1000,
      slotIntervalMinutes: 5,
      schedulingType: 'round_robin',
      hostUserIds: [owner.userId],
      requiresConfirmation: true,
    };
    const res = await t.http.post('/v1/event-types', body, { token: owner.accessToken });
    expect(res.status).toBe(201);
    expect(res.body.eventType).toMatchObject({ ...body, isActive: true, bookingsCount: 0 });
  });

  it.each([
    [{ title: undefined }, 'title'],
    [{ title: '' }, 'title'],
    [{ title: 'x'.repeat(201) }, 'title'],
    [{ title: 7 }, 'title'],
    [{ slug: undefined }, 'slug'],
    [{ slug: '' }, 'slug'],
    [{ slug: 'Intro' }, 'slug'],
    [{ slug: 'intro--call' }, 'slug'],
    [{ slug: '-intro' }, 'slug'],
    [{ slug: 'intro-' }, 'slug'],
    [{ slug: 'intro call' }, 'slug'],
    [{ slug: 'intro_call' }, 'slug'],
    [{ slug: 'ä' }, 'slug'],
    [{ slug: 'a'.repeat(101) }, 'slug'],
    [{ durationMinutes: undefined }, 'durationMinutes'],
    [{ durationMinutes: 4 }, 'durationMinutes'],
    [{ durationMinutes: 721 }, 'durationMinutes'],
    [{ durationMinutes: 30.5 }, 'durationMinutes'],
    [{ durationMinutes: '30' }, 'durationMinutes'],
    [{ description: 'x'.repeat(5001) }, 'description'],
    [{ locationType: 'skype' }, 'locationType'],
    [{ location: 'x'.repeat(501) }, 'location'],
    [{ bufferBeforeMinutes: -1 }, 'bufferBeforeMinutes'],
    [{ bufferBeforeMinutes: 721 }, 'bufferBeforeMinutes'],
    [{ bufferBeforeMinutes: null }, 'bufferBeforeMinutes'],
    [{ bufferAfterMinutes: 1.5 }, 'bufferAfterMinutes'],
    [{ bufferAfterMinutes: 721 }, 'bufferAfterMinutes'],
    [{ minimumNoticeHours: -0.1 }, 'minimumNoticeHours'],
    [{ minimumNoticeHours: 8760.5 }, 'minimumNoticeHours'],
    [{ minimumNoticeHours: '1' }, 'minimumNoticeHours'],
    [{ bookingWindowDays: 0 }, 'bookingWindowDays'],
    [{ bookingWindowDays: 731 }, 'bookingWindowDays'],
    [{ bookingWindowDays: 2.5 }, 'bookingWindowDays'],
    [{ maxBookingsPerDay: 0 }, 'maxBookingsPerDay'],
    [{ holdMinutes: 0 }, 'holdMinutes'],
    [{ holdMinutes: 61 }, 'holdMinutes'],
    [{ holdMinutes: 1.5 }, 'holdMinutes'],
    [{ holdMinutes: null }, 'holdMinutes'],
    [{ maxBookingsPerDay: 1001 }, 'maxBookingsPerDay'],
    [{ slotIntervalMinutes: 4 }, 'slotIntervalMinutes'],
    [{ slotIntervalMinutes: 721 }, 'slotIntervalMinutes'],
    [{ schedulingType: 'group' }, 'schedulingType'],
    [{ schedulingType: null }, 'schedulingType'],
    [{ requiresConfirmation: 'yes' }, 'requiresConfirmation'],
    [{ hostUserIds: 'usr_x' }, 'hostUserIds'],
    [{ hostUserIds: ['not-a-user'] }, 'hostUserIds'],
    [{ hostUserIds: [] }, 'hostUserIds'],
    [{ isActive: false }, 'isActive'],
    [{ id: 'evt_aaaaaaaaaaaaaaaaaaaaaaaa' }, 'id'],
    [{ bookingsCount: 3 }, 'bookingsCount'],
  ])('POST %j → 400 naming %s', async (patch, field) => {
    const res = await create(patch);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it.each([['a'], ['30-min'], ['a-b-c-1'], ['x'.repeat(100)]])('accepts the slug %s', async (value) => {
    expect((await create({ slug: value })).status).toBe(201);
  });

  it('refuses a slug in use by an active event type with 409 SLUG_TAKEN; a deleted one frees it', async () => {
    const first = await create({ slug: 'taken' });
    const second = await create({ slug: 'taken' });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('SLUG_TAKEN');
    const other = await registerOwner(t.http);
    expect((await create({ slug: 'taken' }, other.accessToken)).status).toBe(201);

    expect((await t.http.delete(`/v1/event-types/${first.body.eventType.id}`, { token: owner.accessToken })).status).toBe(204);
    const reused = await create({ slug: 'taken' });
    expect(reused.status).toBe(201);
    const renamed = await t.http.patch(`/v1/event-types/${reused.body.eventType.id}`, { slug: 'taken' }, { token: owner.accessToken });
    expect(renamed.status).toBe(200);
    const clash = await create({ slug: 'taken-too' });
    const patched = await t.http.patch(`/v1/event-types/${clash.body.eventType.id}`, { slug: 'taken' }, { token: owner.accessToken });
    expect(patched.status).toBe(409);
    expect(patched.body.code).toBe('SLUG_TAKEN');
  });

  it('gives exactly one 201 when the same slug is created concurrently', async () => {
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => create({ slug: 'race' })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
  });

  it('PATCH changes only the supplied fields, clears nullable ones with null and refuses null elsewhere', async () => {
    const created = await create({ description: 'before', maxBookingsPerDay: 3, locationType: 'phone', location: '+1 555 0100' });
    const id = created.body.eventType.id;
    t.clock.advance(1000);
    const res = await t.http.patch(
      `/v1/event-types/${id}`,
      { title: 'Renamed', maxBookingsPerDay: null, description: null },
      { token: owner.accessToken },
    );
    expect(res.status).toBe(200);
    expect(res.body.eventType).toEqual({
      ...created.body.eventType,
      title: 'Renamed',
      maxBookingsPerDay: null,
      description: null,
      updatedAt: expect.stringMatching(ISO_UTC),
    });
    expect(res.body.eventType.updatedAt).not.toBe(created.body.eventType.updatedAt);
    expect((await t.http.get(`/v1/event-types/${id}`, { token: owner.accessToken })).body).toEqual(res.body);

    for (const [body, field] of [
      [{ title: null }, 'title'],
      [{ durationMinutes: null }, 'durationMinutes'],
      [{ slug: 'Bad Slug' }, 'slug'],
      [{ bookingWindowDays: 0 }, 'bookingWindowDays'],
      [{ requiresConfirmation: null }, 'requiresConfirmation'],
      [{ isActive: true }, 'isActive'],
    ] as const) {
      const bad = await t.http.patch(`/v1/event-types/${id}`, body, { token: owner.accessToken });
      expect(bad.status).toBe(400);
      expect(bad.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const empty = await t.http.patch(`/v1/event-types/${id}`, {}, { token: owner.accessToken });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual(res.body);
  });

  it('soft-deletes: 204 (repeatable), hidden from the list, listed with ?isActive=false, PATCH → 409 EVENT_TYPE_INACTIVE', async () => {
    const org = await registerOwner(t.http);
    const keep = await create({}, org.accessToken);
    const gone = await create({}, org.accessToken);
    const id = gone.body.eventType.id;
    expect((await t.http.delete(`/v1/event-types/${id}`, { token: org.accessToken })).status).toBe(204);
    expect((await t.http.delete(`/v1/event-types/${id}`, { token: org.accessToken })).status).toBe(204);

    const shown = await t.http.get(`/v1/event-types/${id}`, { token: org.accessToken });
    expect(shown.status).toBe(200);
    expect(shown.body.eventType.isActive).toBe(false);
    const active = await t.http.get('/v1/event-types', { token: org.accessToken });
    expect(active.body).toMatchObject({ totalCount: 1, hasMore: false });
    expect(active.body.eventTypes.map((e: { id: string }) => e.id)).toEqual([keep.body.eventType.id]);
    const deleted = await t.http.get('/v1/event-types?isActive=false', { token: org.accessToken });
    expect(deleted.body.eventTypes.map((e: { id: string }) => e.id)).toEqual([id]);
    expect(deleted.body.eventTypes[0]).toEqual(shown.body.eventType);

    const patched = await t.http.patch(`/v1/event-types/${id}`, { title: 'Back' }, { token: org.accessToken });
    expect(patched.status).toBe(409);
    expect(patched.body.code).toBe('EVENT_TYPE_INACTIVE');
  });

  it('paginates the list with totalCount and hasMore and validates the query', async () => {
    const org = await registerOwner(t.http);
    for (let i = 0; i < 5; i++) await create({}, org.accessToken);
    const first = await t.http.get('/v1/event-types?page=1&limit=2', { token: org.accessToken });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ totalCount: 5, hasMore: true });
    expect(first.body.eventTypes).toHaveLength(2);
    const last = await t.http.get('/v1/event-types?page=3&limit=2', { token: org.accessToken });
    expect(last.body).toMatchObject({ totalCount: 5, hasMore: false });
    expect(last.body.eventTypes).toHaveLength(1);
    const ids = new Set(
      [first, await t.http.get('/v1/event-types?page=2&limit=2', { token: org.accessToken }), last].flatMap((r) =>
        r.body.eventTypes.map((e: { id: string }) => e.id),
      ),
    );
    expect(ids.size).toBe(5);
    for (const [query, field] of [
      ['isActive=maybe', 'isActive'],
      ['page=0', 'page'],
      ['page=1.5', 'page'],
      ['page=x', 'page'],
      ['limit=101', 'limit'],
      ['page=100000000000000000000', 'page'],
      ['sort=title', 'sort'],
    ]) {
      const res = await t.http.get(`/v1/event-types?${query}`, { token: org.accessToken });
      expect([query, res.status]).toEqual([query, 400]);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
  });

  it('counts confirmed and pending bookings, in the caller’s mode, for one and for the list', async () => {
    const org = await registerOwner(t.http);
    const a = (await create({}, org.accessToken)).body.eventType.id;
    const b = (await create({}, org.accessToken)).body.eventType.id;
    const base = { organizationId: org.organizationId, hostUserIds: [org.userId] };
    const at = (hour: number) => ({
      startsAt: `2030-01-01T${String(hour).padStart(2, '0')}:00:00Z`,
      endsAt: `2030-01-01T${String(hour).padStart(2, '0')}:30:00Z`,
    });
    await insertBooking(t, { ...base, eventTypeId: a, ...at(9), status: 'confirmed' });
    await insertBooking(t, { ...base, eventTypeId: a, ...at(10), status: 'pending' });
    await insertBooking(t, { ...base, eventTypeId: a, ...at(11), status: 'cancelled' });
    await insertBooking(t, { ...base, eventTypeId: a, ...at(12), livemode: false });
    await insertBooking(t, { ...base, eventTypeId: b, ...at(13) });

    expect((await t.http.get(`/v1/event-types/${a}`, { token: org.accessToken })).body.eventType.bookingsCount).toBe(2);
    const list = await t.http.get('/v1/event-types', { token: org.accessToken });
    const counts = Object.fromEntries(list.body.eventTypes.map((e: { id: string; bookingsCount: number }) => [e.id, e.bookingsCount]));
    expect(counts).toEqual({ [a]: 2, [b]: 1 });
    const testKey = await createApiKey(t.http, org.accessToken, { mode: 'test' });
    expect((await t.http.get(`/v1/event-types/${a}`, { apiKey: testKey.apiKey })).body.eventType.bookingsCount).toBe(1);
  });

  it('lists with the same number of queries for 2 or 12 event types (hosts and counts are grouped, no N+1)', async () => {
    const runner = t.app.get(DataSource).createQueryRunner();
    type Query = (this: unknown, sql: string, ...rest: unknown[]) => Promise<unknown>;
    const prototype = Object.getPrototypeOf(runner) as { query: Query };
    await runner.release();
    const original = prototype.query;
    const seen: string[] = [];
    prototype.query = function (this: unknown, sql: string, ...rest: unknown[]) {
      seen.push(sql);
      return original.call(this, sql, ...rest);
    };
    const listQueries = async (token: string): Promise<number> => {
      seen.length = 0;
      const res = await t.http.get('/v1/event-types?limit=100', { token });
      expect(res.status).toBe(200);
      return seen.filter((sql) => /event_type|bookings/.test(sql)).length;
    };
    try {
      const small = await registerOwner(t.http);
      const large = await registerOwner(t.http);
      for (let i = 0; i < 2; i++) await create({}, small.accessToken);
      for (let i = 0; i < 12; i++) await create({}, large.accessToken);
      const counts = [await listQueries(small.accessToken), await listQueries(large.accessToken)];
      expect(counts[0]).toBeGreaterThan(0);
      expect(counts[1]).toBe(counts[0]);
    } finally {
      prototype.query = original;
    }
  });

  it('records event_type.created, updated and deleted in the outbox, once each', async () => {
    const org = await registerOwner(t.http);
    const id = (await create({}, org.accessToken)).body.eventType.id;
    t.clock.advance(1000);
    await t.http.patch(`/v1/event-types/${id}`, { title: 'New title' }, { token: org.accessToken });
    t.clock.advance(1000);
    await t.http.delete(`/v1/event-types/${id}`, { token: org.accessToken });
    t.clock.advance(1000);
    await t.http.delete(`/v1/event-types/${id}`, { token: org.accessToken });
    const rows: { type: string; livemode: boolean; data: { eventType: { id: string; title: string; isActive: boolean } } }[] = await t.app
      .get(DataSource)
      .query(`SELECT type, livemode, data FROM domain_events WHERE organization_id = $1 AND type LIKE 'event_type.%' ORDER BY created_at`, [
        org.organizationId,
      ]);
    expect(rows.map((r) => [r.type, r.livemode, r.data.eventType.id, r.data.eventType.title, r.data.eventType.isActive])).toEqual([
      ['event_type.created', true, id, 'Intro call', true],
      ['event_type.updated', true, id, 'New title', true],
      ['event_type.deleted', true, id, 'New title', false],
    ]);
  });

  it('answers 404 for another organization’s event type and 400 for a malformed id', async () => {
    const other = await registerOwner(t.http);
    const foreign = (await create({}, other.accessToken)).body.eventType.id;
    for (const res of [
      await t.http.get(`/v1/event-types/${foreign}`, { token: owner.accessToken }),
      await t.http.patch(`/v1/event-types/${foreign}`, { title: 'Mine' }, { token: owner.accessToken }),
      await t.http.delete(`/v1/event-types/${foreign}`, { token: owner.accessToken }),
      await t.http.get('/v1/event-types/evt_000000000000000000000000', { token: owner.accessToken }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
    expect((await t.http.get(`/v1/event-types/${foreign}`, { token: other.accessToken })).body.eventType.title).toBe('Intro call');
    const malformed = await t.http.get('/v1/event-types/not-an-id', { token: owner.accessToken });
    expect(malformed.status).toBe(400);
    expect(malformed.body.details[0].field).toBe('id');
  });

  it('lets members read but not write (403 FORBIDDEN); API keys need event_types:read / event_types:write', async () => {
    const org = await registerOwner(t.http);
    const id = (await create({}, org.accessToken)).body.eventType.id;
    const member = await addMember(t, org.accessToken, org.organizationId, 'member');
    expect((await t.http.get('/v1/event-types', { token: member.accessToken })).status).toBe(200);
    expect((await t.http.get(`/v1/event-types/${id}`, { token: member.accessToken })).status).toBe(200);
    for (const res of [
      await create({}, member.accessToken),
      await t.http.patch(`/v1/event-types/${id}`, { title: 'x' }, { token: member.accessToken }),
      await t.http.delete(`/v1/event-types/${id}`, { token: member.accessToken }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
    const admin = await addMember(t, org.accessToken, org.organizationId, 'admin');
    expect((await t.http.patch(`/v1/event-types/${id}`, { title: 'By admin' }, { token: admin.accessToken })).status).toBe(200);

    const readOnly = await createApiKey(t.http, org.accessToken, { scopes: ['event_types:read'] });
    const writeOnly = await createApiKey(t.http, org.accessToken, { scopes: ['event_types:write'] });
    expect((await t.http.get('/v1/event-types', { apiKey: readOnly.apiKey })).status).toBe(200);
    for (const [res, scope] of [
      [
        await t.http.post('/v1/event-types', { title: 'k', slug: slug(), durationMinutes: 30 }, { apiKey: readOnly.apiKey }),
        'event_types:write',
      ],
      [await t.http.patch(`/v1/event-types/${id}`, { title: 'k' }, { apiKey: readOnly.apiKey }), 'event_types:write'],
      [await t.http.delete(`/v1/event-types/${id}`, { apiKey: readOnly.apiKey }), 'event_types:write'],
      [await t.http.get('/v1/event-types', { apiKey: writeOnly.apiKey }), 'event_types:read'],
      [await t.http.get(`/v1/event-types/${id}`, { apiKey: writeOnly.apiKey }), 'event_types:read'],
    ] as const) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('INSUFFICIENT_SCOPE');
      expect(res.body.message).toContain(scope);
    }
    const created = await t.http.post(
      '/v1/event-types',
      { title: 'By key', slug: slug(), durationMinutes: 30 },
      { apiKey: writeOnly.apiKey },
    );
    expect(created.status).toBe(201);
    // An API key's acting user is its creator: the default host.
    expect(created.body.eventType.hostUserIds).toEqual([org.userId]);
  });
});
