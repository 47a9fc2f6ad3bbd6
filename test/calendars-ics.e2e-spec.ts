import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { CalendarSecretReseal } from '../apps/api/src/modules/calendars/calendar-secret-reseal.service.js';
import { CalendarSecrets } from '../apps/api/src/modules/calendars/calendar-secrets.service.js';
import { startTestApp, TEST_ENCRYPTION_KEY, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg } from './support/bookings.js';
import { addMember } from './support/factories.js';
import { waitFor } from './support/process.js';

/** An ICS feed of one busy hour per entry, e.g. ['20270302T100000Z/20270302T110000Z']. */
function feed(...busy: string[]): string {
  const events = busy.flatMap((range, i) => {
    const [start, end] = range.split('/');
    return [
      'BEGIN:VEVENT',
      `UID:busy-${i}@feed.test`,
      'DTSTAMP:20270101T000000Z',
      `DTSTART:${start}`,
      `DTEND:${end}`,
      'SUMMARY:Secret meeting',
      'END:VEVENT',
    ];
  });
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//feed.test//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
}

/** 100,000 all-day events (the most a 5 MiB feed can hold), on the 700 days from 2027-03-01. */
function manyEvents(): string {
  const first = Date.parse('2027-03-01T00:00:00Z');
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//feed.test//EN'];
  for (let i = 0; i < 100_000; i++) {
    const day = new Date(first + (i % 700) * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
    lines.push('BEGIN:VEVENT', `DTSTART;VALUE=DATE:${day}`, 'END:VEVENT');
  }
  return [...lines, 'END:VCALENDAR', ''].join('\n');
}

/** The member's other calendar, served over HTTP inside the test. */
class FeedServer {
  body = feed('20270302T100000Z/20270302T110000Z');
  etag = '"v1"';
  status = 200;
  requests: { path: string; ifNoneMatch: string | undefined }[] = [];
  private many: string | undefined;
  private server!: Server;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = req.url ?? '/';
      this.requests.push({ path, ifNoneMatch: req.headers['if-none-match'] });
      if (path.startsWith('/redirect/')) {
        const left = Number(path.split('/')[2]);
        res.writeHead(302, { location: left > 0 ? `/redirect/${left - 1}` : '/private/feed.ics' }).end();
      } else if (path === '/html') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Sign in</body></html>');
      } else if (path === '/drip.ics') {
        // A body that never ends: one byte a while, forever.
        res.writeHead(200, { 'content-type': 'text/calendar' });
        res.write('BEGIN:VCALENDAR\r\n');
        const timer = setInterval(() => res.write(' '), 200);
        res.on('close', () => clearInterval(timer));
      } else if (path === '/hostile.ics') {
        res
          .writeHead(200, { 'content-type': 'text/calendar' })
          .end(
            [
              'BEGIN:VCALENDAR',
              'BEGIN:VEVENT',
              'UID:storm@feed.test',
              'DTSTART:20270301T000000Z',
              'DURATION:PT1S',
              'RRULE:FREQ=SECONDLY',
              'END:VEVENT',
              'END:VCALENDAR',
              '',
            ].join('\r\n'),
          );
      } else if (path === '/many.ics') {
        this.many ??= manyEvents();
        res.writeHead(200, { 'content-type': 'text/calendar' }).end(this.many);
      } else if (path === '/denied') {
        res.writeHead(401).end();
      } else if (path === '/huge.ics') {
        res.writeHead(200, { 'content-type': 'text/calendar' });
        res.end(Buffer.alloc(6 * 1024 * 1024, 'A'));
      } else if (this.status !== 200) {
        res.writeHead(this.status).end();
      } else if (req.headers['if-none-match'] === this.etag) {
        res.writeHead(304, { etag: this.etag }).end();
      } else {
        res.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8', etag: this.etag }).end(this.body);
      }
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  url(path = '/private/feed.ics?token=s3cr3t'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('calendars: ICS feeds block slots', () => {
  let t: TestApp;
  let source: FeedServer;
  let org: BookingOrg;
  let auth: { token: string };

  beforeAll(async () => {
    t = await startTestApp({ env: { CALENDAR_TIMEOUT_MS: '2000' } });
    source = new FeedServer();
    await source.start();
    org = await bookingOrg(t);
    auth = { token: org.owner.accessToken };
  });

  afterAll(async () => {
    await t.close();
    await source.stop();
  });

  const check = async (startTime: string): Promise<any> =>
    (await t.http.get(`/v1/availability/check?eventTypeId=${org.eventTypeId}&startTime=${startTime}`, { apiKey: org.apiKey })).body;

  let calendarId: string;

  it('reads the feed before answering 201, hides the secret path, and its busy times block at once', async () => {
    const res = await t.http.post('/v1/calendars', { type: 'ics', url: source.url() }, auth);
    expect(res.status).toBe(201);
    calendarId = res.body.calendar.id;
    expect(res.body.calendar).toMatchObject({
      userId: org.owner.userId,
      type: 'ics',
      url: source.url('/…'),
      status: 'ok',
      busyCount: 1,
      blocksAvailability: true,
      calendars: [],
      lastSyncError: null,
    });
    expect(JSON.stringify(res.body)).not.toContain('s3cr3t');
    const [row] = await t.app.get(DataSource).query(`SELECT sealed_url FROM calendar_connections WHERE id = $1`, [calendarId]);
    expect(row.sealed_url).not.toContain('s3cr3t');

    expect(await check('2027-03-02T10:00:00Z')).toEqual({ available: false, reason: 'calendar_conflict' });
    expect(await check('2027-03-02T11:00:00Z')).toEqual({ available: true });
    const booking = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:30:00Z'), { apiKey: org.apiKey });
    expect(booking.status).toBe(409);
    expect(booking.body).toMatchObject({ code: 'SLOT_UNAVAILABLE', details: [{ field: 'startTime', message: 'calendar_conflict' }] });
    // Test-mode keys are blocked too: a host is busy whatever the mode.
    expect((await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.testKey })).status).toBe(
      409,
    );

    const busy = await t.http.get('/v1/calendars/busy?start=2027-03-02&end=2027-03-02&timezone=Europe/Berlin', auth);
    expect(busy.status).toBe(200);
    expect(busy.body).toEqual({
      busy: [{ start: '2027-03-02T11:00:00.000+01:00', end: '2027-03-02T12:00:00.000+01:00', calendarId }],
      timezone: 'Europe/Berlin',
    });
    expect(JSON.stringify(busy.body)).not.toContain('Secret meeting');
  });

  it('refuses the same source twice, bad URLs and sources that cannot be read, with the documented codes', async () => {
    const requests = source.requests.length;
    const again = await t.http.post('/v1/calendars', { type: 'ics', url: source.url() }, auth);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('CALENDAR_EXISTS');
    expect(source.requests.length).toBe(requests); // refused before the source is asked

    const unreadable: [string, string][] = [
      [source.url('/html'), 'iCalendar'],
      [source.url('/denied'), 'HTTP 401'],
      [source.url('/redirect/5'), 'redirects'],
      [source.url('/huge.ics'), '5 MiB'],
      ['http://127.0.0.1:1/feed.ics', 'could not be reached'],
    ];
    for (const [url, reason] of unreadable) {
      const res = await t.http.post('/v1/calendars', { type: 'ics', url }, auth);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('CALENDAR_UNREACHABLE');
      expect(res.body.details).toEqual([{ field: 'url', message: expect.stringContaining(reason) }]);
      // Which network error it was (ECONNREFUSED, ENETUNREACH …) would tell a caller which addresses answer: the log keeps it.
      expect(JSON.stringify(res.body)).not.toMatch(/E(CONNREFUSED|CONNRESET|NETUNREACH|HOSTUNREACH|AI_AGAIN|NOTFOUND|TIMEDOUT)/);
    }
    // Two redirects are followed.
    const redirected = await t.http.post('/v1/calendars', { type: 'ics', url: source.url('/redirect/1'), name: 'Via redirect' }, auth);
    expect(redirected.status).toBe(201);
    expect((await t.http.delete(`/v1/calendars/${redirected.body.calendar.id}`, auth)).status).toBe(204);

    for (const body of [
      { type: 'ics', url: 'not a url' },
      { type: 'ics', url: 'ftp://example.com/x.ics' },
      { type: 'outlook', url: source.url() },
      { type: 'ics' },
      { type: 'caldav', url: source.url('/dav/'), username: 'ann' },
    ]) {
      const res = await t.http.post('/v1/calendars', body, auth);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
    const none = await t.app.get(DataSource).query(`SELECT count(*)::int AS n FROM calendar_connections`);
    expect(none[0].n).toBe(1);
  });

  it('syncs on demand in the background with a conditional request, and a failure keeps the last busy times', async () => {
    source.body = feed('20270303T130000Z/20270303T140000Z', '20270304T090000Z/20270304T093000Z');
    source.etag = '"v2"';
    const sync = await t.http.post(`/v1/calendars/${calendarId}/sync`, undefined, auth);
    expect(sync.status).toBe(202);
    await waitFor(async () => ((await check('2027-03-03T13:00:00Z')).available === false ? true : undefined), 10_000, 'the new busy times');
    expect(await check('2027-03-02T10:00:00Z')).toEqual({ available: true });
    expect((await t.http.get(`/v1/calendars/${calendarId}`, auth)).body.calendar).toMatchObject({ status: 'ok', busyCount: 2 });

    // Unchanged feed: a 304 keeps what is stored.
    const before = source.requests.length;
    await t.http.post(`/v1/calendars/${calendarId}/sync`, undefined, auth);
    await waitFor(async () => (source.requests.length > before ? true : undefined), 10_000, 'the conditional request');
    expect(source.requests.at(-1)?.ifNoneMatch).toBe('"v2"');

    source.status = 500;
    await t.http.post(`/v1/calendars/${calendarId}/sync`, undefined, auth);
    const failed = await waitFor(
      async () => {
        const calendar = (await t.http.get(`/v1/calendars/${calendarId}`, auth)).body.calendar;
        return calendar.status === 'error' ? calendar : undefined;
      },
      10_000,
      'the failed sync',
    );
    expect(failed).toMatchObject({ status: 'error', lastSyncError: 'the calendar answered HTTP 500', busyCount: 2 });
    expect(await check('2027-03-03T13:00:00Z')).toEqual({ available: false, reason: 'calendar_conflict' });
    const events = await t.app.get(DataSource).query(`SELECT type, data FROM domain_events WHERE type = 'calendar.sync_failed'`);
    expect(events).toHaveLength(1);
    expect(events[0].data.calendar).toMatchObject({ id: calendarId, status: 'error' });
    expect(JSON.stringify(events[0].data)).not.toContain('s3cr3t');
    source.status = 200;
  });

  it('stops blocking when told to, or when disconnected', async () => {
    const patched = await t.http.patch(`/v1/calendars/${calendarId}`, { blocksAvailability: false, name: 'Personal' }, auth);
    expect(patched.status).toBe(200);
    expect(patched.body.calendar).toMatchObject({ name: 'Personal', blocksAvailability: false });
    expect(await check('2027-03-03T13:00:00Z')).toEqual({ available: true });
    await t.http.patch(`/v1/calendars/${calendarId}`, { blocksAvailability: true }, auth);
    expect(await check('2027-03-03T13:00:00Z')).toEqual({ available: false, reason: 'calendar_conflict' });

    const list = await t.http.get('/v1/calendars', auth);
    expect(list.body).toMatchObject({ totalCount: 1, hasMore: false, calendars: [{ id: calendarId }] });
    expect((await t.http.delete(`/v1/calendars/${calendarId}`, auth)).status).toBe(204);
    expect(await check('2027-03-03T13:00:00Z')).toEqual({ available: true });
    expect((await t.http.get(`/v1/calendars/${calendarId}`, auth)).status).toBe(404);
  });

  it('keeps members to their own calendars and other organizations out', async () => {
    const member = await addMember(t, org.owner.accessToken, org.owner.organizationId, 'member');
    const own = await t.http.post('/v1/calendars', { type: 'ics', url: source.url('/member.ics') }, { token: member.accessToken });
    expect(own.status).toBe(201);
    expect(own.body.calendar.userId).toBe(member.userId);
    // The owner sees and manages it with userId; the member may not look at the owner's.
    expect((await t.http.get(`/v1/calendars?userId=${member.userId}`, auth)).body.totalCount).toBe(1);
    expect((await t.http.get(`/v1/calendars?userId=${org.owner.userId}`, { token: member.accessToken })).status).toBe(403);
    // Another organization gets 404 for the id; a malformed id is 400.
    const other = await bookingOrg(t);
    expect((await t.http.get(`/v1/calendars/${own.body.calendar.id}`, { token: other.owner.accessToken })).status).toBe(404);
    expect((await t.http.get('/v1/calendars/cal_bad', auth)).status).toBe(400);
  });

  it('refuses a source that would expand without end, in bounded time, while other requests are answered', async () => {
    const started = Date.now();
    const pending = t.http.post('/v1/calendars', { type: 'ics', url: source.url('/hostile.ics') }, auth);
    const health = await t.http.get('/health');
    const res = await pending;
    expect(health.status).toBe(200);
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: 'url', message: expect.stringContaining('too large to read') }]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('gives up on a source that drips its body forever, after CALENDAR_TIMEOUT_MS', async () => {
    const started = Date.now();
    const res = await t.http.post('/v1/calendars', { type: 'ics', url: source.url('/drip.ics') }, auth);
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: 'url', message: 'the calendar did not answer within 2000 ms' }]);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('allows at most 20 calendars per member', async () => {
    const admin = await addMember(t, org.owner.accessToken, org.owner.organizationId, 'admin');
    const own = { token: admin.accessToken };
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      statuses.push((await t.http.post('/v1/calendars', { type: 'ics', url: source.url(`/limit.ics?n=${i}`) }, own)).status);
    }
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(201));
    const last = await t.http.post('/v1/calendars', { type: 'ics', url: source.url('/limit.ics?n=99') }, own);
    expect(last.status).toBe(409);
    expect(last.body.code).toBe('CALENDAR_LIMIT_REACHED');
  });

  it('rotates ENCRYPTION_KEY: the previous key still opens the feed URL, the job re-seals it under the new one', async () => {
    const member = await addMember(t, org.owner.accessToken, org.owner.organizationId, 'member');
    const own = { token: member.accessToken };
    const created = await t.http.post('/v1/calendars', { type: 'ics', url: source.url('/rotated.ics?token=s3cr3t') }, own);
    expect(created.status).toBe(201);
    const id = created.body.calendar.id;
    const sealed = async (): Promise<string> =>
      (await t.app.get(DataSource).query(`SELECT sealed_url FROM calendar_connections WHERE id = $1`, [id]))[0].sealed_url;
    const before = await sealed();
    const rotated = await startTestApp({
      databaseUrl: t.databaseUrl,
      env: { ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'), ENCRYPTION_KEY_PREVIOUS: TEST_ENCRYPTION_KEY, RUN_WORKERS: 'false' },
    });
    try {
      const reseal = rotated.app.get(CalendarSecretReseal);
      expect(await reseal.resealAll()).toBeGreaterThanOrEqual(1);
      expect(await sealed()).not.toBe(before);
      expect(await sealed()).not.toContain('s3cr3t');
      expect(await reseal.resealAll()).toBe(0);
      // The new key opens it; the old one alone no longer does.
      const after = await sealed();
      expect(rotated.app.get(CalendarSecrets).open(after, id)).toBe(source.url('/rotated.ics?token=s3cr3t'));
      expect(t.app.get(CalendarSecrets).open(before, id)).toBe(source.url('/rotated.ics?token=s3cr3t'));
      expect(() => t.app.get(CalendarSecrets).open(after, id)).toThrow();
    } finally {
      await rotated.app.close();
    }
  });

  it('with CALENDAR_ALLOW_PRIVATE_URLS=false refuses private and plain-http sources with 400 naming url, without connecting', async () => {
    const strict = await startTestApp({ databaseUrl: t.databaseUrl, env: { CALENDAR_ALLOW_PRIVATE_URLS: 'false', RUN_WORKERS: 'false' } });
    try {
      const requests = source.requests.length;
      const port = new URL(source.url()).port;
      for (const body of [
        { type: 'ics', url: source.url() },
        { type: 'ics', url: `https://127.0.0.1:${port}/feed.ics` },
        { type: 'ics', url: `webcal://localhost:${port}/feed.ics` },
        { type: 'ics', url: 'https://169.254.169.254/latest/meta-data/' },
        { type: 'ics', url: 'https://10.0.0.1/feed.ics' },
        { type: 'ics', url: 'https://[::1]/feed.ics' },
        { type: 'ics', url: 'http://93.184.216.34/feed.ics' },
        { type: 'caldav', url: `https://127.0.0.1:${port}/dav/`, username: 'ann', password: 'pw' },
      ]) {
        const res = await strict.http.post('/v1/calendars', body, auth);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
        expect(res.body.details).toEqual([{ field: 'url', message: expect.stringContaining('public addresses') }]);
      }
      expect(source.requests.length).toBe(requests);
    } finally {
      await strict.app.close();
    }
  });

  it('reads 100,000 events off the event loop: /health and another organization’s availability stay fast meanwhile', async () => {
    // An instance of its own with room for the read: this file's 2 s CALENDAR_TIMEOUT_MS is for the dripping source, and
    // the parse alone takes 2.5 s on a quiet machine (more with the other test files running beside it).
    const roomy = await startTestApp({
      databaseUrl: t.databaseUrl,
      clock: t.clock,
      env: { CALENDAR_TIMEOUT_MS: '20000', RUN_WORKERS: 'false', DATA_DIR: t.config.dataDir },
    });
    try {
      await readsManyEvents(roomy);
    } finally {
      await roomy.app.close();
    }
  });

  async function readsManyEvents(t: TestApp): Promise<void> {
    const other = await bookingOrg(t);
    const availability = `/v1/availability?eventTypeId=${other.eventTypeId}&start=2027-03-01&end=2027-03-07&timezone=Europe/Berlin`;
    expect((await t.http.get(availability, { apiKey: other.apiKey })).status).toBe(200);
    const member = await addMember(t, org.owner.accessToken, org.owner.organizationId, 'member');
    const started = Date.now();
    let done = false;
    const pending = t.http
      .post('/v1/calendars', { type: 'ics', url: source.url('/many.ics') }, { token: member.accessToken })
      .finally(() => {
        done = true;
      });
    const latencies: number[] = [];
    while (!done) {
      const asked = performance.now();
      const [health, slots] = await Promise.all([t.http.get('/health'), t.http.get(availability, { apiKey: other.apiKey })]);
      latencies.push(performance.now() - asked);
      expect([health.status, slots.status]).toEqual([200, 200]);
    }
    const created = await pending;
    expect(created.status).toBe(201);
    expect(created.body.calendar).toMatchObject({ status: 'ok', busyCount: 100_000 });
    // Read within the instance's CALENDAR_TIMEOUT_MS, or the 201 would be a 422; the wall time beside it depends on what
    // else the machine runs (5.8 s in CI, 15 s with three test workers on two busy cores), so it is logged, not bounded.
    expect(latencies.length).toBeGreaterThan(2);
    // Each pair of requests answered while the feed was read: no parse-sized stall. The same parse on the event loop
    // held them for the whole parse (1.2 s quiet, more beside other test files); off it, the slowest pair takes ~150 ms
    // on a quiet machine and up to ~650 ms with other files' workers on the same two cores. So: under 600 ms, or
    // well under the read's own duration when the machine is that busy.
    const elapsed = Date.now() - started;
    expect(Math.max(...latencies)).toBeLessThan(Math.max(600, elapsed * 0.4));
    console.log(
      `100,000 events read in ${Date.now() - started} ms; /health + availability answered ${latencies.length} times, slowest ${Math.round(Math.max(...latencies))} ms`,
    );
  }
});
