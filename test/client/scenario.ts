import createClient from 'openapi-fetch';
import type { paths } from '@app/api-types';

export interface ScenarioResult {
  bookingId: string;
  rescheduledId: string;
  listed: Array<{ id: string; status: string }>;
}

function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what}: no data`);
  return value;
}

/**
 * What a partner writes against a client generated from the published document: every path, body and
 * response below is typed by `schema.ts`, so a route or schema change breaks this file's type-check.
 */
export async function runScenario(baseUrl: string, email: string, from: string, to: string): Promise<ScenarioResult> {
  const anonymous = createClient<paths>({ baseUrl });
  const registered = await anonymous.POST('/v1/auth/register', {
    body: { email, password: 'a long enough password', organizationName: 'Generated Client Inc', timezone: 'UTC' },
  });
  const session = must(registered.data, 'register');

  const jwt = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${session.accessToken}` } });
  const created = await jwt.POST('/v1/api-keys', {
    body: { name: 'scenario', scopes: ['event_types:write', 'availability:read', 'availability:write', 'bookings:read', 'bookings:write'] },
  });
  const key = must(created.data, 'create key');

  const api = createClient<paths>({ baseUrl, headers: { Authorization: `ApiKey ${key.apiKey}` } });
  const eventType = must(
    (await api.POST('/v1/event-types', { body: { title: 'Intro call', slug: 'intro-call', durationMinutes: 30 } })).data,
    'event type',
  );
  must(
    (
      await api.PUT('/v1/availability/schedules', {
        body: {
          timezone: 'UTC',
          schedules: [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, slots: [{ startTime: '09:00', endTime: '12:00' }] })),
        },
      })
    ).data,
    'schedule',
  );
  const available = must(
    (
      await api.GET('/v1/availability', {
        params: { query: { eventTypeId: eventType.eventType.id, start: from, end: to, timezone: 'UTC' } },
      })
    ).data,
    'availability',
  );
  const [first, second] = available.slots;
  if (!first || !second) throw new Error('fewer than two slots');

  const booked = must(
    (
      await api.POST('/v1/bookings', {
        params: { header: { 'Idempotency-Key': `scenario-${email}` } },
        body: {
          eventTypeId: eventType.eventType.id,
          startTime: first.start,
          timezone: 'UTC',
          attendee: { email: 'attendee@example.com', firstName: 'Ann' },
        },
      })
    ).data,
    'book',
  );
  const moved = must(
    (
      await api.POST('/v1/bookings/{id}/reschedule', {
        params: { path: { id: booked.booking.id } },
        body: { newStartTime: second.start, reason: 'moved by the scenario' },
      })
    ).data,
    'reschedule',
  );
  must(
    (await api.POST('/v1/bookings/{id}/cancel', { params: { path: { id: moved.booking.id } }, body: { reason: 'done' } })).data,
    'cancel',
  );
  const listed = must((await api.GET('/v1/bookings', { params: { query: { limit: 10 } } })).data, 'list');
  return {
    bookingId: booked.booking.id,
    rescheduledId: moved.booking.id,
    listed: listed.bookings.map((booking) => ({ id: booking.id, status: booking.status })),
  };
}
