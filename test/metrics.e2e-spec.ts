import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { ConfigError, loadConfig } from '@app/common';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg } from './support/bookings.js';
import { PrometheusServer, promtool, samples, valueOf, type VectorSample } from './support/prometheus.js';
import { createWebhook, eventually, WebhookReceiver } from './support/webhooks.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const DEPLOY = join(process.cwd(), 'deploy');
const JOB = 'scheduling-api';

const only = (result: VectorSample[]): number | undefined => (result.length === 1 ? result[0].value : undefined);

describe('GET /metrics (contract § 19) scraped by a real Prometheus', () => {
  let t: TestApp;
  let prometheus: PrometheusServer;
  let org: BookingOrg;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    // No workers: what the bookings queue stays due, so the queue lag is there to see.
    t = await startTestApp({ env: { METRICS_TOKEN: TOKEN, RUN_WORKERS: 'false' } });
    [prometheus, org, receiver] = await Promise.all([
      PrometheusServer.start(JOB, { address: new URL(t.url).host, bearerToken: TOKEN }),
      bookingOrg(t, { recurrence: { frequency: 'weekly', interval: 1, maxCount: 4 } }),
      WebhookReceiver.start(),
    ]);
  });
  afterAll(async () => {
    await prometheus?.stop();
    await receiver?.stop();
    await t?.close();
  });

  const scrape = (headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) => fetch(`${t.url}/metrics`, { headers });
  let scraped = '';

  it('METRICS_TOKEN shorter than 16 characters, or with a space, stops the boot naming it', () => {
    for (const token of ['fifteen-chars!!', 'sixteen chars ok']) {
      expect(() => loadConfig({ METRICS_TOKEN: token })).toThrow(ConfigError);
      expect(() => loadConfig({ METRICS_TOKEN: token })).toThrow(/^METRICS_TOKEN must be at least 16 visible ASCII characters/);
    }
    expect(loadConfig({ METRICS_TOKEN: 'sixteen-chars-ok' }).metricsToken).toBe('sixteen-chars-ok');
    expect(loadConfig({}).metricsToken).toBeUndefined();
  });

  it('with METRICS_TOKEN, answers 401 without it, with a wrong one or another scheme, from loopback too', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      { authorization: `Basic ${Buffer.from(`prometheus:${TOKEN}`).toString('base64')}` },
      { authorization: TOKEN },
    ]) {
      const res = await scrape(headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      const body = (await res.json()) as { code: string; requestId: string };
      expect(body).toMatchObject({ code: 'UNAUTHORIZED', requestId: res.headers.get('x-request-id') });
    }
    const ok = await scrape({ authorization: `bearer  ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(ok.headers.get('cache-control')).toBe('no-store');
  });

  it('counts a burst of bookings by mode and refusal, routes by template; promtool finds nothing; Prometheus sees the rate and the queue lag', async () => {
    await createWebhook(t.http, { apiKey: org.apiKey }, { url: receiver.url('/hook'), events: ['booking.created'] });
    const at = (i: number) => new Date(Date.parse('2027-03-02T09:00:00Z') + i * 30 * 60_000).toISOString();
    const postBookings = `http_requests_total{job="${JOB}",method="POST",route="/v1/bookings"}`;
    // Prometheus has the series before the burst (a counter's first sample is no increase), from one booking with a key.
    const keyed = { apiKey: org.apiKey, headers: { 'idempotency-key': 'metrics-burst-1' } };
    const first = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, at(12)), keyed);
    await prometheus.until(`sum(${postBookings})`, (r) => only(r) === 1);
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, i) => t.http.post('/v1/bookings', bookingBody(org.eventTypeId, at(i)), { apiKey: org.apiKey })),
    );
    expect(burst.map((res) => res.status)).toEqual(Array(12).fill(201));
    const taken = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, at(0)), { apiKey: org.apiKey });
    expect(taken.body.code).toBe('SLOT_UNAVAILABLE');
    const replay = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, at(12)), keyed);
    expect([first.status, replay.status, replay.headers.get('idempotent-replayed')]).toEqual([201, 201, 'true']);
    const series = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, at(13), { recurrenceCount: 3 }), {
      apiKey: org.apiKey,
    });
    const testMode = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, at(0)), { apiKey: org.testKey });
    const invalid = await t.http.post(
      '/v1/bookings',
      { ...bookingBody(org.eventTypeId, at(14)), startTime: 'soon' },
      { apiKey: org.apiKey },
    );
    const hold = await t.http.post(
      '/v1/holds',
      { eventTypeId: org.eventTypeId, startTime: at(15), timezone: 'UTC' },
      { apiKey: org.apiKey },
    );
    expect([series.status, testMode.status, invalid.status, hold.status]).toEqual([201, 201, 400, 201]);
    const bookingId = burst[0].body.booking.id as string;
    expect((await t.http.get(`/v1/bookings/${bookingId}`, { apiKey: org.apiKey })).status).toBe(200);
    expect((await t.http.get(`/v1/no-such-route/${bookingId}`, { apiKey: org.apiKey })).status).toBe(404);

    const res = await scrape();
    const text = await res.text();
    scraped = text;
    expect(await promtool(['check', 'metrics'], text)).toEqual({ code: 0, output: '' });

    // Every family of the contract, with exactly its labels.
    const families: [string, string, string[]][] = [
      ['http_requests_total', 'counter', ['method', 'route', 'status']],
      ['http_request_duration_seconds', 'histogram', ['method', 'route']],
      ['bookings_created_total', 'counter', ['mode']],
      ['bookings_refused_total', 'counter', ['reason']],
      ['holds_active', 'gauge', []],
      ['db_pool_connections', 'gauge', ['state']],
      ['queue_jobs', 'gauge', ['queue', 'state']],
      ['queue_oldest_due_seconds', 'gauge', ['queue']],
      ['webhook_attempts_total', 'counter', ['outcome']],
    ];
    for (const [name, type, labels] of families) {
      expect(text).toContain(`# TYPE ${name} ${type}\n`);
      const lines = samples(text, type === 'histogram' ? `${name}_count` : name);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(Object.keys(line.labels).sort()).toEqual([...labels].sort());
    }
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
    ])
      expect(samples(text, name).length).toBeGreaterThan(0);

    // 12 + the keyed one (its replay is not a second booking) + 3 of the series; the test key's one apart.
    expect(valueOf(text, 'bookings_created_total', { mode: 'live' })).toBe(16);
    expect(valueOf(text, 'bookings_created_total', { mode: 'test' })).toBe(1);
    expect(
      samples(text, 'bookings_refused_total')
        .map((s) => [s.labels.reason, s.value])
        .sort(),
    ).toEqual([
      ['already_booked', 1],
      ['validation_error', 1],
    ]);
    expect(valueOf(text, 'http_requests_total', { method: 'POST', route: '/v1/bookings', status: '201' })).toBe(16);
    expect(valueOf(text, 'http_requests_total', { method: 'GET', route: '/v1/bookings/:id', status: '200' })).toBe(1);
    expect(valueOf(text, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(valueOf(text, 'http_request_duration_seconds_count', { method: 'POST', route: '/v1/bookings' })).toBe(18);
    const routes = new Set(samples(text, 'http_requests_total').map((s) => s.labels.route));
    expect([...routes].filter((route) => route.includes(bookingId) || route.includes('no-such-route'))).toEqual([]);
    expect(valueOf(text, 'db_pool_connections', { state: 'idle' })).toBeGreaterThan(0);
    expect(valueOf(text, 'db_pool_connections', { state: 'waiting' })).toBe(0);
    expect(valueOf(text, 'webhook_attempts_total', { outcome: 'succeeded' })).toBe(0);

    // What Prometheus made of its own scrapes, every second.
    expect((await prometheus.targets()).map((target) => [target.health, target.lastError])).toEqual([['up', '']]);
    await prometheus.until(`sum(rate(${postBookings}[1m]))`, (r) => (only(r) ?? 0) > 0);
    await prometheus.until(`sum(${postBookings})`, (r) => only(r) === 18);
    await prometheus.until(`sum(rate(bookings_created_total{job="${JOB}"}[1m])) > 0`, (r) => r.length === 1);
    // The queue gauges read the database: every mail and webhook delivery the burst queued is due, and getting later.
    const [{ mails }] = (await t.app.get(DataSource).query(`SELECT count(*)::int AS mails FROM mail_outbox WHERE status = 'pending'`)) as {
      mails: number;
    }[];
    expect(mails).toBeGreaterThanOrEqual(16);
    await prometheus.until(`queue_jobs{job="${JOB}",queue="mail",state="due"}`, (r) => only(r) === mails);
    const lag = await prometheus.until(`queue_oldest_due_seconds{job="${JOB}",queue="mail"}`, (r) => (only(r) ?? 0) > 0);
    expect(only(lag)).toBeLessThan(120);
    await prometheus.until(`holds_active{job="${JOB}"}`, (r) => only(r) === 1);
    for (const queue of ['webhook', 'calendar_sync', 'calendar_write', 'reminder', 'outbox']) {
      expect((await prometheus.query(`queue_jobs{job="${JOB}",queue="${queue}"}`)).length).toBe(3);
    }
  });

  it('the dashboard asks Prometheus only what it can answer, of metrics the scrape has', async () => {
    const dashboard = JSON.parse(readFileSync(join(DEPLOY, 'grafana/dashboard.json'), 'utf8')) as {
      panels: { type: string; title: string; targets?: { expr: string }[] }[];
    };
    const expressions = dashboard.panels.flatMap((panel) => panel.targets ?? []).map((target) => target.expr);
    expect(expressions.length).toBeGreaterThan(15);
    for (const expression of expressions) {
      await prometheus.query(expression.replaceAll('$__rate_interval', '1m'));
      for (const [, name] of expression.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)) {
        if (name !== 'up') expect([name, samples(scraped, name).length > 0]).toEqual([name, true]);
      }
    }
  });

  it('without METRICS_TOKEN answers loopback clients only, by the client address; the instance that delivers counts its webhook attempts', async () => {
    // A second instance on the same database, without METRICS_TOKEN and with workers: it sends what the burst queued.
    const second = await startTestApp({ databaseUrl: t.databaseUrl, env: { RUN_WORKERS: 'true' } });
    try {
      const inject = (remoteAddress: string) => second.app.inject({ method: 'GET', url: '/metrics', remoteAddress });
      for (const address of ['203.0.113.7', '10.0.0.5', '2001:db8::1', '::ffff:192.0.2.1']) {
        const res = await inject(address);
        expect([address, res.statusCode, res.json<{ code: string }>().code]).toEqual([address, 403, 'FORBIDDEN']);
      }
      for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'])
        expect([address, (await inject(address)).statusCode]).toEqual([address, 200]);
      expect((await fetch(`${second.url}/metrics`)).status).toBe(200);

      await receiver.waitFor(() => receiver.at('/hook').length >= 16, 20_000, 'the burst’s webhooks');
      const delivered = receiver.at('/hook').length;
      const attempts = await eventually(
        async () => {
          const text = (await inject('127.0.0.1')).body;
          const succeeded = valueOf(text, 'webhook_attempts_total', { outcome: 'succeeded' });
          return succeeded === delivered ? text : undefined;
        },
        10_000,
        'the attempts counted',
      );
      expect(
        samples(attempts, 'webhook_attempts_total')
          .filter((sample) => sample.value > 0)
          .map((sample) => sample.labels.outcome),
      ).toEqual(['succeeded']);
      // The gauges are the database's: Prometheus, scraping the first instance, sees the mail queue it never sent drain.
      await prometheus.until(`queue_jobs{job="${JOB}",queue="mail",state="due"}`, (r) => only(r) === 0);
      await prometheus.until(`queue_oldest_due_seconds{job="${JOB}",queue="mail"}`, (r) => only(r) === 0);
    } finally {
      await second.close();
    }
  });
});

describe('GET /metrics without METRICS_TOKEN: loopback by the TCP peer alone, and not in production (contract § 19)', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
  });
  async function start(env: Record<string, string>): Promise<TestApp> {
    const app = await startTestApp({ env: { RUN_WORKERS: 'false', ...env } });
    apps.push(app);
    return app;
  }
  const inject = (app: TestApp, remoteAddress: string, headers: Record<string, string> = {}) =>
    app.app.inject({ method: 'GET', url: '/metrics', remoteAddress, headers });

  it.each([['1'], ['203.0.113.0/24, 10.0.0.0/8']])(
    'TRUST_PROXY=%s: a forwarded loopback address from another peer is refused; a loopback peer is served whatever it forwards',
    async (trustProxy) => {
      const app = await start({ TRUST_PROXY: trustProxy });
      for (const forwarded of ['127.0.0.1', '::1', '127.0.0.1:9090', '[::1]:443', '10.0.0.1, 127.0.0.1']) {
        const res = await inject(app, '203.0.113.7', { 'x-forwarded-for': forwarded });
        expect([forwarded, res.statusCode, res.json<{ code: string }>().code]).toEqual([forwarded, 403, 'FORBIDDEN']);
      }
      const fromLoopback = await fetch(`${app.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
      expect(fromLoopback.status).toBe(200);
    },
  );

  it('NODE_ENV=production: 404 like a route that does not exist, unless METRICS_ALLOW_LOOPBACK=true; a token still opens it', async () => {
    const production = await start({ NODE_ENV: 'production' });
    const closed = await fetch(`${production.url}/metrics`);
    const missing = await fetch(`${production.url}/no-such-route`);
    expect([closed.status, missing.status]).toEqual([404, 404]);
    const [closedBody, missingBody] = (await Promise.all([closed.json(), missing.json()])) as { code: string; message: string }[];
    expect(closedBody).toEqual({ code: 'NOT_FOUND', message: missingBody.message, requestId: closed.headers.get('x-request-id') });
    expect((await inject(production, '203.0.113.7')).statusCode).toBe(404);

    const allowed = await start({ NODE_ENV: 'production', METRICS_ALLOW_LOOPBACK: 'true' });
    expect((await fetch(`${allowed.url}/metrics`)).status).toBe(200);
    expect((await inject(allowed, '203.0.113.7')).statusCode).toBe(403);

    const tokened = await start({ NODE_ENV: 'production', METRICS_TOKEN: TOKEN });
    expect((await fetch(`${tokened.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${tokened.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('METRICS_ALLOW_LOOPBACK other than true or false stops the boot naming it', () => {
    expect(() => loadConfig({ METRICS_ALLOW_LOOPBACK: 'yes' })).toThrow(/^METRICS_ALLOW_LOOPBACK must be true or false/);
  });
});

describe('deploy/prometheus', () => {
  it('alerts.yml passes promtool check rules, and its unit tests (alerts.test.yml) pass', async () => {
    const checked = await promtool(['check', 'rules', join(DEPLOY, 'prometheus/alerts.yml')]);
    expect(checked).toEqual({ code: 0, output: expect.stringContaining('SUCCESS: 7 rules found') });
    const tested = await promtool(['test', 'rules', join(DEPLOY, 'prometheus/alerts.test.yml')]);
    expect(tested).toEqual({ code: 0, output: expect.stringContaining('SUCCESS') });
  });

  it('prometheus.yml is a configuration Prometheus accepts, with the alerts', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'sched-prometheus-config-'));
    try {
      const token = join(directory, 'token');
      writeFileSync(token, TOKEN);
      const config = readFileSync(join(DEPLOY, 'prometheus/prometheus.yml'), 'utf8');
      expect(config).toContain('credentials_file: /etc/prometheus/scheduling-metrics-token');
      writeFileSync(join(directory, 'prometheus.yml'), config.replace('/etc/prometheus/scheduling-metrics-token', token));
      copyFileSync(join(DEPLOY, 'prometheus/alerts.yml'), join(directory, 'alerts.yml'));
      const checked = await promtool(['check', 'config', join(directory, 'prometheus.yml')]);
      expect(checked).toEqual({ code: 0, output: expect.stringContaining('SUCCESS: 7 rules found') });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('bookings_refused_total{reason} (contract § 19, issue 48)', () => {
  let t: TestApp;
  let org: BookingOrg;

  beforeAll(async () => {
    t = await startTestApp({ env: { METRICS_TOKEN: TOKEN, RUN_WORKERS: 'false' } });
    org = await bookingOrg(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a 409 SLOT_UNAVAILABLE counts by its section 7 reason, any other refusal by its code in lower case', async () => {
    const key = { apiKey: org.apiKey };
    const limited = await t.http.patch(
      `/v1/organizations/${org.owner.organizationId}/members/${org.owner.memberId}`,
      { bookingLimits: { perDay: 1 } },
      { token: org.owner.accessToken },
    );
    expect(limited.status).toBe(200);
    const refusals = [
      await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T09:00:00.000Z'), key),
      await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T09:00:00.000Z'), key),
      await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00.000Z'), key),
      await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-06T10:00:00.000Z'), key),
      await t.http.post('/v1/bookings', { ...bookingBody(org.eventTypeId, '2027-03-03T09:00:00.000Z'), startTime: null }, key),
      await t.http.post('/v1/bookings', bookingBody('evt_0000000000000000000000', '2027-03-03T09:00:00.000Z'), key),
    ];
    expect(refusals.map((res) => [res.status, res.status === 201 ? 'booked' : (res.body.details?.[0]?.message ?? res.body.code)])).toEqual([
      [201, 'booked'],
      [409, 'already_booked'],
      [409, 'host_limit_reached'],
      [409, 'outside_availability'],
      [400, 'startTime must not be null'],
      [404, 'NOT_FOUND'],
    ]);
    const text = await (await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    expect(
      samples(text, 'bookings_refused_total')
        .map((sample) => [sample.labels.reason, sample.value])
        .sort(),
    ).toEqual([
      ['already_booked', 1],
      ['host_limit_reached', 1],
      ['not_found', 1],
      ['outside_availability', 1],
      ['validation_error', 1],
    ]);
  });
});
