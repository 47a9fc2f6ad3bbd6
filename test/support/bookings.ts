import type { TestApp } from './app.js';
import { createApiKey, registerOwner, type RegisteredOwner } from './factories.js';
import { createEventType, putSchedule } from './scheduling.js';

/** Monday 2027-03-01, 06:00 UTC: the week ahead is bookable 09:00–17:00 UTC on weekdays. */
export const MONDAY = '2027-03-01';
export const NOW = '2027-03-01T06:00:00.000Z';
export const WEEKDAYS_9_TO_5 = [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, slots: [{ startTime: '09:00', endTime: '17:00' }] }));

export interface BookingOrg {
  owner: RegisteredOwner;
  apiKey: string;
  testKey: string;
  eventTypeId: string;
}

/** An organization whose owner hosts a 30-minute one_on_one event type, with a live and a test key. */
export async function bookingOrg(t: TestApp, eventType: Record<string, unknown> = {}): Promise<BookingOrg> {
  t.clock.set(NOW);
  const owner = await registerOwner(t.http);
  await putSchedule(t, { token: owner.accessToken }, 'UTC', WEEKDAYS_9_TO_5);
  const apiKey = (await createApiKey(t.http, owner.accessToken, { rateLimitPerMinute: 10000 })).apiKey;
  const testKey = (await createApiKey(t.http, owner.accessToken, { rateLimitPerMinute: 10000, mode: 'test' })).apiKey;
  const eventTypeId = await createEventType(t, { token: owner.accessToken }, { durationMinutes: 30, ...eventType });
  return { owner, apiKey, testKey, eventTypeId };
}

export function bookingBody(eventTypeId: string, startTime: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    eventTypeId,
    startTime,
    timezone: 'UTC',
    attendee: { email: 'attendee@example.com', firstName: 'Ann', lastName: 'Attendee' },
    ...extra,
  };
}
