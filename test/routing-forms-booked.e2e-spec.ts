import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, NOW, WEEKDAYS_9_TO_5 } from './support/bookings.js';
import { addMember, createApiKey, registerOwner, type AddedMember, type RegisteredOwner } from './support/factories.js';
import { createEventType, putSchedule } from './support/scheduling.js';

const SHOP = 'https://shop.example.com';
const DAY = '2027-03-02';
const at = (time: string): string => `${DAY}T${time}:00Z`;

interface Refusal {
  status: number;
  body: { code: string; details: { field: string; message: string }[] };
}

describe('routed bookings (contract § 22): availability, bookings and holds keep to the routed hosts', () => {
  let a: TestApp;
  let b: TestApp;
  let owner: RegisteredOwner;
  let alice: AddedMember;
  let bob: AddedMember;
  let key: { apiKey: string };
  let testKey: { apiKey: string };
  let pk: string;
  let roundRobin: string;
  let collective: string;
  let other: string;
  let formId: string;

  beforeAll(async () => {
    a = await startTestApp();
    a.clock.set(NOW);
    owner = await registerOwner(a.http);
    alice = await addMember(a, owner.accessToken, owner.organizationId, 'member');
    bob = await addMember(a, owner.accessToken, owner.organizationId, 'member');
    // A second instance of the service on the same database (the race of one response); after the invitations, whose
    // mails its workers would otherwise send where this test does not read them.
    b = await startTestApp({ databaseUrl: a.databaseUrl, clock: a.clock });
    key = await createApiKey(a.http, owner.accessToken, { rateLimitPerMinute: 10000 });
    testKey = await createApiKey(a.http, owner.accessToken, { mode: 'test', rateLimitPerMinute: 10000 });
    pk = (await createApiKey(a.http, owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
    for (const userId of [owner.userId, alice.userId, bob.userId]) await putSchedule(a, key, 'UTC', WEEKDAYS_9_TO_5, userId);
    const questions = [
      { id: 'company', label: 'Company', type: 'text', required: true },
      { id: 'size', label: 'Company size', type: 'number' },
    ];
    const hosts = [owner.userId, alice.userId, bob.userId];
    roundRobin = await createEventType(a, key, { durationMinutes: 30, schedulingType: 'round_robin', hostUserIds: hosts, questions });
    collective = await createEventType(a, key, { durationMinutes: 30, schedulingType: 'collective', hostUserIds: hosts });
    other = await createEventType(a, key, { durationMinutes: 30, schedulingType: 'round_robin', hostUserIds: hosts });
    const form = await a.http.post(
      '/v1/routing-forms',
      {
        name: 'Inbound',
        fields: [
          { id: 'company', label: 'Company', type: 'text', required: true },
          { id: 'size', label: 'Company size', type: 'number', required: true },
          { id: 'team', label: 'Team', type: 'select', options: ['sales', 'together', 'other', 'none'] },
        ],
        routes: [
          {
            when: { all: [{ field: 'team', op: 'equals', value: 'together' }] },
            to: { eventTypeId: collective, hostUserIds: [alice.userId, bob.userId] },
          },
          { when: { all: [{ field: 'team', op: 'equals', value: 'other' }] }, to: { eventTypeId: other } },
          { when: { all: [{ field: 'team', op: 'equals', value: 'none' }] }, to: { message: 'Nobody will call.' } },
          { when: { all: [{ field: 'size', op: 'gte', value: 200 }] }, to: { eventTypeId: roundRobin, hostUserIds: [alice.userId] } },
        ],
        fallback: { eventTypeId: roundRobin, hostUserIds: [bob.userId, owner.userId] },
      },
      key,
    );
    expect(form.status).toBe(201);
    formId = form.body.routingForm.id;
  });
  afterAll(async () => {
    await b.app.close();
    await a.close();
  });

  /** A backend's response to the form (live key unless told). */
  const respond = async (answers: Record<string, unknown>, who = key): Promise<string> => {
    const res = await a.http.post(`/v1/routing-forms/${formId}/responses`, { answers }, who);
    expect(res.status).toBe(201);
    return res.body.response.id as string;
  };
  const big = (): Promise<string> => respond({ company: 'Acme', size: 500 });
  const hostsOffered = async (eventTypeId: string, responseId?: string): Promise<Set<string>> => {
    const routed = responseId ? `&routingResponseId=${responseId}` : '';
    const res = await a.http.get(`/v1/availability?eventTypeId=${eventTypeId}&start=${DAY}&end=${DAY}${routed}`, key);
    expect(res.status).toBe(200);
    return new Set((res.body.slots as { hostUserId: string }[]).map((slot) => slot.hostUserId));
  };
  const expectNamed = (res: Refusal, message: RegExp): void => {
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details).toEqual([{ field: 'routingResponseId', message: expect.stringMatching(message) }]);
  };

  it('GET /availability and /public/availability offer only the routed hosts; /availability/check says not_routed', async () => {
    const response = await big();
    expect(await hostsOffered(roundRobin)).toEqual(new Set([owner.userId]));
    expect(await hostsOffered(roundRobin, response)).toEqual(new Set([alice.userId]));
    const fallback = await respond({ company: 'Tiny', size: 3 });
    // Routed to bob and the owner: round robin among them, in the event type's order (the owner, never booked, first).
    expect(await hostsOffered(roundRobin, fallback)).toEqual(new Set([owner.userId]));
    const routedPublic = await a.http.get(
      `/v1/public/availability?eventTypeId=${roundRobin}&start=${DAY}&end=${DAY}&routingResponseId=${response}`,
      { apiKey: pk, headers: { origin: SHOP } },
    );
    expect(routedPublic.status).toBe(200);
    expect(routedPublic.body.slots).toHaveLength(16);
    // alice is booked at 10:00 through the route: another response routed to her finds the time not_routed (others are free).
    const booked = await a.http.post('/v1/bookings', bookingBody(roundRobin, at('10:00'), { routingResponseId: response }), key);
    expect(booked.status).toBe(201);
    expect(booked.body.booking.hostUserIds).toEqual([alice.userId]);
    const again = await big();
    const checked = await a.http.get(
      `/v1/availability/check?eventTypeId=${roundRobin}&startTime=${encodeURIComponent(at('10:00'))}&routingResponseId=${again}`,
      key,
    );
    expect(checked.body).toEqual({ available: false, reason: 'not_routed' });
    const slots = await a.http.get(`/v1/availability?eventTypeId=${roundRobin}&start=${DAY}&end=${DAY}&routingResponseId=${again}`, key);
    expect((slots.body.slots as { start: string }[]).map((slot) => slot.start)).not.toContain('2027-03-02T10:00:00.000Z');
  });

  it('a booking or hold another host would have to take is 409 not_routed; the routed host’s time is booked', async () => {
    const first = await big();
    expect((await a.http.post('/v1/bookings', bookingBody(roundRobin, at('11:00'), { routingResponseId: first }), key)).status).toBe(201);
    const second = await big();
    const slot = { eventTypeId: roundRobin, startTime: at('11:00'), timezone: 'UTC', routingResponseId: second };
    for (const [path, body] of [
      ['/v1/bookings', bookingBody(roundRobin, at('11:00'), { routingResponseId: second })],
      ['/v1/holds', slot],
    ] as const) {
      const refused = await a.http.post(path, body, key);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: 'SLOT_UNAVAILABLE', details: [{ field: 'startTime', message: 'not_routed' }] });
    }
    // The refusals' reason is the metrics' label too (contract § 19).
    expect(await (await fetch(`${a.url}/metrics`)).text()).toMatch(/^bookings_refused_total\{reason="not_routed"\} [1-9]/m);
    // Without the route the time is someone else's to take.
    const plain = await a.http.post('/v1/bookings', bookingBody(roundRobin, at('11:00'), { answers: { company: 'Plain' } }), key);
    expect(plain.status).toBe(201);
    expect(plain.body.booking.hostUserIds).not.toEqual([alice.userId]);
    // A hold through the route, then the browser's booking through that hold and the route.
    const held = await a.http.post(
      '/v1/public/holds',
      { eventTypeId: roundRobin, startTime: at('12:00'), timezone: 'UTC', routingResponseId: second },
      { apiKey: pk, headers: { origin: SHOP } },
    );
    expect(held.status).toBe(201);
    const booked = await a.http.post(
      '/v1/public/bookings',
      bookingBody(roundRobin, at('12:00'), { holdId: held.body.hold.id, holdToken: held.body.holdToken, routingResponseId: second }),
      { apiKey: pk, headers: { origin: SHOP } },
    );
    expect(booked.status).toBe(201);
    const listed = await a.http.get(`/v1/routing-forms/${formId}/responses?limit=100`, key);
    const row = (listed.body.responses as { id: string; bookingId: string | null }[]).find((r) => r.id === second);
    expect(row?.bookingId).toBe(booked.body.booking.id);
  });

  it('the response’s answers fill the questions the booking leaves unanswered; the booking’s own answers win', async () => {
    const prefilled = await a.http.post('/v1/bookings', bookingBody(roundRobin, at('13:00'), { routingResponseId: await big() }), key);
    expect(prefilled.status).toBe(201);
    const got = await a.http.get(`/v1/bookings/${prefilled.body.booking.id}`, key);
    expect(got.body.booking.answers).toEqual([
      { id: 'company', label: 'Company', type: 'text', value: 'Acme' },
      { id: 'size', label: 'Company size', type: 'number', value: 500 },
    ]);
    const own = await a.http.post(
      '/v1/bookings',
      bookingBody(roundRobin, at('13:30'), { routingResponseId: await big(), answers: { company: 'Other Inc' } }),
      key,
    );
    expect(own.status).toBe(201);
    const ownGot = await a.http.get(`/v1/bookings/${own.body.booking.id}`, key);
    expect(ownGot.body.booking.answers).toEqual([
      { id: 'company', label: 'Company', type: 'text', value: 'Other Inc' },
      { id: 'size', label: 'Company size', type: 'number', value: 500 },
    ]);
  });

  it('a collective event type routed to a subset needs only that subset free', async () => {
    const together = await respond({ company: 'Acme', size: 5, team: 'together' });
    // The owner is busy at 14:00 (another event type): the whole set is not free, the routed two are.
    expect((await a.http.post('/v1/bookings', bookingBody(other, at('14:00')), key)).status).toBe(201);
    const plain = await a.http.get(`/v1/availability?eventTypeId=${collective}&start=${DAY}&end=${DAY}`, key);
    expect((plain.body.slots as { start: string }[]).map((slot) => slot.start)).not.toContain('2027-03-02T14:00:00.000Z');
    const booked = await a.http.post('/v1/bookings', bookingBody(collective, at('14:00'), { routingResponseId: together }), key);
    expect(booked.status).toBe(201);
    expect([...booked.body.booking.hostUserIds].sort()).toEqual([alice.userId, bob.userId].sort());
  });

  it('one booking per response: two instances booking through it at once make exactly one booking', async () => {
    const response = await respond({ company: 'Race', size: 3 });
    const results = await Promise.all(
      [at('15:00'), at('15:30')].map((time, i) =>
        (i ? b : a).http.post('/v1/bookings', bookingBody(roundRobin, time, { routingResponseId: response }), key),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 400]);
    expectNamed(results.find((r) => r.status === 400) as Refusal, /already routed a booking/);
    const listed = await a.http.get(`/v1/routing-forms/${formId}/responses?limit=100`, key);
    const row = (listed.body.responses as { id: string; bookingId: string | null }[]).find((r) => r.id === response);
    expect(row?.bookingId).toBe(results.find((r) => r.status === 201)?.body.booking.id);
    // Used: availability refuses it as well.
    const used = await a.http.get(`/v1/availability?eventTypeId=${roundRobin}&start=${DAY}&end=${DAY}&routingResponseId=${response}`, key);
    expectNamed(used as Refusal, /already routed a booking/);
  });

  it('a response expires 24 hours after it was submitted', async () => {
    const response = await big();
    a.clock.set(new Date(Date.parse(NOW) + 24 * 3600_000 - 1000).toISOString());
    expect(await hostsOffered(roundRobin, response)).toEqual(new Set([alice.userId]));
    a.clock.set(new Date(Date.parse(NOW) + 24 * 3600_000).toISOString());
    try {
      const expired = await a.http.get(
        `/v1/availability?eventTypeId=${roundRobin}&start=2027-03-03&end=2027-03-03&routingResponseId=${response}`,
        key,
      );
      expectNamed(expired as Refusal, /expired/);
      const booking = await a.http.post(
        '/v1/bookings',
        bookingBody(roundRobin, '2027-03-03T10:00:00Z', { routingResponseId: response }),
        key,
      );
      expectNamed(booking as Refusal, /expired/);
    } finally {
      a.clock.set(NOW);
    }
  });

  it('an unusable response is 400 naming routingResponseId on every route', async () => {
    const foreignOwner = await registerOwner(a.http);
    const foreignKey = await createApiKey(a.http, foreignOwner.accessToken, { rateLimitPerMinute: 10000 });
    const cases: [string, string, string, { apiKey: string }, RegExp][] = [
      ['malformed', 'nope', roundRobin, key, /rtr_/],
      ['unknown', 'rtr_000000000000000000000000', roundRobin, key, /no routing response/],
      ['to a message', await respond({ company: 'Acme', size: 5, team: 'none' }), roundRobin, key, /message/],
      ['to another event type', await big(), other, key, /another event type/],
      ['of the other mode', await big(), roundRobin, testKey, /no routing response/],
      ['of another organization', await big(), roundRobin, foreignKey, /no routing response/],
    ];
    for (const [name, responseId, eventTypeId, who, message] of cases) {
      const slots = await a.http.get(
        `/v1/availability?eventTypeId=${eventTypeId}&start=${DAY}&end=${DAY}&routingResponseId=${responseId}`,
        who,
      );
      const booking = await a.http.post('/v1/bookings', bookingBody(eventTypeId, at('16:00'), { routingResponseId: responseId }), who);
      const hold = await a.http.post(
        '/v1/holds',
        { eventTypeId, startTime: at('16:00'), timezone: 'UTC', routingResponseId: responseId },
        who,
      );
      for (const res of [slots, booking, hold]) {
        if (name === 'of another organization' && res.status === 404) continue; // the event type is not theirs either
        expectNamed(res as Refusal, message);
      }
    }
    const series = await a.http.post(
      '/v1/bookings',
      bookingBody(roundRobin, at('16:00'), { routingResponseId: await big(), recurrenceCount: 2 }),
      key,
    );
    expectNamed(series as Refusal, /series/);
  });
});
