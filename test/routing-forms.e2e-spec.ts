import { startTestApp, type TestApp } from './support/app.js';
import { bookingOrg, type BookingOrg } from './support/bookings.js';
import { createApiKey } from './support/factories.js';
import { createWebhook, WebhookReceiver } from './support/webhooks.js';

const FIELDS = [
  { id: 'email', label: 'Work email', type: 'email', required: true },
  { id: 'size', label: 'Company size', type: 'number' },
  { id: 'region', label: 'Region', type: 'select', options: ['emea', 'amer'] },
  { id: 'topics', label: 'Topics', type: 'multiselect', options: ['sales', 'support'] },
];

describe('routing forms (contract § 22)', () => {
  let t: TestApp;
  let org: BookingOrg;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp();
    org = await bookingOrg(t);
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  const form = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    name: 'Inbound',
    fields: FIELDS,
    routes: [
      { when: { all: [{ field: 'size', op: 'gte', value: 200 }] }, to: { eventTypeId: org.eventTypeId, hostUserIds: [org.owner.userId] } },
      { when: { any: [{ field: 'topics', op: 'contains', value: 'support' }] }, to: { url: 'https://example.com/help' } },
    ],
    fallback: { message: 'We will write to you.' },
    ...extra,
  });
  const create = async (body = form()): Promise<string> => {
    const res = await t.http.post('/v1/routing-forms', body, { apiKey: org.apiKey });
    expect(res.status).toBe(201);
    return res.body.routingForm.id as string;
  };

  it('creates, lists, reads, changes and deletes a form', async () => {
    const res = await t.http.post('/v1/routing-forms', form(), { apiKey: org.apiKey });
    expect(res.status).toBe(201);
    const created = res.body.routingForm;
    expect(created.id).toMatch(/^rtf_[0-9A-Za-z]{24}$/);
    expect(created.fields[1]).toEqual({ id: 'size', label: 'Company size', type: 'number', required: false });
    expect(created.routes[1]).toEqual((form().routes as unknown[])[1]);
    expect(created.fallback).toEqual({ message: 'We will write to you.' });
    const got = await t.http.get(`/v1/routing-forms/${created.id}`, { apiKey: org.apiKey });
    expect(got.body.routingForm).toEqual(created);
    const list = await t.http.get('/v1/routing-forms?page=1&limit=100', { apiKey: org.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.routingForms.map((f: { id: string }) => f.id)).toContain(created.id);
    expect(list.body.hasMore).toBe(false);
    const patched = await t.http.patch(`/v1/routing-forms/${created.id}`, { name: 'Renamed' }, { apiKey: org.apiKey });
    expect(patched.status).toBe(200);
    expect(patched.body.routingForm).toMatchObject({ name: 'Renamed', routes: created.routes });
    // The whole form is checked again: dropping a field a route names is refused.
    const dropped = await t.http.patch(`/v1/routing-forms/${created.id}`, { fields: [FIELDS[0]] }, { apiKey: org.apiKey });
    expect(dropped.status).toBe(400);
    expect(dropped.body.details.map((d: { field: string }) => d.field)).toEqual([
      'routes[0].when.all[0].field',
      'routes[1].when.any[0].field',
    ]);
    const audit = await t.http.get(`/v1/audit-log?resourceId=${created.id}`, { token: org.owner.accessToken });
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toEqual(['routing_form.updated', 'routing_form.created']);
    expect((await t.http.delete(`/v1/routing-forms/${created.id}`, { apiKey: org.apiKey })).status).toBe(204);
    expect((await t.http.get(`/v1/routing-forms/${created.id}`, { apiKey: org.apiKey })).status).toBe(404);
    const after = await t.http.get(`/v1/audit-log?resourceId=${created.id}`, { token: org.owner.accessToken });
    expect(after.body.entries[0].action).toBe('routing_form.deleted');
  });

  it.each<[string, (f: Record<string, unknown>) => Record<string, unknown>, string]>([
    [
      'an unknown field',
      (f) => ({ ...f, routes: [{ when: { all: [{ field: 'nope', op: 'equals', value: 'x' }] }, to: f.fallback }] }),
      'routes[0].when.all[0].field',
    ],
    [
      'an op that does not fit',
      (f) => ({ ...f, routes: [{ when: { any: [{ field: 'email', op: 'gte', value: 'x' }] }, to: f.fallback }] }),
      'routes[0].when.any[0].op',
    ],
    [
      'a value outside the options',
      (f) => ({
        ...f,
        routes: [
          {
            when: {
              all: [
                { field: 'size', op: 'lte', value: 5 },
                { field: 'region', op: 'equals', value: 'apac' },
              ],
            },
            to: f.fallback,
          },
        ],
      }),
      'routes[0].when.all[1].value',
    ],
    [
      'a text for a number',
      (f) => ({ ...f, routes: [{ when: { all: [{ field: 'size', op: 'gte', value: '5' }] }, to: f.fallback }] }),
      'routes[0].when.all[0].value',
    ],
    [
      'an unknown op',
      (f) => ({ ...f, routes: [{ when: { all: [{ field: 'size', op: 'between', value: 5 }] }, to: f.fallback }] }),
      'routes[0].when.all[0].op',
    ],
    ['two kinds of target', (f) => ({ ...f, fallback: { message: 'x', url: 'https://example.com' } }), 'fallback'],
    ['no target', (f) => ({ ...f, fallback: {} }), 'fallback'],
    ['an http url', (f) => ({ ...f, fallback: { url: 'http://example.com' } }), 'fallback.url'],
    ['a message of 501 characters', (f) => ({ ...f, fallback: { message: 'x'.repeat(501) } }), 'fallback.message'],
    ['an unknown event type', (f) => ({ ...f, fallback: { eventTypeId: 'evt_000000000000000000000000' } }), 'fallback.eventTypeId'],
    [
      'a host not of the event type',
      (f) => ({ ...f, fallback: { eventTypeId: org.eventTypeId, hostUserIds: ['usr_000000000000000000000000'] } }),
      'fallback.hostUserIds',
    ],
    ['no hosts', (f) => ({ ...f, fallback: { eventTypeId: org.eventTypeId, hostUserIds: [] } }), 'fallback.hostUserIds'],
    ['hosts without an event type', (f) => ({ ...f, fallback: { message: 'x', hostUserIds: [org.owner.userId] } }), 'fallback.hostUserIds'],
    ['no fields', (f) => ({ ...f, fields: [] }), 'fields'],
    ['21 fields', (f) => ({ ...f, fields: Array.from({ length: 21 }, (_, i) => ({ id: `f${i}`, label: 'x', type: 'text' })) }), 'fields'],
    ['a select without options', (f) => ({ ...f, fields: [...FIELDS, { id: 'x', label: 'x', type: 'select' }] }), 'fields[4].options'],
    ['no routes', (f) => ({ ...f, routes: [] }), 'routes'],
    ['51 routes', (f) => ({ ...f, routes: Array.from({ length: 51 }, () => ({ when: {}, to: f.fallback })) }), 'routes'],
    ['an empty name', (f) => ({ ...f, name: '' }), 'name'],
  ])('refuses %s at save', async (_name, change, field) => {
    const res = await t.http.post('/v1/routing-forms', change(form()), { apiKey: org.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('refuses an inactive event type', async () => {
    const other = await bookingOrg(t);
    expect((await t.http.delete(`/v1/event-types/${other.eventTypeId}`, { apiKey: other.apiKey })).status).toBe(204);
    const res = await t.http.post(
      '/v1/routing-forms',
      { ...form(), routes: [{ when: {}, to: { eventTypeId: other.eventTypeId } }] },
      { apiKey: other.apiKey },
    );
    expect(res.status).toBe(400);
    expect(res.body.details[0].field).toBe('routes[0].to.eventTypeId');
  });

  it('answers 404 for another organization’s form and another organization’s event type', async () => {
    const id = await create();
    const other = await bookingOrg(t);
    for (const res of [
      await t.http.get(`/v1/routing-forms/${id}`, { apiKey: other.apiKey }),
      await t.http.patch(`/v1/routing-forms/${id}`, { name: 'x' }, { apiKey: other.apiKey }),
      await t.http.delete(`/v1/routing-forms/${id}`, { apiKey: other.apiKey }),
      await t.http.post(`/v1/routing-forms/${id}/test`, { answers: {} }, { apiKey: other.apiKey }),
      await t.http.post(`/v1/routing-forms/${id}/responses`, { answers: {} }, { apiKey: other.apiKey }),
      await t.http.get(`/v1/routing-forms/${id}/responses`, { apiKey: other.apiKey }),
    ])
      expect(res.status).toBe(404);
    const foreign = await t.http.post('/v1/routing-forms', form(), { apiKey: other.apiKey });
    expect(foreign.status).toBe(400);
    expect(foreign.body.details[0].field).toBe('routes[0].to.eventTypeId');
  });

  it('keeps to scopes and roles', async () => {
    const id = await create();
    const readOnly = (await createApiKey(t.http, org.owner.accessToken, { scopes: ['event_types:read'] })).apiKey;
    expect((await t.http.get(`/v1/routing-forms/${id}`, { apiKey: readOnly })).status).toBe(200);
    expect((await t.http.post('/v1/routing-forms', form(), { apiKey: readOnly })).status).toBe(403);
    expect(
      (await t.http.post(`/v1/routing-forms/${id}/responses`, { answers: { email: 'a@example.com' } }, { apiKey: readOnly })).status,
    ).toBe(403);
    expect((await t.http.get(`/v1/routing-forms/${id}/responses`, { apiKey: readOnly })).status).toBe(403);
    const bookingsOnly = (await createApiKey(t.http, org.owner.accessToken, { scopes: ['bookings:write', 'bookings:read'] })).apiKey;
    expect((await t.http.get(`/v1/routing-forms/${id}`, { apiKey: bookingsOnly })).status).toBe(403);
    expect(
      (await t.http.post(`/v1/routing-forms/${id}/responses`, { answers: { email: 'a@example.com' } }, { apiKey: bookingsOnly })).status,
    ).toBe(201);
    expect((await t.http.get(`/v1/routing-forms/${id}/responses`, { apiKey: bookingsOnly })).status).toBe(200);
  });

  it('tests answers without storing anything; answers are checked as booking answers', async () => {
    const id = await create();
    const test = (answers: Record<string, unknown>) => t.http.post(`/v1/routing-forms/${id}/test`, { answers }, { apiKey: org.apiKey });
    const big = await test({ email: 'ceo@big.example', size: 500, topics: ['support'] });
    expect(big.status).toBe(200);
    expect(big.body).toEqual({ route: { eventTypeId: org.eventTypeId, hostUserIds: [org.owner.userId] }, matchedRoute: 0 });
    expect((await test({ email: 'a@small.example', size: 5, topics: ['support'] })).body).toEqual({
      route: { url: 'https://example.com/help' },
      matchedRoute: 1,
    });
    expect((await test({ email: 'a@small.example' })).body).toEqual({ route: { message: 'We will write to you.' }, matchedRoute: null });
    const bad = await test({ size: 'many', region: 'apac', nope: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'answers.email',
      'answers.nope',
      'answers.region',
      'answers.size',
    ]);
    const listed = await t.http.get(`/v1/routing-forms/${id}/responses`, { apiKey: org.apiKey });
    expect(listed.body).toEqual({ responses: [], totalCount: 0, hasMore: false });
  });

  it('stores responses, lists them, announces them and erases their answers', async () => {
    const id = await create();
    const path = '/routing';
    const hook = await createWebhook(t.http, { apiKey: org.apiKey }, { url: receiver.url(path), events: ['routing_form.submitted'] });
    receiver.expectSecret(path, hook.secret);
    const submit = (answers: Record<string, unknown>) =>
      t.http.post(`/v1/routing-forms/${id}/responses`, { answers }, { apiKey: org.apiKey });
    const first = await submit({ email: 'Visitor@Example.com', size: 900 });
    expect(first.status).toBe(201);
    expect(first.body.response).toEqual({
      id: expect.stringMatching(/^rtr_/) as unknown,
      route: { eventTypeId: org.eventTypeId, hostUserIds: [org.owner.userId] },
    });
    t.clock.advance(60_000);
    const second = await submit({ email: 'other@example.com' });
    expect((await submit({ size: 1 })).status).toBe(400);

    const listed = await t.http.get(`/v1/routing-forms/${id}/responses?page=1&limit=1`, { apiKey: org.apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body.totalCount).toBe(2);
    expect(listed.body.hasMore).toBe(true);
    expect(listed.body.responses).toEqual([
      {
        id: second.body.response.id,
        answers: [{ id: 'email', label: 'Work email', type: 'email', value: 'other@example.com' }],
        route: { message: 'We will write to you.' },
        matchedRoute: null,
        bookingId: null,
        createdAt: t.clock.now().toISOString(),
      },
    ]);
    const windowed = await t.http.get(`/v1/routing-forms/${id}/responses?to=${encodeURIComponent(t.clock.now().toISOString())}`, {
      apiKey: org.apiKey,
    });
    expect(windowed.body.responses.map((r: { id: string }) => r.id)).toEqual([first.body.response.id]);
    expect((await t.http.get(`/v1/routing-forms/${id}/responses?from=yesterday`, { apiKey: org.apiKey })).status).toBe(400);
    // Test mode keeps its own responses.
    expect((await t.http.get(`/v1/routing-forms/${id}/responses`, { apiKey: org.testKey })).body.totalCount).toBe(0);

    await receiver.waitFor(() => receiver.at(path).length === 2, 8000, 'routing_form.submitted');
    const payloads = receiver.at(path).map((r) => r.payload as { type: string; data: { response: { id: string; routingFormId: string } } });
    expect(payloads.map((p) => p.type)).toEqual(['routing_form.submitted', 'routing_form.submitted']);
    expect(payloads.map((p) => p.data.response.id).sort()).toEqual([first.body.response.id, second.body.response.id].sort());
    expect(payloads[0].data.response.routingFormId).toBe(id);

    const erased = await t.http.post('/v1/attendees/erase', { email: 'visitor@example.com' }, { apiKey: org.apiKey });
    expect(erased.status).toBe(200);
    const after = await t.http.get(`/v1/routing-forms/${id}/responses`, { apiKey: org.apiKey });
    const byId = new Map(after.body.responses.map((r: { id: string; answers: unknown[] }) => [r.id, r.answers]));
    expect(byId.get(first.body.response.id)).toEqual([]);
    expect(byId.get(second.body.response.id)).toHaveLength(1);
  });
});
