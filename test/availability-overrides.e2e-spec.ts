import { startTestApp, type TestApp } from './support/app.js';
import { addMember, createApiKey, registerOwner, type AddedMember, type RegisteredOwner } from './support/factories.js';
import { createEventType, putSchedule, starts } from './support/scheduling.js';

type Who = { token: string } | { apiKey: string };

describe('availability: date overrides', () => {
  let t: TestApp;
  let owner: RegisteredOwner;
  let member: AddedMember;
  let admin: AddedMember;
  let ownerWho: Who;
  const post = (body: unknown, who: Who = ownerWho, query = '') => t.http.post(`/v1/availability/overrides${query}`, body, who);
  const list = (query: string, who: Who = ownerWho) => t.http.get(`/v1/availability/overrides?${query}`, who);

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerOwner(t.http);
    ownerWho = { token: owner.accessToken };
    member = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    admin = await addMember(t, owner.accessToken, owner.organizationId, 'admin');
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates custom and unavailable overrides and lists them by inclusive date range', async () => {
    const custom = await post({
      date: '2027-05-03',
      type: 'custom',
      slots: [
        { startTime: '14:00', endTime: '16:00' },
        { startTime: '08:00', endTime: '09:00' },
      ],
    });
    expect(custom.status).toBe(201);
    expect(custom.body).toEqual({
      override: {
        id: expect.stringMatching(/^ovr_[0-9A-Za-z]{20,}$/),
        userId: owner.userId,
        date: '2027-05-03',
        type: 'custom',
        reason: null,
        slots: [
          { startTime: '08:00', endTime: '09:00' },
          { startTime: '14:00', endTime: '16:00' },
        ],
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      },
    });
    const off = await post({ date: '2027-05-05', type: 'unavailable', reason: 'Dentist' });
    expect(off.status).toBe(201);
    expect(off.body.override).toMatchObject({ type: 'unavailable', reason: 'Dentist', slots: [] });
    await post({ date: '2027-05-10', type: 'unavailable', slots: [] });

    const res = await list('startDate=2027-05-03&endDate=2027-05-05');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ overrides: [custom.body.override, off.body.override], totalCount: 2 });
    expect((await list('startDate=2027-05-04&endDate=2027-05-04')).body).toEqual({ overrides: [], totalCount: 0 });
    expect((await list('startDate=2027-05-05&endDate=2027-05-10')).body.totalCount).toBe(2);
  });

  it('refuses a second override for the same user and date with 409 OVERRIDE_EXISTS, also under concurrency', async () => {
    expect((await post({ date: '2027-06-01', type: 'unavailable' })).status).toBe(201);
    const again = await post({ date: '2027-06-01', type: 'custom', slots: [{ startTime: '09:00', endTime: '10:00' }] });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('OVERRIDE_EXISTS');
    // Another member may have one that date.
    expect((await post({ date: '2027-06-01', type: 'unavailable' }, { token: member.accessToken })).status).toBe(201);

    const results = await Promise.all([1, 2, 3, 4].map(() => post({ date: '2027-06-02', type: 'unavailable' })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
  });

  it('DELETE removes it (204), then 404; the date may be overridden again', async () => {
    const created = await post({ date: '2027-06-10', type: 'unavailable' });
    const id = created.body.override.id;
    expect((await t.http.delete(`/v1/availability/overrides/${id}`, ownerWho)).status).toBe(204);
    expect((await t.http.delete(`/v1/availability/overrides/${id}`, ownerWho)).status).toBe(404);
    expect((await list('startDate=2027-06-10&endDate=2027-06-10')).body.totalCount).toBe(0);
    expect((await post({ date: '2027-06-10', type: 'unavailable' })).status).toBe(201);
    const malformed = await t.http.delete('/v1/availability/overrides/nope', ownerWho);
    expect(malformed.status).toBe(400);
  });

  it.each([
    [{ type: 'unavailable' }, 'date'],
    [{ date: '2027-02-30', type: 'unavailable' }, 'date'],
    [{ date: '2027-6-1', type: 'unavailable' }, 'date'],
    [{ date: '2027-06-01T00:00:00Z', type: 'unavailable' }, 'date'],
    [{ date: '2027-06-01' }, 'type'],
    [{ date: '2027-06-01', type: 'busy' }, 'type'],
    [{ date: '2027-06-01', type: 'custom' }, 'slots'],
    [{ date: '2027-06-01', type: 'custom', slots: [] }, 'slots'],
    [{ date: '2027-06-01', type: 'unavailable', slots: [{ startTime: '09:00', endTime: '10:00' }] }, 'slots'],
    [{ date: '2027-06-01', type: 'custom', slots: [{ startTime: '10:00', endTime: '09:00' }] }, 'slots[0].endTime'],
    [
      {
        date: '2027-06-01',
        type: 'custom',
        slots: [
          { startTime: '09:00', endTime: '11:00' },
          { startTime: '10:00', endTime: '12:00' },
        ],
      },
      'slots[1].startTime',
    ],
    [{ date: '2027-06-01', type: 'custom', slots: [{ startTime: '24:00', endTime: '24:00' }] }, 'slots[0].startTime'],
    [{ date: '2027-06-01', type: 'custom', slots: 'all day' }, 'slots'],
    [{ date: '2027-06-01', type: 'unavailable', reason: 'x'.repeat(501) }, 'reason'],
    [{ date: '2027-06-01', type: 'unavailable', userId: 'usr_x' }, 'userId'],
  ])('POST %j → 400 naming %s', async (body, field) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it.each([
    ['endDate=2027-01-01', 'startDate'],
    ['startDate=2027-01-01', 'endDate'],
    ['startDate=2027-01-02&endDate=2027-01-01', 'endDate'],
    ['startDate=2027-01-01&endDate=2028-01-02', 'endDate'],
    ['startDate=2027-13-01&endDate=2027-12-01', 'startDate'],
    ['startDate=2027-01-01&endDate=2027-01-31&page=2', 'page'],
  ])('GET ?%s → 400 naming %s', async (query, field) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('accepts 366 dates', async () => {
    expect((await list('startDate=2027-01-01&endDate=2028-01-01')).status).toBe(200);
  });

  it('replaces the weekly hours of that date in the slots', async () => {
    const who = { apiKey: (await createApiKey(t.http, owner.accessToken, { rateLimitPerMinute: 10000 })).apiKey };
    t.clock.set('2027-06-20T00:00:00Z');
    await putSchedule(
      t,
      who,
      'Europe/Paris',
      [1, 2, 3].map((dayOfWeek) => ({ dayOfWeek, slots: [{ startTime: '09:00', endTime: '11:00' }] })),
    );
    const id = await createEventType(t, who, { durationMinutes: 60 });
    const week = () => starts(t, who, id, '2027-06-21', '2027-06-24', 'Europe/Paris');
    expect(await week()).toEqual([
      '2027-06-21T09:00:00.000+02:00',
      '2027-06-21T10:00:00.000+02:00',
      '2027-06-22T09:00:00.000+02:00',
      '2027-06-22T10:00:00.000+02:00',
      '2027-06-23T09:00:00.000+02:00',
      '2027-06-23T10:00:00.000+02:00',
    ]);
    const off = await post({ date: '2027-06-21', type: 'unavailable' }, who);
    await post({ date: '2027-06-22', type: 'custom', slots: [{ startTime: '15:00', endTime: '16:00' }] }, who);
    await post({ date: '2027-06-24', type: 'custom', slots: [{ startTime: '23:00', endTime: '24:00' }] }, who);
    expect(await week()).toEqual([
      '2027-06-22T15:00:00.000+02:00',
      '2027-06-23T09:00:00.000+02:00',
      '2027-06-23T10:00:00.000+02:00',
      '2027-06-24T23:00:00.000+02:00',
    ]);
    await t.http.delete(`/v1/availability/overrides/${off.body.override.id}`, who);
    expect((await week()).slice(0, 2)).toEqual(['2027-06-21T09:00:00.000+02:00', '2027-06-21T10:00:00.000+02:00']);
    t.clock.set(Date.now());
  });

  it('members manage only their own overrides; admins and owners anyone’s; other organizations get 404', async () => {
    const mine = await post({ date: '2027-07-01', type: 'unavailable' }, { token: member.accessToken });
    expect(mine.body.override.userId).toBe(member.userId);
    const ownerOverride = await post({ date: '2027-07-01', type: 'unavailable' });
    for (const res of [
      await post({ date: '2027-07-02', type: 'unavailable' }, { token: member.accessToken }, `?userId=${owner.userId}`),
      await list(`startDate=2027-07-01&endDate=2027-07-01&userId=${admin.userId}`, { token: member.accessToken }),
      await t.http.delete(`/v1/availability/overrides/${ownerOverride.body.override.id}`, { token: member.accessToken }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
    const byAdmin = await post({ date: '2027-07-02', type: 'unavailable' }, { token: admin.accessToken }, `?userId=${member.userId}`);
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.body.override.userId).toBe(member.userId);
    const listed = await list(`startDate=2027-07-01&endDate=2027-07-31&userId=${member.userId}`, { token: admin.accessToken });
    expect(listed.body.overrides.map((o: { date: string }) => o.date)).toEqual(['2027-07-01', '2027-07-02']);
    expect((await t.http.delete(`/v1/availability/overrides/${mine.body.override.id}`, { token: admin.accessToken })).status).toBe(204);

    const other = await registerOwner(t.http);
    const foreign = await post({ date: '2027-07-01', type: 'unavailable' }, { token: other.accessToken });
    expect((await t.http.delete(`/v1/availability/overrides/${foreign.body.override.id}`, ownerWho)).status).toBe(404);
    expect((await post({ date: '2027-07-03', type: 'unavailable' }, ownerWho, `?userId=${other.userId}`)).status).toBe(404);
    expect((await list(`startDate=2027-07-01&endDate=2027-07-01&userId=${other.userId}`)).status).toBe(404);
    expect((await list('startDate=2027-07-01&endDate=2027-07-01', { token: other.accessToken })).body.totalCount).toBe(1);
  });

  it('needs availability:write to create or delete and availability:read to list', async () => {
    const readOnly = await createApiKey(t.http, owner.accessToken, { scopes: ['availability:read'] });
    const writeOnly = await createApiKey(t.http, owner.accessToken, { scopes: ['availability:write'] });
    const created = await post({ date: '2027-08-01', type: 'unavailable' }, { apiKey: writeOnly.apiKey });
    expect(created.status).toBe(201);
    expect(created.body.override.userId).toBe(owner.userId);
    for (const res of [
      await post({ date: '2027-08-02', type: 'unavailable' }, { apiKey: readOnly.apiKey }),
      await t.http.delete(`/v1/availability/overrides/${created.body.override.id}`, { apiKey: readOnly.apiKey }),
      await list('startDate=2027-08-01&endDate=2027-08-01', { apiKey: writeOnly.apiKey }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('INSUFFICIENT_SCOPE');
    }
    expect((await list('startDate=2027-08-01&endDate=2027-08-01', { apiKey: readOnly.apiKey })).body.totalCount).toBe(1);
  });
});
