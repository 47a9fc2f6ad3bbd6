import { startTestApp, type TestApp } from './support/app.js';
import { addMember, createApiKey, registerOwner, type AddedMember, type RegisteredOwner } from './support/factories.js';

const DEFAULT_WEEK = [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, slots: [{ startTime: '09:00', endTime: '17:00' }] }));

describe('availability: weekly schedules', () => {
  let t: TestApp;
  let owner: RegisteredOwner;
  let member: AddedMember;
  let admin: AddedMember;
  const put = (body: unknown, who: { token?: string; apiKey?: string } = { token: owner.accessToken }, query = '') =>
    t.http.put(`/v1/availability/schedules${query}`, body, who);
  const get = (who: { token?: string; apiKey?: string } = { token: owner.accessToken }, query = '') =>
    t.http.get(`/v1/availability/schedules${query}`, who);

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerOwner(t.http, { timezone: 'America/Chicago' });
    member = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    admin = await addMember(t, owner.accessToken, owner.organizationId, 'admin');
  });
  afterAll(async () => {
    await t.close();
  });

  it('registration creates Monday–Friday 09:00–17:00 in the user’s timezone', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      schedule: {
        id: expect.stringMatching(/^sch_[0-9A-Za-z]{20,}$/),
        userId: owner.userId,
        timezone: 'America/Chicago',
        schedules: DEFAULT_WEEK,
        updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      },
    });
    const plain = await registerOwner(t.http);
    expect((await get({ token: plain.accessToken })).body.schedule).toMatchObject({ timezone: 'UTC', schedules: DEFAULT_WEEK });
  });

  it('invitation acceptance creates the default schedule too, in the timezone given there', async () => {
    expect((await get({ token: member.accessToken })).body.schedule).toMatchObject({
      userId: member.userId,
      timezone: 'UTC',
      schedules: DEFAULT_WEEK,
    });
  });

  it('PUT replaces the whole week (same id), sorted by day and time; GET returns it', async () => {
    const before = (await get()).body.schedule;
    t.clock.advance(60_000);
    const res = await put({
      timezone: 'Europe/Berlin',
      schedules: [
        { dayOfWeek: 6, slots: [{ startTime: '10:00', endTime: '12:00' }] },
        {
          dayOfWeek: 0,
          slots: [
            { startTime: '18:00', endTime: '24:00' },
            { startTime: '00:00', endTime: '02:00' },
          ],
        },
        {
          dayOfWeek: 2,
          slots: [
            { startTime: '13:00', endTime: '17:00' },
            { startTime: '09:00', endTime: '13:00' },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.schedule).toEqual({
      id: before.id,
      userId: owner.userId,
      timezone: 'Europe/Berlin',
      schedules: [
        {
          dayOfWeek: 0,
          slots: [
            { startTime: '00:00', endTime: '02:00' },
            { startTime: '18:00', endTime: '24:00' },
          ],
        },
        {
          dayOfWeek: 2,
          slots: [
            { startTime: '09:00', endTime: '13:00' },
            { startTime: '13:00', endTime: '17:00' },
          ],
        },
        { dayOfWeek: 6, slots: [{ startTime: '10:00', endTime: '12:00' }] },
      ],
      updatedAt: expect.any(String),
    });
    expect(Date.parse(res.body.schedule.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    expect((await get()).body).toEqual(res.body);
    const empty = await put({ timezone: 'UTC', schedules: [] });
    expect(empty.body.schedule.schedules).toEqual([]);
  });

  it.each([
    [{ schedules: [] }, 'timezone'],
    [{ timezone: 'Mars/Olympus', schedules: [] }, 'timezone'],
    [{ timezone: '+01:00', schedules: [] }, 'timezone'],
    [{ timezone: 'UTC' }, 'schedules'],
    [{ timezone: 'UTC', schedules: {} }, 'schedules'],
    [{ timezone: 'UTC', schedules: [{ dayOfWeek: 7, slots: [] }] }, 'schedules[0].dayOfWeek'],
    [{ timezone: 'UTC', schedules: [{ dayOfWeek: -1, slots: [] }] }, 'schedules[0].dayOfWeek'],
    [{ timezone: 'UTC', schedules: [{ dayOfWeek: 1.5, slots: [] }] }, 'schedules[0].dayOfWeek'],
    [{ timezone: 'UTC', schedules: [{ dayOfWeek: '1', slots: [] }] }, 'schedules[0].dayOfWeek'],
    [{ timezone: 'UTC', schedules: [{ dayOfWeek: 1 }] }, 'schedules[0].slots'],
    [
      { timezone: 'UTC', schedules: [{ dayOfWeek: 1, slots: [{ startTime: '9:00', endTime: '17:00' }] }] },
      'schedules[0].slots[0].startTime',
    ],
    [
      { timezone: 'UTC', schedules: [{ dayOfWeek: 1, slots: [{ startTime: '24:00', endTime: '24:00' }] }] },
      'schedules[0].slots[0].startTime',
    ],
    [
      { timezone: 'UTC', schedules: [{ dayOfWeek: 1, slots: [{ startTime: '09:00', endTime: '24:01' }] }] },
      'schedules[0].slots[0].endTime',
    ],
    [
      { timezone: 'UTC', schedules: [{ dayOfWeek: 1, slots: [{ startTime: '09:00', endTime: '17:60' }] }] },
      'schedules[0].slots[0].endTime',
    ],
    [{ timezone: 'UTC', schedules: [{ dayOfWeek: 1, slots: [{ startTime: '09:00', endTime: '5pm' }] }] }, 'schedules[0].slots[0].endTime'],
    [
      { timezone: 'UTC', schedules: [{ dayOfWeek: 1, slots: [{ startTime: '09:00:00', endTime: '17:00' }] }] },
      'schedules[0].slots[0].startTime',
    ],
    [{ timezone: 'UTC', schedules: [{ dayOfWeek: 1, slots: [{ startTime: '09:00' }] }] }, 'schedules[0].slots[0].endTime'],
    [
      { timezone: 'UTC', schedules: [{ dayOfWeek: 1, slots: [{ startTime: '17:00', endTime: '09:00' }] }] },
      'schedules[0].slots[0].endTime',
    ],
    [
      { timezone: 'UTC', schedules: [{ dayOfWeek: 1, slots: [{ startTime: '09:00', endTime: '09:00' }] }] },
      'schedules[0].slots[0].endTime',
    ],
    [
      {
        timezone: 'UTC',
        schedules: [
          { dayOfWeek: 2, slots: [] },
          {
            dayOfWeek: 1,
            slots: [
              { startTime: '09:00', endTime: '12:00' },
              { startTime: '11:00', endTime: '13:00' },
            ],
          },
        ],
      },
      'schedules[1].slots[1].startTime',
    ],
    [
      {
        timezone: 'UTC',
        schedules: [
          {
            dayOfWeek: 1,
            slots: [
              { startTime: '08:00', endTime: '18:00' },
              { startTime: '10:00', endTime: '11:00' },
            ],
          },
        ],
      },
      'schedules[0].slots[1].startTime',
    ],
    [
      {
        timezone: 'UTC',
        schedules: [
          { dayOfWeek: 1, slots: [] },
          { dayOfWeek: 1, slots: [] },
        ],
      },
      'schedules[1].dayOfWeek',
    ],
    [{ timezone: 'UTC', schedules: [{ dayOfWeek: 1, slots: [], note: 'x' }] }, 'schedules[0].note'],
    [{ timezone: 'UTC', schedules: [], id: 'sch_x' }, 'id'],
  ])('PUT %j → 400 naming %s', async (body, field) => {
    const res = await put(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('accepts touching slots and 24:00 as an end', async () => {
    const res = await put({
      timezone: 'UTC',
      schedules: [
        {
          dayOfWeek: 5,
          slots: [
            { startTime: '00:00', endTime: '12:00' },
            { startTime: '12:00', endTime: '24:00' },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
  });

  it('members manage only their own schedule: ?userId of someone else → 403; owners, admins and API keys may', async () => {
    const week = { timezone: 'Asia/Tokyo', schedules: [{ dayOfWeek: 3, slots: [{ startTime: '10:00', endTime: '11:00' }] }] };
    const own = await put(week, { token: member.accessToken }, `?userId=${member.userId}`);
    expect(own.status).toBe(200);
    for (const res of [
      await put(week, { token: member.accessToken }, `?userId=${admin.userId}`),
      await get({ token: member.accessToken }, `?userId=${owner.userId}`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
    const byAdmin = await put({ ...week, timezone: 'Asia/Seoul' }, { token: admin.accessToken }, `?userId=${member.userId}`);
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.schedule).toMatchObject({ userId: member.userId, timezone: 'Asia/Seoul' });
    expect((await get({ token: admin.accessToken }, `?userId=${owner.userId}`)).status).toBe(200);
    const key = await createApiKey(t.http, owner.accessToken, { scopes: ['availability:read', 'availability:write'] });
    expect((await put(week, { apiKey: key.apiKey }, `?userId=${admin.userId}`)).body.schedule.userId).toBe(admin.userId);
    // Without userId an API key acts for its creator.
    expect((await get({ apiKey: key.apiKey })).body.schedule.userId).toBe(owner.userId);
  });

  it('answers 404 for a user who is not an active member of the caller’s organization, 400 for a malformed one', async () => {
    const other = await registerOwner(t.http);
    for (const userId of [other.userId, 'usr_000000000000000000000000']) {
      for (const res of [
        await get(undefined, `?userId=${userId}`),
        await put({ timezone: 'UTC', schedules: [] }, undefined, `?userId=${userId}`),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('NOT_FOUND');
      }
    }
    for (const res of [await get(undefined, '?userId=mem_000000000000000000000000'), await get(undefined, '?userId=')]) {
      expect(res.status).toBe(400);
      expect(res.body.details[0].field).toBe('userId');
    }
    expect((await get({ token: other.accessToken })).body.schedule.userId).toBe(other.userId);
  });

  it('needs availability:read to read and availability:write to replace', async () => {
    const readOnly = await createApiKey(t.http, owner.accessToken, { scopes: ['availability:read'] });
    const writeOnly = await createApiKey(t.http, owner.accessToken, { scopes: ['availability:write'] });
    const write = await put({ timezone: 'UTC', schedules: [] }, { apiKey: readOnly.apiKey });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', message: expect.stringContaining('availability:write') });
    const read = await get({ apiKey: writeOnly.apiKey });
    expect(read.status).toBe(403);
    expect(read.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', message: expect.stringContaining('availability:read') });
  });
});
