/** What the booking benchmarks set up: organizations with one host each, bookable all day, every day. */
export interface Target {
  apiKey: string;
  eventTypeId: string;
}

export async function post(url: string, path: string, body: unknown, token: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}${path}`, {
    method: path.includes('schedules') ? 'PUT' : 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/**
 * `hosts` organizations (`label` keeps their emails apart between benchmarks on one database), each with a
 * 5-minute event type bookable around the clock for two years and an API key with a high limit. Bookings of
 * one host serialize on that host's lock, so the realistic load spreads over hosts.
 */
export async function bookingTargets(url: string, hosts: number, label = 'bench'): Promise<Target[]> {
  const everyDay = [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({ dayOfWeek, slots: [{ startTime: '00:00', endTime: '24:00' }] }));
  const targets: Target[] = [];
  for (let i = 0; i < hosts; i++) {
    const owner = (await post(
      url,
      '/v1/auth/register',
      { email: `${label}${i}@example.com`, password: 'bench password', organizationName: `Bench ${i}` },
      '',
    )) as { accessToken: string };
    await post(url, '/v1/availability/schedules', { timezone: 'UTC', schedules: everyDay }, owner.accessToken);
    const eventType = (
      await post(url, '/v1/event-types', { title: 'Load', slug: 'load', durationMinutes: 5, bookingWindowDays: 730 }, owner.accessToken)
    ).eventType as { id: string };
    const apiKey = (await post(url, '/v1/api-keys', { name: 'load', rateLimitPerMinute: 10000 }, owner.accessToken)).apiKey as string;
    targets.push({ apiKey, eventTypeId: eventType.id });
  }
  return targets;
}
