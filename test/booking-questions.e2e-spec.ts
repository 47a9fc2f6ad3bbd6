import fc from 'fast-check';
import ical from 'node-ical';
import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg } from './support/bookings.js';
import { SmtpTestServer } from './support/smtp.js';

const QUESTIONS = [
  { id: 'company', label: 'Company', type: 'text', required: true, maxLength: 40 },
  { id: 'agenda', label: 'Agenda', type: 'textarea' },
  { id: 'work_email', label: 'Work email', type: 'email' },
  { id: 'phone', label: 'Phone', type: 'phone' },
  { id: 'seats', label: 'Seats', type: 'number' },
  { id: 'plan', label: 'Plan', type: 'select', options: ['basic', 'pro'] },
  { id: 'topics', label: 'Topics', type: 'multiselect', options: ['pricing', 'security', 'api'] },
  { id: 'consent', label: 'I agree to the terms', type: 'checkbox', required: true },
  { id: 'start', label: 'Start date', type: 'date', placeholder: 'YYYY-MM-DD' },
];

describe('booking questions (api-rules.md § Browser booking)', () => {
  let smtp: SmtpTestServer;
  let t: TestApp;
  let org: BookingOrg;
  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    org = await bookingOrg(t, { questions: QUESTIONS });
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  const events = async (bookingId: string): Promise<{ type: string; data: { booking: Record<string, unknown> } }[]> =>
    t.app
      .get(DataSource)
      .query(`SELECT type, data FROM domain_events WHERE data->'booking'->>'id' = $1 ORDER BY created_at, id`, [bookingId]);

  it('stores the questions with their defaults written out; PATCH replaces the list', async () => {
    const got = await t.http.get(`/v1/event-types/${org.eventTypeId}`, { apiKey: org.apiKey });
    expect(got.body.eventType.questions).toEqual([
      { id: 'company', label: 'Company', type: 'text', required: true, maxLength: 40 },
      { id: 'agenda', label: 'Agenda', type: 'textarea', required: false, maxLength: 5000 },
      { id: 'work_email', label: 'Work email', type: 'email', required: false },
      { id: 'phone', label: 'Phone', type: 'phone', required: false },
      { id: 'seats', label: 'Seats', type: 'number', required: false },
      { id: 'plan', label: 'Plan', type: 'select', required: false, options: ['basic', 'pro'] },
      { id: 'topics', label: 'Topics', type: 'multiselect', required: false, options: ['pricing', 'security', 'api'] },
      { id: 'consent', label: 'I agree to the terms', type: 'checkbox', required: true },
      { id: 'start', label: 'Start date', type: 'date', required: false, placeholder: 'YYYY-MM-DD' },
    ]);
    const other = await bookingOrg(t);
    const patched = await t.http.patch(`/v1/event-types/${other.eventTypeId}`, { questions: [QUESTIONS[1]] }, { apiKey: other.apiKey });
    expect(patched.status).toBe(200);
    expect(patched.body.eventType.questions).toEqual([
      { id: 'agenda', label: 'Agenda', type: 'textarea', required: false, maxLength: 5000 },
    ]);
    const cleared = await t.http.patch(`/v1/event-types/${other.eventTypeId}`, { questions: [] }, { apiKey: other.apiKey });
    expect(cleared.body.eventType.questions).toEqual([]);
    const created = await t.http.get(`/v1/event-types/${other.eventTypeId}`, { apiKey: other.apiKey });
    expect(created.body.eventType.questions).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    ['a bad id', [{ id: 'Company', label: 'x', type: 'text' }], 'questions[0].id'],
    ['an id of 51 characters', [{ id: 'a'.repeat(51), label: 'x', type: 'text' }], 'questions[0].id'],
    ['an empty label', [{ id: 'a', label: '', type: 'text' }], 'questions[0].label'],
    ['a label of 201 characters', [{ id: 'a', label: 'x'.repeat(201), type: 'text' }], 'questions[0].label'],
    ['an unknown type', [{ id: 'a', label: 'x', type: 'color' }], 'questions[0].type'],
    ['a duplicate id', [QUESTIONS[0], { ...QUESTIONS[1], id: 'company' }], 'questions[1].id'],
    ['a select without options', [{ id: 'a', label: 'x', type: 'select' }], 'questions[0].options'],
    ['options on a text question', [{ id: 'a', label: 'x', type: 'text', options: ['y'] }], 'questions[0].options'],
    ['repeated options', [{ id: 'a', label: 'x', type: 'select', options: ['y', 'y'] }], 'questions[0].options'],
    ['no options', [{ id: 'a', label: 'x', type: 'select', options: [] }], 'questions[0].options'],
    [
      '51 options',
      [{ id: 'a', label: 'x', type: 'select', options: Array.from({ length: 51 }, (_, i) => `o${i}`) }],
      'questions[0].options',
    ],
    ['an option of 101 characters', [{ id: 'a', label: 'x', type: 'select', options: ['x'.repeat(101)] }], 'questions[0].options'],
    ['maxLength on a number', [{ id: 'a', label: 'x', type: 'number', maxLength: 5 }], 'questions[0].maxLength'],
    ['maxLength 5001', [{ id: 'a', label: 'x', type: 'text', maxLength: 5001 }], 'questions[0].maxLength'],
    ['maxLength 0', [{ id: 'a', label: 'x', type: 'text', maxLength: 0 }], 'questions[0].maxLength'],
    ['a placeholder of 201 characters', [{ id: 'a', label: 'x', type: 'text', placeholder: 'x'.repeat(201) }], 'questions[0].placeholder'],
    ['required not a boolean', [{ id: 'a', label: 'x', type: 'text', required: 'yes' }], 'questions[0].required'],
    ['an unknown field', [{ id: 'a', label: 'x', type: 'text', hint: 'y' }], 'questions[0].hint'],
    ['21 questions', Array.from({ length: 21 }, (_, i) => ({ id: `q${i}`, label: 'x', type: 'text' })), 'questions'],
    ['not a list', { id: 'a' }, 'questions'],
    ['null', null, 'questions'],
  ])('refuses %s with 400 naming the field', async (_name, questions, field) => {
    const res = await t.http.patch(`/v1/event-types/${org.eventTypeId}`, { questions }, { apiKey: org.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('keeps the answers as asked: detail, webhook payload, the host’s mail and the .ics; reschedule keeps them', async () => {
    const answers = { company: 'Acme', plan: 'pro', topics: ['api', 'pricing'], consent: true, seats: 3 };
    const booked = await t.http.post(
      '/v1/bookings',
      bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z', { answers, attendee: { email: 'asker@example.com' } }),
      { apiKey: org.apiKey },
    );
    expect(booked.status).toBe(201);
    const expected = [
      { id: 'company', label: 'Company', type: 'text', value: 'Acme' },
      { id: 'seats', label: 'Seats', type: 'number', value: 3 },
      { id: 'plan', label: 'Plan', type: 'select', value: 'pro' },
      { id: 'topics', label: 'Topics', type: 'multiselect', value: ['api', 'pricing'] },
      { id: 'consent', label: 'I agree to the terms', type: 'checkbox', value: true },
    ];
    expect(booked.body.booking.answers).toEqual(expected);
    const id = booked.body.booking.id as string;
    expect((await t.http.get(`/v1/bookings/${id}`, { apiKey: org.apiKey })).body.booking.answers).toEqual(expected);
    expect((await events(id)).find((e) => e.type === 'booking.created')?.data.booking.answers).toEqual(expected);

    const toHost = await smtp.waitForMail((m) => m.envelope.to.includes(org.owner.email) && m.parsed.text?.includes(id) === true, 10_000);
    expect(toHost.parsed.text).toContain('Company: Acme');
    expect(toHost.parsed.text).toContain('Topics: api, pricing');
    expect(toHost.parsed.text).toContain('I agree to the terms: Yes');
    const part = toHost.parsed.attachments.find((a) => a.filename?.endsWith('.ics'))!;
    const event = Object.values(ical.sync.parseICS(part.content.toString('utf8'))).find((c) => c?.type === 'VEVENT') as ical.VEvent;
    expect(String(event.description)).toContain('Plan: pro');

    // Later edits of the questions do not change what the booking keeps.
    const relabelled = QUESTIONS.map((q) => (q.id === 'company' ? { ...q, label: 'Organisation' } : q));
    expect((await t.http.patch(`/v1/event-types/${org.eventTypeId}`, { questions: relabelled }, { apiKey: org.apiKey })).status).toBe(200);
    expect((await t.http.get(`/v1/bookings/${id}`, { apiKey: org.apiKey })).body.booking.answers).toEqual(expected);
    const moved = await t.http.post(`/v1/bookings/${id}/reschedule`, { newStartTime: '2027-03-02T11:00:00Z' }, { apiKey: org.apiKey });
    expect(moved.status).toBe(200);
    expect((await t.http.get(`/v1/bookings/${moved.body.booking.id}`, { apiKey: org.apiKey })).body.booking.answers).toEqual(expected);
    await t.http.patch(`/v1/event-types/${org.eventTypeId}`, { questions: QUESTIONS }, { apiKey: org.apiKey });
  });

  it.each<[string, Record<string, unknown> | undefined, string[]]>([
    ['no answers at all', undefined, ['answers.company', 'answers.consent']],
    ['a required checkbox left false', { company: 'Acme', consent: false }, ['answers.consent']],
    ['an unknown id', { company: 'Acme', consent: true, budget: 5 }, ['answers.budget']],
    [
      'a wrong value of each kind',
      { company: 7, consent: true, work_email: 'x', phone: 'x', seats: 'x', plan: 'x', start: '2027-13-01' },
      ['answers.company', 'answers.work_email', 'answers.phone', 'answers.seats', 'answers.plan', 'answers.start'],
    ],
    ['text over its maxLength', { company: 'x'.repeat(41), consent: true }, ['answers.company']],
  ])('refuses %s with 400 naming answers.<id>, and books nothing', async (_name, answers, fields) => {
    const res = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-03T10:00:00Z', answers ? { answers } : {}), {
      apiKey: org.apiKey,
    });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual([...fields].sort());
    expect((await t.http.get('/v1/bookings?startDate=2027-03-03&endDate=2027-03-03', { apiKey: org.apiKey })).body.totalCount).toBe(0);
  });

  it('refuses answers that are not an object', async () => {
    for (const answers of [[], 'x', 5, null]) {
      const res = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-03T10:00:00Z', { answers }), {
        apiKey: org.apiKey,
      });
      expect({ answers, status: res.status }).toEqual({ answers, status: 400 });
    }
  });

  it('round-trips any valid answer set through the booking detail unchanged (property)', async () => {
    const valid = fc.record(
      {
        company: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes('\u0000')),
        agenda: fc.string({ minLength: 1, maxLength: 200 }).filter((s) => !s.includes('\u0000')),
        work_email: fc.emailAddress(),
        phone: fc.stringMatching(/^\+?[0-9]{5,20}$/),
        seats: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }),
        plan: fc.constantFrom('basic', 'pro'),
        topics: fc.uniqueArray(fc.constantFrom('pricing', 'security', 'api'), { minLength: 1 }),
        consent: fc.constant(true),
        start: fc
          .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10)),
      },
      { requiredKeys: ['company', 'consent'] },
    );
    await fc.assert(
      fc.asyncProperty(valid, async (answers) => {
        const booked = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-04T10:00:00Z', { answers }), {
          apiKey: org.apiKey,
        });
        expect(booked.status).toBe(201);
        const id = booked.body.booking.id as string;
        const detail = (await t.http.get(`/v1/bookings/${id}`, { apiKey: org.apiKey })).body.booking;
        const values = Object.fromEntries((detail.answers as { id: string; value: unknown }[]).map((a) => [a.id, a.value]));
        // -0 travels as 0 in JSON.
        expect(values).toEqual(JSON.parse(JSON.stringify(answers)));
        await t.http.post(`/v1/bookings/${id}/cancel`, {}, { apiKey: org.apiKey });
      }),
      { numRuns: 15 },
    );
  });
});
