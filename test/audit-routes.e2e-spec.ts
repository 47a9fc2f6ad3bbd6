import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OpenAPIObject, OperationObject } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg, WEEKDAYS_9_TO_5 } from './support/bookings.js';
import { createApiKey, invitationTokens, inviteMember, registerOwner, uniqueEmail } from './support/factories.js';
import type { HttpResponse, RequestOptions } from './support/http.js';
import { TestOidcProvider } from './support/oidc-provider.js';
import { createEventType, putSchedule } from './support/scheduling.js';

const WRITE_METHODS = ['post', 'put', 'patch', 'delete'] as const;
const SHOP = 'https://shop.example.com';
const at = (time: string): string => `2027-03-01T${time}:00Z`;

interface Walked {
  res: HttpResponse;
  /** The resource id the entry must name, when the test knows it. */
  resourceId?: string | null;
}

/**
 * Contract § 18: every successful POST, PUT, PATCH and DELETE writes one entry. This walks every write operation of the
 * OpenAPI document: each must declare its action (`x-audit-action`) and have a recipe here (a new route without one
 * fails the walk), and each recipe's successful request must leave exactly one entry with that action, found by the
 * request id the test sent.
 */
describe('audit entries for every write route', () => {
  let t: TestApp;
  let db: DataSource;
  let document: OpenAPIObject;
  let org: BookingOrg;
  let token: string;
  let publishable: string;
  let confirmTypeId: string;
  let server: Server;
  let serverUrl: string;
  let idp: TestOidcProvider;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    document = (await t.http.get('/docs-json')).body;
    org = await bookingOrg(t);
    token = org.owner.accessToken;
    publishable = (await createApiKey(t.http, token, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
    confirmTypeId = await createEventType(t, { token }, { durationMinutes: 30, requiresConfirmation: true });
    // One local server for the calendar feed and the webhook endpoint: an empty calendar, a 500 for every delivery.
    server = createServer((req, res) => {
      if (req.url?.endsWith('.ics')) {
        res.writeHead(200, { 'content-type': 'text/calendar' });
        res.end('BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//audit.test//EN\r\nEND:VCALENDAR\r\n');
      } else {
        res.writeHead(500);
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Single sign-on's configuration reads a real provider's discovery document (contract § 21).
    idp = new TestOidcProvider('audit-walk', 'audit-walk-secret', 'http://localhost/v1/auth/sso/callback');
    await idp.start();
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => server.close(resolve));
    await idp?.close();
  });

  let sequence = 0;
  let requestId = '';
  /** Every request of a recipe carries the walk's request id; the last one is the walked operation's. */
  const send = (method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse> =>
    t.http.request(method, path, { ...options, headers: { ...(options.headers ?? {}), 'x-request-id': requestId } });
  const auth = (): RequestOptions => ({ token });
  const shop = (body: unknown): RequestOptions => ({ body, apiKey: publishable, headers: { origin: SHOP } });

  const login = async (): Promise<{ accessToken: string; refreshToken: string; sessionId: string }> => {
    const res = await t.http.post('/v1/auth/login', { email: org.owner.email, password: org.owner.password });
    return { ...res.body, sessionId: res.body.refreshToken.split('.')[0] };
  };
  const booking = async (eventTypeId: string, time: string): Promise<string> => {
    const res = await t.http.post('/v1/bookings', bookingBody(eventTypeId, at(time)), { apiKey: org.apiKey });
    if (res.status !== 201) throw new Error(`booking failed: ${res.status} ${res.text}`);
    return res.body.booking.id;
  };
  const webhook = async (): Promise<string> =>
    (await t.http.post('/v1/webhooks', { url: `${serverUrl}/hook`, events: ['booking.created'] }, auth())).body.webhook.id;
  const calendar = async (): Promise<string> => {
    const res = await t.http.post('/v1/calendars', { type: 'ics', url: `${serverUrl}/${++sequence}/feed.ics` }, auth());
    if (res.status !== 201) throw new Error(`calendar failed: ${res.status} ${res.text}`);
    return res.body.calendar.id;
  };
  const member = async (): Promise<string> => (await inviteMember(t.http, token, org.owner.organizationId, { role: 'member' })).id;
  const orgPath = (): string => `/v1/organizations/${org.owner.organizationId}`;
  const routingForm = () => ({
    name: `Walk ${++sequence}`,
    fields: [{ id: 'size', label: 'Company size', type: 'number', required: true }],
    routes: [{ when: { all: [{ field: 'size', op: 'gte', value: 200 }] }, to: { eventTypeId: org.eventTypeId } }],
    fallback: { message: 'Thank you' },
  });
  const routingFormId = async (): Promise<string> =>
    (await t.http.post('/v1/routing-forms', routingForm(), auth())).body.routingForm.id as string;

  const oauthApp = async (): Promise<{ id: string; clientId: string }> =>
    (
      await t.http.post(
        '/v1/oauth-apps',
        { name: `Walk app ${++sequence}`, type: 'confidential', redirectUris: ['https://partner.example/cb'], scopes: ['team:read'] },
        auth(),
      )
    ).body.app;
  /** An authorization request waiting for consent (GET /oauth/authorize, outside /v1). */
  const oauthRequest = async (): Promise<string> => {
    const app = await oauthApp();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: 'https://partner.example/cb',
      scope: 'team:read',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const res = await fetch(`${t.url}/oauth/authorize?${query.toString()}`, { redirect: 'manual' });
    return new URLSearchParams(res.headers.get('location')!.split('?')[1]).get('request')!;
  };
  const sso = () => ({ issuer: idp.issuer, clientId: 'audit-walk', clientSecret: 'audit-walk-secret', domains: ['audit-walk.test'] });

  /** The walked request of each write operation, by operationId, with what it needs made first. */
  const recipes: Record<string, () => Promise<Walked>> = {
    putSso: async () => ({ res: await send('PUT', `${orgPath()}/sso`, { ...auth(), body: sso() }), resourceId: org.owner.organizationId }),
    deleteSso: async () => {
      await t.http.put(`${orgPath()}/sso`, sso(), auth());
      return { res: await send('DELETE', `${orgPath()}/sso`, auth()), resourceId: org.owner.organizationId };
    },
    createScimToken: async () => ({ res: await send('POST', `${orgPath()}/scim-token`, auth()), resourceId: org.owner.organizationId }),
    revokeScimToken: async () => {
      await t.http.post(`${orgPath()}/scim-token`, undefined, auth());
      return { res: await send('DELETE', `${orgPath()}/scim-token`, auth()), resourceId: org.owner.organizationId };
    },
    register: async () => {
      const res = await send('POST', '/v1/auth/register', {
        body: { email: uniqueEmail('walk'), password: 'correct horse battery', organizationName: 'Walk' },
      });
      return { res, resourceId: res.body.user.id };
    },
    login: async () => {
      const res = await send('POST', '/v1/auth/login', { body: { email: org.owner.email, password: org.owner.password } });
      return { res, resourceId: res.body.refreshToken.split('.')[0] };
    },
    refreshSession: async () => {
      const session = await login();
      return {
        res: await send('POST', '/v1/auth/refresh', { body: { refreshToken: session.refreshToken } }),
        resourceId: session.sessionId,
      };
    },
    logout: async () => {
      const session = await login();
      return { res: await send('POST', '/v1/auth/logout', { token: session.accessToken }), resourceId: session.sessionId };
    },
    deleteSession: async () => {
      const session = await login();
      return { res: await send('DELETE', `/v1/auth/sessions/${session.sessionId}`, auth()), resourceId: session.sessionId };
    },
    consoleLogin: async () => ({
      res: await send('POST', '/v1/auth/console/login', { body: { email: org.owner.email, password: org.owner.password } }),
    }),
    consoleRefresh: async () => {
      const session = await login();
      const cookie = `sched_console_refresh=${session.refreshToken}`;
      return { res: await send('POST', '/v1/auth/console/refresh', { headers: { cookie } }), resourceId: session.sessionId };
    },
    consoleLogout: async () => {
      const session = await login();
      const cookie = `sched_console_refresh=${session.refreshToken}`;
      return { res: await send('POST', '/v1/auth/console/logout', { headers: { cookie } }), resourceId: session.sessionId };
    },
    acceptInvitation: async () => {
      const invited = await inviteMember(t.http, token, org.owner.organizationId, { role: 'member' });
      // A loaded machine's mail worker may take longer than the helper's default 5 s.
      const [invitation] = await invitationTokens(t, invited.email, 1, 30_000);
      const res = await send('POST', '/v1/invitations/accept', { body: { token: invitation, password: 'member password 1' } });
      return { res, resourceId: invited.id };
    },
    updateCurrentUser: async () => ({
      res: await send('PATCH', '/v1/users/me', { ...auth(), body: { firstName: 'Walked' } }),
      resourceId: org.owner.userId,
    }),
    updateOrganization: async () => ({
      res: await send('PATCH', orgPath(), { ...auth(), body: { name: 'Walked organization' } }),
      resourceId: org.owner.organizationId,
    }),
    inviteMember: async () => {
      const res = await send('POST', `${orgPath()}/members`, { ...auth(), body: { email: uniqueEmail('walk'), role: 'member' } });
      return { res, resourceId: res.body.member.id };
    },
    updateMember: async () => {
      const id = await member();
      return { res: await send('PATCH', `${orgPath()}/members/${id}`, { ...auth(), body: { role: 'admin' } }), resourceId: id };
    },
    removeMember: async () => {
      const id = await member();
      return { res: await send('DELETE', `${orgPath()}/members/${id}`, auth()), resourceId: id };
    },
    createPublicHold: async () => {
      const res = await send('POST', '/v1/public/holds', shop({ eventTypeId: org.eventTypeId, startTime: at('12:30'), timezone: 'UTC' }));
      return { res, resourceId: res.body.hold.id };
    },
    releasePublicHold: async () => {
      const held = await t.http.post(
        '/v1/public/holds',
        { eventTypeId: org.eventTypeId, startTime: at('14:00'), timezone: 'UTC' },
        shop(undefined),
      );
      const res = await send('POST', `/v1/public/holds/${held.body.hold.id}/release`, shop({ holdToken: held.body.holdToken }));
      return { res, resourceId: held.body.hold.id };
    },
    createPublicBooking: async () => {
      const res = await send('POST', '/v1/public/bookings', shop(bookingBody(org.eventTypeId, at('13:00'))));
      return { res, resourceId: res.body.booking.id };
    },
    rotateCalendarFeed: async () => ({
      res: await send('POST', '/v1/users/me/calendar-feed/rotate', auth()),
      resourceId: org.owner.userId,
    }),
    createApiKey: async () => {
      const res = await send('POST', '/v1/api-keys', { ...auth(), body: { name: 'walk' } });
      return { res, resourceId: res.body.key.id };
    },
    updateApiKey: async () => {
      const { id } = await createApiKey(t.http, token);
      return { res: await send('PATCH', `/v1/api-keys/${id}`, { ...auth(), body: { name: 'renamed' } }), resourceId: id };
    },
    revokeApiKey: async () => {
      const { id } = await createApiKey(t.http, token);
      return { res: await send('DELETE', `/v1/api-keys/${id}`, auth()), resourceId: id };
    },
    createOAuthApp: async () => {
      const res = await send('POST', '/v1/oauth-apps', {
        ...auth(),
        body: { name: 'Walk app', type: 'public', redirectUris: ['https://partner.example/cb'], scopes: ['team:read'] },
      });
      return { res, resourceId: res.body.app?.id };
    },
    updateOAuthApp: async () => {
      const { id } = await oauthApp();
      return { res: await send('PATCH', `/v1/oauth-apps/${id}`, { ...auth(), body: { name: 'Renamed app' } }), resourceId: id };
    },
    deleteOAuthApp: async () => {
      const { id } = await oauthApp();
      return { res: await send('DELETE', `/v1/oauth-apps/${id}`, auth()), resourceId: id };
    },
    rotateOAuthAppSecret: async () => {
      const { id } = await oauthApp();
      return { res: await send('POST', `/v1/oauth-apps/${id}/secret`, auth()), resourceId: id };
    },
    approveOAuthRequest: async () => {
      const id = await oauthRequest();
      // The entry names the grant (created here), not the request.
      return { res: await send('POST', `/v1/oauth/requests/${id}/approve`, auth()) };
    },
    denyOAuthRequest: async () => {
      const id = await oauthRequest();
      return { res: await send('POST', `/v1/oauth/requests/${id}/deny`, auth()), resourceId: id };
    },
    revokeOAuthGrant: async () => {
      const request = await oauthRequest();
      await t.http.post(`/v1/oauth/requests/${request}/approve`, undefined, auth());
      const grants = await t.http.get('/v1/oauth-grants', auth());
      const id = (grants.body.grants as { id: string }[])[0].id;
      return { res: await send('DELETE', `/v1/oauth-grants/${id}`, auth()), resourceId: id };
    },
    createEventType: async () => {
      const res = await send('POST', '/v1/event-types', {
        ...auth(),
        body: { title: 'Walk', slug: `walk-${++sequence}`, durationMinutes: 30 },
      });
      return { res, resourceId: res.body.eventType.id };
    },
    updateEventType: async () => {
      const id = await createEventType(t, { token });
      return { res: await send('PATCH', `/v1/event-types/${id}`, { ...auth(), body: { title: 'Renamed' } }), resourceId: id };
    },
    deleteEventType: async () => {
      const id = await createEventType(t, { token });
      return { res: await send('DELETE', `/v1/event-types/${id}`, auth()), resourceId: id };
    },
    createHold: async () => {
      const res = await send('POST', '/v1/holds', {
        ...auth(),
        body: { eventTypeId: org.eventTypeId, startTime: at('12:00'), timezone: 'UTC' },
      });
      return { res, resourceId: res.body.hold.id };
    },
    deleteHold: async () => {
      const held = await t.http.post('/v1/holds', { eventTypeId: org.eventTypeId, startTime: at('15:00'), timezone: 'UTC' }, auth());
      return { res: await send('DELETE', `/v1/holds/${held.body.hold.id}`, auth()), resourceId: held.body.hold.id };
    },
    createWebhook: async () => {
      const res = await send('POST', '/v1/webhooks', { ...auth(), body: { url: `${serverUrl}/hook`, events: ['booking.created'] } });
      return { res, resourceId: res.body.webhook.id };
    },
    updateWebhook: async () => {
      const id = await webhook();
      return { res: await send('PATCH', `/v1/webhooks/${id}`, { ...auth(), body: { description: 'walked' } }), resourceId: id };
    },
    deleteWebhook: async () => {
      const id = await webhook();
      return { res: await send('DELETE', `/v1/webhooks/${id}`, auth()), resourceId: id };
    },
    testWebhook: async () => {
      const id = await webhook();
      return { res: await send('POST', `/v1/webhooks/${id}/test`, auth()), resourceId: id };
    },
    retryWebhookDelivery: async () => {
      const id = await webhook();
      const delivery =
        (await t.http.post(`/v1/webhooks/${id}/test`, undefined, auth())).body.delivery ??
        (await t.http.post(`/v1/webhooks/${id}/test`, undefined, auth())).body;
      const deliveryId: string = delivery.id;
      return { res: await send('POST', `/v1/webhooks/${id}/deliveries/${deliveryId}/retry`, auth()), resourceId: deliveryId };
    },
    reassignBooking: async () => {
      // A joined member with hours hosts a booking; it is given to the owner (free then).
      const invited = await inviteMember(t.http, token, org.owner.organizationId, { role: 'member' });
      const [invitation] = await invitationTokens(t, invited.email, 1, 30_000);
      const joined = await t.http.post('/v1/invitations/accept', { token: invitation, password: 'member password 1' });
      const userId: string = joined.body.member.userId;
      await putSchedule(t, { apiKey: org.apiKey }, 'UTC', WEEKDAYS_9_TO_5, userId);
      const eventTypeId = await createEventType(t, { token }, { durationMinutes: 30, hostUserIds: [userId] });
      const made = await t.http.post('/v1/bookings', bookingBody(eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey });
      if (made.status !== 201) throw new Error(`booking failed: ${made.status} ${made.text}`);
      const id: string = made.body.booking.id;
      return {
        res: await send('POST', `/v1/bookings/${id}/reassign`, { ...auth(), body: { hostUserId: org.owner.userId } }),
        resourceId: id,
      };
    },
    createOutOfOffice: async () => {
      const res = await send('POST', '/v1/out-of-office', {
        ...auth(),
        body: { startsAt: '2027-05-03T00:00:00Z', endsAt: '2027-05-04T00:00:00Z' },
      });
      return { res, resourceId: res.body.outOfOffice?.id };
    },
    putOutOfOfficeByExternalId: async () => {
      const body = { startsAt: '2027-05-10T00:00:00Z', endsAt: '2027-05-11T00:00:00Z' };
      const first = await t.http.request('PUT', '/v1/out-of-office/by-external-id/hr-walk-1', { ...auth(), body });
      // Replacing the entry: the entry it names is the one the first PUT made.
      const res = await send('PUT', '/v1/out-of-office/by-external-id/hr-walk-1', { ...auth(), body: { ...body, note: 'Walked' } });
      return { res, resourceId: first.body.outOfOffice?.id };
    },
    updateOutOfOffice: async () => {
      const body = { startsAt: '2027-05-17T00:00:00Z', endsAt: '2027-05-18T00:00:00Z' };
      const created = await t.http.post('/v1/out-of-office', body, auth());
      const id: string = created.body.outOfOffice.id;
      return { res: await send('PATCH', `/v1/out-of-office/${id}`, { ...auth(), body: { note: 'Walked' } }), resourceId: id };
    },
    deleteOutOfOffice: async () => {
      const body = { startsAt: '2027-05-24T00:00:00Z', endsAt: '2027-05-25T00:00:00Z' };
      const created = await t.http.post('/v1/out-of-office', body, auth());
      const id: string = created.body.outOfOffice.id;
      return { res: await send('DELETE', `/v1/out-of-office/${id}`, auth()), resourceId: id };
    },
    eraseAttendee: async () => {
      const email = 'erase-walk@example.com';
      const made = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, at('15:30'), { attendee: { email, firstName: 'Eve' } }), {
        apiKey: org.apiKey,
      });
      if (made.status !== 201) throw new Error(`booking failed: ${made.status} ${made.text}`);
      const res = await send('POST', '/v1/attendees/erase', { ...auth(), body: { email } });
      // The entry carries the counts, never the address (the leak check below looks for attendee addresses too).
      const [entry]: { resource_type: string; details: Record<string, number> }[] = await db.query(
        `SELECT resource_type, details FROM audit_entries WHERE request_id = $1 AND row_to_json(audit_entries)::text NOT LIKE '%erase-walk%'`,
        [requestId],
      );
      expect(entry).toEqual({
        resource_type: 'attendee',
        details: { bookings: 1, holds: 0, mails: expect.any(Number), deliveries: expect.any(Number) },
      });
      return { res, resourceId: null };
    },
    createBooking: async () => {
      const res = await send('POST', '/v1/bookings', { apiKey: org.apiKey, body: bookingBody(org.eventTypeId, at('09:00')) });
      return { res, resourceId: res.body.booking.id };
    },
    cancelBooking: async () => {
      const id = await booking(org.eventTypeId, '09:30');
      return { res: await send('POST', `/v1/bookings/${id}/cancel`, { apiKey: org.apiKey, body: {} }), resourceId: id };
    },
    rescheduleBooking: async () => {
      const id = await booking(org.eventTypeId, '10:00');
      return {
        res: await send('POST', `/v1/bookings/${id}/reschedule`, { apiKey: org.apiKey, body: { newStartTime: at('10:30') } }),
        resourceId: id,
      };
    },
    confirmBooking: async () => {
      const id = await booking(confirmTypeId, '11:00');
      return { res: await send('POST', `/v1/bookings/${id}/confirm`, { apiKey: org.apiKey }), resourceId: id };
    },
    declineBooking: async () => {
      const id = await booking(confirmTypeId, '11:30');
      return { res: await send('POST', `/v1/bookings/${id}/decline`, { apiKey: org.apiKey, body: {} }), resourceId: id };
    },
    markNoShow: async () => {
      const id = await booking(org.eventTypeId, '16:00');
      t.clock.set(at('16:10'));
      try {
        return {
          res: await send('POST', `/v1/bookings/${id}/no-show`, { apiKey: org.apiKey, body: { party: 'attendee' } }),
          resourceId: id,
        };
      } finally {
        t.clock.set('2027-03-01T06:00:00.000Z');
      }
    },
    createCalendar: async () => {
      const res = await send('POST', '/v1/calendars', { ...auth(), body: { type: 'ics', url: `${serverUrl}/walk/feed.ics` } });
      return { res, resourceId: res.body.calendar.id };
    },
    updateCalendar: async () => {
      const id = await calendar();
      return { res: await send('PATCH', `/v1/calendars/${id}`, { ...auth(), body: { name: 'Renamed' } }), resourceId: id };
    },
    deleteCalendar: async () => {
      const id = await calendar();
      return { res: await send('DELETE', `/v1/calendars/${id}`, auth()), resourceId: id };
    },
    syncCalendar: async () => {
      const id = await calendar();
      return { res: await send('POST', `/v1/calendars/${id}/sync`, auth()), resourceId: id };
    },
    replaceSchedule: async () => ({
      res: await send('PUT', '/v1/availability/schedules', {
        ...auth(),
        body: {
          timezone: 'UTC',
          schedules: [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, slots: [{ startTime: '09:00', endTime: '17:00' }] })),
        },
      }),
      resourceId: org.owner.userId,
    }),
    createOverride: async () => {
      const res = await send('POST', '/v1/availability/overrides', { ...auth(), body: { date: '2027-04-01', type: 'unavailable' } });
      return { res, resourceId: res.body.override.id };
    },
    createRoutingForm: async () => {
      const res = await send('POST', '/v1/routing-forms', { ...auth(), body: routingForm() });
      return { res, resourceId: res.body.routingForm.id };
    },
    updateRoutingForm: async () => {
      const id = await routingFormId();
      return { res: await send('PATCH', `/v1/routing-forms/${id}`, { ...auth(), body: { name: 'Renamed' } }), resourceId: id };
    },
    deleteRoutingForm: async () => {
      const id = await routingFormId();
      return { res: await send('DELETE', `/v1/routing-forms/${id}`, auth()), resourceId: id };
    },
    testRoutingForm: async () => {
      const id = await routingFormId();
      return { res: await send('POST', `/v1/routing-forms/${id}/test`, { ...auth(), body: { answers: { size: 500 } } }), resourceId: id };
    },
    submitRoutingFormResponse: async () => {
      const id = await routingFormId();
      const res = await send('POST', `/v1/routing-forms/${id}/responses`, { ...auth(), body: { answers: { size: 500 } } });
      return { res, resourceId: res.body.response?.id };
    },
    submitPublicRoutingFormResponse: async () => {
      const id = await routingFormId();
      const res = await send('POST', `/v1/public/routing-forms/${id}/responses`, shop({ answers: { size: 20 } }));
      return { res, resourceId: res.body.response?.id };
    },
    deleteOverride: async () => {
      const created = await t.http.post('/v1/availability/overrides', { date: '2027-04-02', type: 'unavailable' }, auth());
      return {
        res: await send('DELETE', `/v1/availability/overrides/${created.body.override.id}`, auth()),
        resourceId: created.body.override.id,
      };
    },
  };

  it('every write operation declares its action and leaves exactly one entry when it succeeds', async () => {
    const operations = Object.values(document.paths).flatMap((item) =>
      WRITE_METHODS.filter((method) => item[method]).map((method) => item[method] as OperationObject & { 'x-audit-action'?: string }),
    );
    expect(operations.length).toBeGreaterThan(40);
    const problems: string[] = [];
    for (const operation of operations) {
      const id = operation.operationId!;
      const action = operation['x-audit-action'];
      if (!action) {
        problems.push(`${id}: no @Audited action`);
        continue;
      }
      if (id === 'deleteOrganization') continue; // its own test below: the organization's entries go with it
      const recipe = recipes[id];
      if (!recipe) {
        problems.push(`${id}: no recipe in this walk`);
        continue;
      }
      requestId = `walk-${id}`;
      const { res, resourceId } = await recipe();
      if (res.status >= 300) {
        problems.push(`${id}: ${res.status} ${res.text}`);
        continue;
      }
      const entries: { action: string; resource_id: string | null; organization_id: string }[] = await db.query(
        `SELECT action, resource_id, organization_id FROM audit_entries WHERE request_id = $1`,
        [requestId],
      );
      if (entries.length !== 1 || entries[0].action !== action)
        problems.push(`${id}: entries ${JSON.stringify(entries)}, expected one ${action}`);
      else if (resourceId !== undefined && entries[0].resource_id !== resourceId)
        problems.push(`${id}: resource ${entries[0].resource_id}, expected ${resourceId}`);
    }
    expect(problems).toEqual([]);
    // Bookings' entries name the booking, never the attendee; no entry holds a key or a token.
    const leaks: unknown[] = await db.query(
      `SELECT id, action FROM audit_entries WHERE row_to_json(audit_entries)::text ~* '(attendee@example\\.com|[mp]k_(live|test)_[0-9A-Za-z]{20,}|o[ar]t_[0-9A-Za-z]{20,}|cs_[0-9A-Za-z]{20,})'`,
    );
    expect(leaks).toEqual([]);
    // Some 45 operations with their setup: seconds on a quiet machine, more when the machine is shared.
  }, 120_000);

  it('deleting an organization deletes its entries with it', async () => {
    const owner = await registerOwner(t.http);
    await createApiKey(t.http, owner.accessToken);
    const count = async (): Promise<number> =>
      Number((await db.query(`SELECT count(*) AS n FROM audit_entries WHERE organization_id = $1`, [owner.organizationId]))[0].n);
    expect(await count()).toBe(2);
    expect((await t.http.delete(`/v1/organizations/${owner.organizationId}`, { token: owner.accessToken })).status).toBe(204);
    expect(await count()).toBe(0);
  });
});
