import pg from 'pg';
import { DataSource } from 'typeorm';
import { hostLockKeys, LOCK_HOSTS_SQL } from '../apps/api/src/modules/booking-occupancy/host-locks.js';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody } from './support/bookings.js';
import { addMember, createApiKey, registerOwner, type AddedMember, type RegisteredOwner } from './support/factories.js';
import { eventually } from './support/webhooks.js';
import { check, createEventType, putSchedule, slots, type Credential } from './support/scheduling.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('out of office (contract § 17)', () => {
  let t: TestApp;
  let owner: RegisteredOwner;
  let alice: AddedMember;
  let bob: AddedMember;
  let gone: AddedMember;
  let other: RegisteredOwner;
  let key: Credential;
  let ownerWho: Credential;
  let aliceWho: Credential;
  let otherEntryId: string;
  const post = (body: unknown, who: Credential = ownerWho) => t.http.post('/v1/out-of-office', body, who);
  const putExternal = (externalId: string, body: unknown, who: Credential = ownerWho) =>
    t.http.put(`/v1/out-of-office/by-external-id/${encodeURIComponent(externalId)}`, body, who);
  const entry = (startsAt: string, endsAt: string, extra: Record<string, unknown> = {}) => ({ startsAt, endsAt, ...extra });

  beforeAll(async () => {
    t = await startTestApp();
    t.clock.set('2027-02-22T00:00:00Z');
    owner = await registerOwner(t.http);
    ownerWho = { token: owner.accessToken };
    alice = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    aliceWho = { token: alice.accessToken };
    bob = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    gone = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    const removed = await t.http.delete(`/v1/organizations/${owner.organizationId}/members/${gone.memberId}`, ownerWho);
    expect(removed.status).toBe(204);
    key = await createApiKey(t.http, owner.accessToken, { rateLimitPerMinute: 10000 });
    for (const userId of [owner.userId, alice.userId, bob.userId]) {
      await putSchedule(t, key, 'UTC', [{ dayOfWeek: 1, slots: [{ startTime: '09:00', endTime: '13:00' }] }], userId);
    }
    other = await registerOwner(t.http);
    const theirs = await post(entry('2027-01-01T00:00:00Z', '2027-01-02T00:00:00Z'), { token: other.accessToken });
    expect(theirs.status).toBe(201);
    otherEntryId = theirs.body.outOfOffice.id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('a member records its own absence: 201 with every field; GET, PATCH, list and DELETE it', async () => {
    const created = await post(entry('2027-04-01T00:00:00Z', '2027-04-03T12:00:00+02:00', { note: 'Holiday' }), aliceWho);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      outOfOffice: {
        id: expect.stringMatching(/^ooo_[0-9A-Za-z]{20,}$/),
        userId: alice.userId,
        startsAt: '2027-04-01T00:00:00.000Z',
        endsAt: '2027-04-03T10:00:00.000Z',
        note: 'Holiday',
        redirectToUserId: null,
        externalId: null,
        affectedBookings: [],
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP),
      },
    });
    const id = created.body.outOfOffice.id;
    expect((await t.http.get(`/v1/out-of-office/${id}`, aliceWho)).body).toEqual(created.body);

    const patched = await t.http.patch(
      `/v1/out-of-office/${id}`,
      { endsAt: '2027-04-05T00:00:00Z', redirectToUserId: bob.userId },
      aliceWho,
    );
    expect(patched.status).toBe(200);
    expect(patched.body.outOfOffice).toMatchObject({
      id,
      endsAt: '2027-04-05T00:00:00.000Z',
      note: 'Holiday',
      redirectToUserId: bob.userId,
    });
    const cleared = await t.http.patch(`/v1/out-of-office/${id}`, { redirectToUserId: null, note: null }, aliceWho);
    expect(cleared.body.outOfOffice).toMatchObject({ redirectToUserId: null, note: null });

    const mine = await t.http.get('/v1/out-of-office', aliceWho);
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual({ outOfOffice: [cleared.body.outOfOffice], totalCount: 1, hasMore: false });

    expect((await t.http.delete(`/v1/out-of-office/${id}`, aliceWho)).status).toBe(204);
    expect((await t.http.get(`/v1/out-of-office/${id}`, aliceWho)).status).toBe(404);
    expect((await t.http.delete(`/v1/out-of-office/${id}`, aliceWho)).status).toBe(404);
  });

  it('owners set anyone’s; members only their own (403); lists filter by user and time and page', async () => {
    const forBob = await post(entry('2027-05-03T00:00:00Z', '2027-05-04T00:00:00Z', { userId: bob.userId }));
    expect(forBob.status).toBe(201);
    expect(forBob.body.outOfOffice.userId).toBe(bob.userId);
    const second = await post(entry('2027-05-10T00:00:00Z', '2027-05-11T00:00:00Z', { userId: bob.userId }), key);
    expect(second.status).toBe(201);

    const refused = await post(entry('2027-05-03T00:00:00Z', '2027-05-04T00:00:00Z', { userId: owner.userId }), aliceWho);
    expect(refused.status).toBe(403);
    expect((await t.http.get(`/v1/out-of-office/${forBob.body.outOfOffice.id}`, aliceWho)).status).toBe(403);
    expect((await t.http.delete(`/v1/out-of-office/${forBob.body.outOfOffice.id}`, aliceWho)).status).toBe(403);
    expect((await t.http.get(`/v1/out-of-office?userId=${bob.userId}`, aliceWho)).status).toBe(403);

    const page1 = await t.http.get(`/v1/out-of-office?userId=${bob.userId}&limit=1`, key);
    expect(page1.body).toEqual({ outOfOffice: [forBob.body.outOfOffice], totalCount: 2, hasMore: true });
    const page2 = await t.http.get(`/v1/out-of-office?userId=${bob.userId}&limit=1&page=2`, key);
    expect(page2.body).toEqual({ outOfOffice: [second.body.outOfOffice], totalCount: 2, hasMore: false });
    const later = await t.http.get(`/v1/out-of-office?userId=${bob.userId}&from=2027-05-04T00:00:00Z&to=2027-06-01T00:00:00Z`, key);
    expect(later.body.outOfOffice.map((e: { id: string }) => e.id)).toEqual([second.body.outOfOffice.id]);
    // Without userId, owners see everyone's in their organization only.
    const all = await t.http.get('/v1/out-of-office?limit=100', ownerWho);
    expect(all.body.outOfOffice.every((e: { userId: string }) => e.userId !== other.userId)).toBe(true);
    expect((await t.http.get('/v1/out-of-office?limit=0', ownerWho)).status).toBe(400);
    expect((await t.http.get('/v1/out-of-office?from=tomorrow', ownerWho)).status).toBe(400);
  });

  it('another organization’s entries and members are 404; scopes are availability:read / availability:write', async () => {
    for (const [method, path] of [
      ['get', `/v1/out-of-office/${otherEntryId}`],
      ['patch', `/v1/out-of-office/${otherEntryId}`],
      ['delete', `/v1/out-of-office/${otherEntryId}`],
    ] as const) {
      const res = method === 'patch' ? await t.http.patch(path, { note: 'x' }, ownerWho) : await t.http[method](path, ownerWho);
      expect([path, res.status, res.body.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
    const theirMember = await post(entry('2027-06-01T00:00:00Z', '2027-06-02T00:00:00Z', { userId: other.userId }));
    expect(theirMember.status).toBe(404);
    const redirectAway = await post(entry('2027-06-01T00:00:00Z', '2027-06-02T00:00:00Z', { redirectToUserId: other.userId }));
    expect(redirectAway.status).toBe(400);
    expect(redirectAway.body.details[0].field).toBe('redirectToUserId');
    expect((await t.http.get('/v1/out-of-office/ooo_x', ownerWho)).status).toBe(400);

    const readOnly = await createApiKey(t.http, owner.accessToken, { scopes: ['availability:read'] });
    const denied = await post(entry('2027-06-01T00:00:00Z', '2027-06-02T00:00:00Z'), { apiKey: readOnly.apiKey });
    expect([denied.status, denied.body.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    expect((await t.http.get('/v1/out-of-office', { apiKey: readOnly.apiKey })).status).toBe(200);
  });

  it('bad input is 400 naming the field: order, 367 days, note, redirect to oneself or a removed member, unknown fields', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [entry('2027-07-02T00:00:00Z', '2027-07-01T00:00:00Z'), 'endsAt'],
      [entry('2027-07-01T00:00:00Z', '2027-07-01T00:00:00Z'), 'endsAt'],
      [entry('2027-07-01T00:00:00Z', '2028-07-02T00:00:00Z'), 'endsAt'],
      [entry('2027-07-01T00:00:00Z', '2027-07-02T00:00:00Z', { note: 'x'.repeat(201) }), 'note'],
      [entry('2027-07-01T00:00:00Z', '2027-07-02T00:00:00Z', { redirectToUserId: owner.userId }), 'redirectToUserId'],
      [entry('2027-07-01T00:00:00Z', '2027-07-02T00:00:00Z', { redirectToUserId: gone.userId }), 'redirectToUserId'],
      [entry('2027-07-01T00:00:00Z', '2027-07-02T00:00:00Z', { redirectToUserId: 'bob' }), 'redirectToUserId'],
      [entry('yesterday', '2027-07-02T00:00:00Z'), 'startsAt'],
      [entry('2027-07-01T00:00:00Z', '10000-01-01T00:00:00Z'), 'endsAt'],
      [{ endsAt: '2027-07-02T00:00:00Z' }, 'startsAt'],
      [entry('2027-07-01T00:00:00Z', '2027-07-02T00:00:00Z', { reason: 'x' }), 'reason'],
    ];
    for (const [body, field] of cases) {
      const res = await post(body);
      expect([JSON.stringify(body).slice(0, 80), res.status, res.body.code]).toEqual([
        JSON.stringify(body).slice(0, 80),
        400,
        'VALIDATION_ERROR',
      ]);
      expect(res.body.details.map((detail: { field: string }) => detail.field)).toContain(field);
    }
    // 366 days exactly (a leap year) is allowed, one millisecond more is not.
    expect((await post(entry('2031-01-01T00:00:00Z', '2032-01-02T00:00:00Z'))).status).toBe(201);
    expect((await post(entry('2033-01-01T00:00:00Z', '2034-01-02T00:00:00.001Z'))).status).toBe(400);
    const self = await post(entry('2027-07-01T00:00:00Z', '2027-07-02T00:00:00Z', { redirectToUserId: alice.userId }), aliceWho);
    expect(self.status).toBe(400);
  });

  it('overlapping entries of one user are 409 OUT_OF_OFFICE_OVERLAP, also when they race; touching ones are fine', async () => {
    const first = await post(entry('2027-08-02T09:00:00Z', '2027-08-02T17:00:00Z'));
    expect(first.status).toBe(201);
    const overlapping = await post(entry('2027-08-02T16:59:00Z', '2027-08-03T00:00:00Z'));
    expect([overlapping.status, overlapping.body.code]).toEqual([409, 'OUT_OF_OFFICE_OVERLAP']);
    expect((await post(entry('2027-08-02T17:00:00Z', '2027-08-03T00:00:00Z'))).status).toBe(201);
    // Another member may be away at the same time.
    expect((await post(entry('2027-08-02T09:00:00Z', '2027-08-02T17:00:00Z', { userId: bob.userId }))).status).toBe(201);
    // A PATCH onto another entry is refused the same way.
    const moved = await t.http.patch(`/v1/out-of-office/${first.body.outOfOffice.id}`, { endsAt: '2027-08-02T18:00:00Z' }, ownerWho);
    expect([moved.status, moved.body.code]).toEqual([409, 'OUT_OF_OFFICE_OVERLAP']);

    const racing = await Promise.all([0, 1, 2, 3].map((index) => post(entry(`2027-08-10T0${index}:00:00Z`, '2027-08-10T12:00:00Z'))));
    expect(racing.map((res) => res.status).sort()).toEqual([201, 409, 409, 409]);
  });

  it('a PATCH reads its entry under the lock: two at once both survive; one racing a DELETE is 404 or done before it', async () => {
    // The test holds the member's booking locks (or the entry's row) so the requests queue behind it, then lets them go.
    const holder = new pg.Client({ connectionString: t.databaseUrl });
    await holder.connect();
    const waiting = (n: number): Promise<true> =>
      eventually(
        async () =>
          Number(
            (
              await holder.query(
                `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
              )
            ).rows[0].n,
          ) >= n || undefined,
        10_000,
        `${n} waiting`,
      );
    const holdHostLocks = async (): Promise<void> => {
      await holder.query('BEGIN');
      await holder.query(LOCK_HOSTS_SQL, [[...hostLockKeys(false, [bob.userId]), ...hostLockKeys(true, [bob.userId])]]);
    };
    const patch = (id: string, body: unknown) => t.http.patch(`/v1/out-of-office/${id}`, body, ownerWho);
    try {
      const made = await post(entry('2027-10-04T00:00:00Z', '2027-10-05T00:00:00Z', { userId: bob.userId, note: 'before' }));
      expect(made.status).toBe(201);
      const id = made.body.outOfOffice.id;
      await holdHostLocks();
      const noted = patch(id, { note: 'after' });
      await waiting(1);
      const longer = patch(id, { endsAt: '2027-10-06T00:00:00Z' });
      await waiting(2);
      await holder.query('COMMIT');
      expect((await Promise.all([noted, longer])).map((res) => res.status)).toEqual([200, 200]);
      expect((await t.http.get(`/v1/out-of-office/${id}`, ownerWho)).body.outOfOffice).toMatchObject({
        note: 'after',
        endsAt: '2027-10-06T00:00:00.000Z',
      });

      // A DELETE waits for the PATCH that holds the entry, then removes it: the PATCH's 200 was true when it answered.
      await holdHostLocks();
      const changed = patch(id, { note: 'again' });
      await waiting(1);
      const removed = t.http.delete(`/v1/out-of-office/${id}`, ownerWho);
      await waiting(2);
      await holder.query('COMMIT');
      expect([(await changed).status, (await removed).status]).toEqual([200, 204]);
      expect((await t.http.get(`/v1/out-of-office/${id}`, ownerWho)).status).toBe(404);

      // A PATCH waiting for an entry that a DELETE then removes is 404, never 200.
      const other = await post(entry('2027-10-11T00:00:00Z', '2027-10-12T00:00:00Z', { userId: bob.userId }));
      expect(other.status).toBe(201);
      await holder.query('BEGIN');
      await holder.query('DELETE FROM out_of_office_entries WHERE id = $1', [other.body.outOfOffice.id]);
      const late = patch(other.body.outOfOffice.id, { note: 'too late' });
      await waiting(1);
      await holder.query('COMMIT');
      expect([(await late).status, (await late).body.code]).toEqual([404, 'NOT_FOUND']);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  });

  it('PUT by external id creates, then replaces; the same body again changes nothing', async () => {
    const created = await putExternal('hr-4711', entry('2027-09-01T00:00:00Z', '2027-09-03T00:00:00Z', { userId: alice.userId }));
    expect(created.status).toBe(200);
    expect(created.body.outOfOffice).toMatchObject({ externalId: 'hr-4711', userId: alice.userId });
    const again = await putExternal('hr-4711', entry('2027-09-01T00:00:00Z', '2027-09-03T00:00:00Z', { userId: alice.userId }));
    expect(again.body).toEqual(created.body);
    const replaced = await putExternal(
      'hr-4711',
      entry('2027-09-02T00:00:00Z', '2027-09-04T00:00:00Z', { userId: alice.userId, note: 'moved' }),
    );
    expect(replaced.body.outOfOffice).toMatchObject({
      id: created.body.outOfOffice.id,
      startsAt: '2027-09-02T00:00:00.000Z',
      endsAt: '2027-09-04T00:00:00.000Z',
      note: 'moved',
    });
    const list = await t.http.get(`/v1/out-of-office?userId=${alice.userId}&from=2027-09-01T00:00:00Z&to=2027-10-01T00:00:00Z`, key);
    expect(list.body.totalCount).toBe(1);

    const racing = await Promise.all(
      [0, 1, 2].map(() => putExternal('hr-4712', entry('2027-09-10T00:00:00Z', '2027-09-11T00:00:00Z', { userId: alice.userId }))),
    );
    expect(racing.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(new Set(racing.map((res) => res.body.outOfOffice.id)).size).toBe(1);

    const clash = await putExternal('hr-4713', entry('2027-09-03T00:00:00Z', '2027-09-05T00:00:00Z', { userId: alice.userId }));
    expect([clash.status, clash.body.code]).toEqual([409, 'OUT_OF_OFFICE_OVERLAP']);
    expect((await putExternal('x'.repeat(201), entry('2027-09-20T00:00:00Z', '2027-09-21T00:00:00Z'))).status).toBe(400);
    expect((await putExternal('x'.repeat(200), entry('2027-09-20T00:00:00Z', '2027-09-21T00:00:00Z'))).status).toBe(200);
    const encoded = await putExternal('emp 7 ü', entry('2027-09-22T00:00:00Z', '2027-09-23T00:00:00Z'));
    expect([encoded.status, encoded.body.outOfOffice.externalId]).toEqual([200, 'emp 7 ü']);
    expect(
      (await t.http.put('/v1/out-of-office/by-external-id/', entry('2027-09-24T00:00:00Z', '2027-09-25T00:00:00Z'), ownerWho)).status,
    ).toBe(400);
    expect((await putExternal('a/b', entry('2027-09-24T00:00:00Z', '2027-09-25T00:00:00Z'))).status).toBe(400);
    // A member may not take over someone else's external id.
    expect((await putExternal('hr-4711', entry('2027-09-02T00:00:00Z', '2027-09-04T00:00:00Z'), { token: bob.accessToken })).status).toBe(
      403,
    );
  });

  it('while out of office a host is busy (out_of_office): one-on-one and collective slots disappear, round robin skips the host', async () => {
    const oneOnOne = await createEventType(t, key, { hostUserIds: [bob.userId] });
    const collective = await createEventType(t, key, { schedulingType: 'collective', hostUserIds: [bob.userId, alice.userId] });
    const roundRobin = await createEventType(t, key, { schedulingType: 'round_robin', hostUserIds: [bob.userId, alice.userId] });
    const day = '2027-03-01';
    const hours = async (id: string) => (await slots(t, key, id, day, day)).map((slot) => `${slot.start.slice(11, 16)} ${slot.hostUserId}`);
    expect(await hours(oneOnOne)).toEqual(['09:00', '10:00', '11:00', '12:00'].map((h) => `${h} ${bob.userId}`));

    // A booking inside the coming entry stays and is listed as affected.
    const booked = await t.http.post('/v1/bookings', bookingBody(oneOnOne, '2027-03-01T12:00:00Z'), key);
    expect(booked.status).toBe(201);
    const away = await post(entry('2027-03-01T10:30:00Z', '2027-03-01T13:00:00Z', { userId: bob.userId }), key);
    expect(away.status).toBe(201);
    expect(away.body.outOfOffice.affectedBookings).toEqual([
      { id: booked.body.booking.id, startsAt: '2027-03-01T12:00:00.000Z', status: 'confirmed' },
    ]);
    expect((await t.http.get(`/v1/bookings/${booked.body.booking.id}`, key)).body.booking.status).toBe('confirmed');

    expect(await hours(oneOnOne)).toEqual([`09:00 ${bob.userId}`]);
    expect(await hours(collective)).toEqual([`09:00 ${bob.userId}`]);
    expect(await hours(roundRobin)).toEqual([
      `09:00 ${bob.userId}`,
      `10:00 ${alice.userId}`,
      `11:00 ${alice.userId}`,
      `12:00 ${alice.userId}`,
    ]);
    expect(await check(t, key, oneOnOne, '2027-03-01T10:00:00Z')).toEqual({ available: false, reason: 'out_of_office' });
    expect(await check(t, key, oneOnOne, '2027-03-01T11:00:00+01:00')).toEqual({ available: false, reason: 'out_of_office' });
    const refused = await t.http.post('/v1/bookings', bookingBody(oneOnOne, '2027-03-01T11:00:00Z'), key);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'SLOT_UNAVAILABLE', details: [{ field: 'startTime', message: 'out_of_office' }] });

    // With a redirect, the teammate takes bob's place: slots follow alice's availability and bookings go to alice.
    const redirected = await t.http.patch(`/v1/out-of-office/${away.body.outOfOffice.id}`, { redirectToUserId: alice.userId }, key);
    expect(redirected.status).toBe(200);
    const standing = (...times: string[]) => [`09:00 ${bob.userId}`, ...times.map((h) => `${h} ${alice.userId}`)];
    expect(await hours(oneOnOne)).toEqual(standing('10:00', '11:00', '12:00'));
    // Collective: alice in bob's place besides herself, so the meeting occupies her alone.
    expect(await hours(collective)).toEqual(standing('10:00', '11:00', '12:00'));
    const alicesOwn = await createEventType(t, key, { hostUserIds: [alice.userId] });
    expect((await t.http.post('/v1/bookings', bookingBody(alicesOwn, '2027-03-01T10:00:00Z'), key)).status).toBe(201);
    // The cached answer follows the stand-in's own changes.
    expect(await hours(oneOnOne)).toEqual(standing('11:00', '12:00'));
    const aliceBusy = await t.http.post('/v1/bookings', bookingBody(alicesOwn, '2027-03-01T11:00:00Z'), key);
    expect(aliceBusy.status).toBe(201);
    expect(await hours(oneOnOne)).toEqual(standing('12:00'));
    await t.http.post(`/v1/bookings/${aliceBusy.body.booking.id}/cancel`, {}, key);
    expect(await hours(oneOnOne)).toEqual(standing('11:00', '12:00'));
    const toStandIn = await t.http.post('/v1/bookings', bookingBody(oneOnOne, '2027-03-01T11:00:00Z'), key);
    expect(toStandIn.status).toBe(201);
    expect(toStandIn.body.booking).toMatchObject({ hostUserId: alice.userId, hostUserIds: [alice.userId], eventTypeId: oneOnOne });
    expect(await check(t, key, oneOnOne, '2027-03-01T11:00:00Z')).toEqual({ available: false, reason: 'already_booked' });

    // Removing the entry gives the time back (the availability cache sees the change).
    expect((await t.http.delete(`/v1/out-of-office/${away.body.outOfOffice.id}`, key)).status).toBe(204);
    expect(await hours(oneOnOne)).toEqual(['09:00', '10:00', '11:00'].map((h) => `${h} ${bob.userId}`));
    expect((await t.http.get(`/v1/bookings/${toStandIn.body.booking.id}`, key)).body.booking.hostUserIds).toEqual([alice.userId]);
  });
  it('a recurring series gives each occurrence in the host’s absence to its stand-in, judged on the stand-in alone', async () => {
    const weekly = { recurrence: { frequency: 'weekly', interval: 1, maxCount: 4 } };
    const oneOnOne = await createEventType(t, key, { hostUserIds: [bob.userId], ...weekly });
    const collective = await createEventType(t, key, { schedulingType: 'collective', hostUserIds: [bob.userId, owner.userId], ...weekly });
    const alicesOwn = await createEventType(t, key, { hostUserIds: [alice.userId] });
    // Mondays 2027-04-05, 12 and 19; bob is away the whole middle Monday.
    const series = (eventTypeId: string, time: string) =>
      t.http.post('/v1/bookings', bookingBody(eventTypeId, `2027-04-05T${time}:00Z`, { recurrenceCount: 3 }), key);
    const hostsOf = async (res: { body: { series: { bookings: { id: string }[] } } }) => {
      const hosts: string[][] = [];
      for (const { id } of res.body.series.bookings) hosts.push((await t.http.get(`/v1/bookings/${id}`, key)).body.booking.hostUserIds);
      return hosts;
    };
    const away = await post(entry('2027-04-12T00:00:00Z', '2027-04-13T00:00:00Z', { userId: bob.userId }), key);
    expect(away.status).toBe(201);

    // Without a redirect the occurrence is refused, as before.
    const refused = await series(oneOnOne, '10');
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: 'SLOT_UNAVAILABLE',
      details: [{ field: 'startTime', message: 'occurrence 2 at 2027-04-12T10:00:00.000Z: out_of_office' }],
    });

    const redirected = await t.http.patch(`/v1/out-of-office/${away.body.outOfOffice.id}`, { redirectToUserId: alice.userId }, key);
    expect(redirected.status).toBe(200);
    // The stand-in busy then: refused as a single booking would be.
    const aliceBusy = await t.http.post('/v1/bookings', bookingBody(alicesOwn, '2027-04-12T10:00:00Z'), key);
    expect(aliceBusy.status).toBe(201);
    const standInBusy = await series(oneOnOne, '10');
    expect(standInBusy.status).toBe(409);
    expect(standInBusy.body.details).toEqual([{ field: 'startTime', message: 'occurrence 2 at 2027-04-12T10:00:00.000Z: already_booked' }]);
    expect((await t.http.post(`/v1/bookings/${aliceBusy.body.booking.id}/cancel`, {}, key)).status).toBe(200);

    const made = await series(oneOnOne, '10');
    expect(made.status).toBe(201);
    expect(made.body.booking).toMatchObject({ hostUserId: bob.userId, hostUserIds: [bob.userId] });
    expect(await hostsOf(made)).toEqual([[bob.userId], [alice.userId], [bob.userId]]);
    expect(await check(t, key, alicesOwn, '2027-04-12T10:00:00Z')).toEqual({ available: false, reason: 'already_booked' });

    // Collective: alice takes bob's place beside the owner at the middle occurrence only.
    const together = await series(collective, '11');
    expect(together.status).toBe(201);
    expect(await hostsOf(together)).toEqual([
      [bob.userId, owner.userId],
      [alice.userId, owner.userId],
      [bob.userId, owner.userId],
    ]);
    // One confirmation each: the owner's lists every date, bob's his two, alice's her one.
    const ids: string[] = together.body.series.bookings.map((booking: { id: string }) => booking.id);
    const mails: { recipients: string[]; about: string[] }[] = await t.app
      .get(DataSource)
      .query(`SELECT recipients, about FROM mail_outbox WHERE about && $1::text[] AND subject LIKE 'Confirmed%'`, [ids]);
    const toHost = (email: string) => mails.filter((mail) => mail.recipients.includes(email)).map((mail) => [...mail.about].sort());
    expect(toHost(owner.email)).toEqual([[...ids].sort()]);
    expect(toHost(bob.email)).toEqual([[ids[0], ids[2]].sort()]);
    expect(toHost(alice.email)).toEqual([[ids[1]]]);

    // A race for the stand-in's time: a series through bob's absence against alice's own booking, one wins.
    const [raced, single] = await Promise.all([
      series(oneOnOne, '12'),
      t.http.post('/v1/bookings', bookingBody(alicesOwn, '2027-04-12T12:00:00Z'), key),
    ]);
    expect([raced.status, single.status].sort()).toEqual([201, 409]);

    // A member cancelling "following" cancels only the occurrences it hosts (contract § 4).
    const madeIds: string[] = made.body.series.bookings.map((booking: { id: string }) => booking.id);
    const statusOf = async (id: string) => (await t.http.get(`/v1/bookings/${id}`, key)).body.booking.status;
    const bobFromFirst = await t.http.post(`/v1/bookings/${madeIds[0]}/cancel`, { scope: 'following' }, { token: bob.accessToken });
    expect(bobFromFirst.status).toBe(200);
    expect(bobFromFirst.body.cancelledBookingIds).toEqual([madeIds[0], madeIds[2]]);
    expect(await statusOf(madeIds[1])).toBe('confirmed');
    const aliceFromSecond = await t.http.post(`/v1/bookings/${madeIds[1]}/cancel`, { scope: 'following' }, aliceWho);
    expect(aliceFromSecond.body.cancelledBookingIds).toEqual([madeIds[1]]);
  });

  it('an absence is decided under the hosts’ locks: a booking racing it on another instance is refused or listed as affected', async () => {
    // A second instance on the same database and clock: the booking and the absence are decided by different processes.
    const b = await startTestApp({ databaseUrl: t.databaseUrl, clock: t.clock, env: { RUN_WORKERS: 'false' } });
    try {
      const racer = await addMember(t, owner.accessToken, owner.organizationId, 'member');
      const weekdays = [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, slots: [{ startTime: '08:00', endTime: '18:00' }] }));
      await putSchedule(t, key, 'UTC', weekdays, racer.userId);
      const eventTypeId = await createEventType(t, key, { hostUserIds: [racer.userId], durationMinutes: 30 });
      const rounds: number[] = [];
      for (const day of ['2027-03-02', '2027-03-03', '2027-03-04']) {
        for (let index = 0; index < 20; index++) rounds.push(Date.parse(`${day}T08:00:00Z`) + index * 30 * 60_000);
      }
      const outcomes: string[] = [];
      for (let first = 0; first < rounds.length; first += 6) {
        const batch = await Promise.all(
          rounds.slice(first, first + 6).map(async (start) => {
            const [startsAt, endsAt] = [new Date(start).toISOString(), new Date(start + 30 * 60_000).toISOString()];
            const [booking, absence] = await Promise.all([
              t.http.post('/v1/bookings', bookingBody(eventTypeId, startsAt), key),
              b.http.post('/v1/out-of-office', entry(startsAt, endsAt, { userId: racer.userId }), key),
            ]);
            expect(absence.status).toBe(201);
            if (booking.status !== 201) {
              expect([booking.status, booking.body.details?.[0]?.message]).toEqual([409, 'out_of_office']);
              return 'refused';
            }
            // Committed before the entry was decided: it must be among the entry's affected bookings.
            const affected = absence.body.outOfOffice.affectedBookings.map((booked: { id: string }) => booked.id);
            expect([startsAt, affected]).toEqual([startsAt, [booking.body.booking.id]]);
            return 'affected';
          }),
        );
        outcomes.push(...batch);
      }
      expect(outcomes).toHaveLength(rounds.length);
    } finally {
      await b.app.close();
    }
  });

  it('a redirect to a member who is later removed stops at the removal: redirectToUserId null, slots no longer follow it', async () => {
    const absent = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    const standIn = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    for (const userId of [absent.userId, standIn.userId]) {
      await putSchedule(t, key, 'UTC', [{ dayOfWeek: 1, slots: [{ startTime: '09:00', endTime: '13:00' }] }], userId);
    }
    const eventTypeId = await createEventType(t, key, { hostUserIds: [absent.userId] });
    const day = '2027-03-08';
    const hours = async () => (await slots(t, key, eventTypeId, day, day)).map((slot) => `${slot.start.slice(11, 16)} ${slot.hostUserId}`);
    const away = await post(
      entry('2027-03-08T10:00:00Z', '2027-03-08T12:00:00Z', { userId: absent.userId, redirectToUserId: standIn.userId }),
      key,
    );
    expect(away.status).toBe(201);
    expect(await hours()).toEqual([
      `09:00 ${absent.userId}`,
      `10:00 ${standIn.userId}`,
      `11:00 ${standIn.userId}`,
      `12:00 ${absent.userId}`,
    ]);

    const removed = await t.http.delete(`/v1/organizations/${owner.organizationId}/members/${standIn.memberId}`, ownerWho);
    expect(removed.status).toBe(204);
    const after = await t.http.get(`/v1/out-of-office/${away.body.outOfOffice.id}`, key);
    expect(after.status).toBe(200);
    expect(after.body.outOfOffice).toMatchObject({ id: away.body.outOfOffice.id, userId: absent.userId, redirectToUserId: null });
    expect(await hours()).toEqual([`09:00 ${absent.userId}`, `12:00 ${absent.userId}`]);
    const refused = await t.http.post('/v1/bookings', bookingBody(eventTypeId, '2027-03-08T10:00:00Z'), key);
    expect([refused.status, refused.body.details?.[0]?.message]).toEqual([409, 'out_of_office']);
  });

  it('a cached answer frees the time of a stand-in’s hold the moment the hold expires (the cache’s expiry counts stand-ins)', async () => {
    const absent = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    const standIn = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    for (const userId of [absent.userId, standIn.userId]) {
      await putSchedule(t, key, 'UTC', [{ dayOfWeek: 1, slots: [{ startTime: '09:00', endTime: '13:00' }] }], userId);
    }
    const theirs = await createEventType(t, key, { hostUserIds: [absent.userId] });
    const standInsOwn = await createEventType(t, key, { hostUserIds: [standIn.userId] });
    const day = '2027-03-15';
    const away = await post(
      entry('2027-03-15T09:00:00Z', '2027-03-15T13:00:00Z', { userId: absent.userId, redirectToUserId: standIn.userId }),
      key,
    );
    expect(away.status).toBe(201);
    const held = await t.http.post(
      '/v1/holds',
      { eventTypeId: standInsOwn, startTime: '2027-03-15T10:00:00Z', timezone: 'UTC', ttlSeconds: 60 },
      key,
    );
    expect(held.status).toBe(201);
    const expiresAt = Date.parse(held.body.hold.expiresAt);
    const answer = async () => {
      const res = await t.http.get(`/v1/availability?eventTypeId=${theirs}&start=${day}&end=${day}`, key);
      expect(res.status).toBe(200);
      return {
        starts: res.body.slots.map((slot: { start: string; hostUserId: string }) => `${slot.start.slice(11, 16)} ${slot.hostUserId}`),
        cache: String(res.headers.get('cache-status')),
      };
    };
    try {
      const busy = ['09:00', '11:00', '12:00'].map((h) => `${h} ${standIn.userId}`);
      expect((await answer()).starts).toEqual(busy);
      expect(await answer()).toEqual({ starts: busy, cache: 'availability; hit' });
      t.clock.set(expiresAt - 1);
      expect(await answer()).toEqual({ starts: busy, cache: 'availability; hit' });
      t.clock.set(expiresAt);
      expect((await answer()).starts).toEqual(['09:00', '10:00', '11:00', '12:00'].map((h) => `${h} ${standIn.userId}`));
    } finally {
      t.clock.set('2027-02-22T00:00:00Z');
    }
  });
});
