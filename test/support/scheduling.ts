import type { TestApp } from './app.js';

export type Credential = { token: string } | { apiKey: string };

export interface DaySlots {
  dayOfWeek: number;
  slots: { startTime: string; endTime: string }[];
}

export async function putSchedule(t: TestApp, who: Credential, timezone: string, schedules: DaySlots[], userId?: string): Promise<void> {
  const query = userId ? `?userId=${userId}` : '';
  const res = await t.http.put(`/v1/availability/schedules${query}`, { timezone, schedules }, who);
  if (res.status !== 200) throw new Error(`schedule failed: ${res.status} ${res.text}`);
}

let slugs = 0;

export async function createEventType(t: TestApp, who: Credential, body: Record<string, unknown> = {}): Promise<string> {
  const res = await t.http.post('/v1/event-types', { title: 'Meeting', slug: `meeting-${++slugs}`, durationMinutes: 60, ...body }, who);
  if (res.status !== 201) throw new Error(`event type failed: ${res.status} ${res.text}`);
  return res.body.eventType.id;
}

export interface RenderedSlot {
  start: string;
  end: string;
  hostUserId: string;
}

/** GET /availability, failing loudly on anything but 200. */
export async function slots(
  t: TestApp,
  who: Credential,
  eventTypeId: string,
  start: string,
  end: string,
  timezone?: string,
): Promise<RenderedSlot[]> {
  const zone = timezone ? `&timezone=${encodeURIComponent(timezone)}` : '';
  const res = await t.http.get(`/v1/availability?eventTypeId=${eventTypeId}&start=${start}&end=${end}${zone}`, who);
  if (res.status !== 200) throw new Error(`availability failed: ${res.status} ${res.text}`);
  return res.body.slots;
}

/** Slot starts only, handy for tables of expected times. */
export async function starts(
  t: TestApp,
  who: Credential,
  eventTypeId: string,
  start: string,
  end: string,
  timezone?: string,
): Promise<string[]> {
  return (await slots(t, who, eventTypeId, start, end, timezone)).map((slot) => slot.start);
}

export async function check(
  t: TestApp,
  who: Credential,
  eventTypeId: string,
  startTime: string,
  timezone?: string,
): Promise<Record<string, unknown>> {
  const zone = timezone ? `&timezone=${encodeURIComponent(timezone)}` : '';
  const res = await t.http.get(`/v1/availability/check?eventTypeId=${eventTypeId}&startTime=${encodeURIComponent(startTime)}${zone}`, who);
  if (res.status !== 200) throw new Error(`check failed: ${res.status} ${res.text}`);
  return res.body;
}
