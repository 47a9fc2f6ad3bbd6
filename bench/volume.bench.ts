/**
 * At volume (issue 54): the same requests on an empty database and on one holding ten million bookings, same run.
 *
 * Two databases, each migrated and served by its own app (and a second app with the availability cache off, for cold
 * reads). Each gets the same measured organization through the API (an owner who hosts a 30-minute event type, an API key)
 * and the same working set by SQL: the owner's bookings in the measured week, 10,000 bookings of one attendee (the
 * erasure), 20 of another (the attendee filter), 12,000 more to page through, and 500 audit entries of the last day.
 * The volume database also gets, before that working set, by SQL (`generate_series`, triggers and foreign-key checks
 * off for the seeding session, the large tables' secondary indexes built after the load as a restore builds them):
 *
 * - 20,000 organizations; four of them (the measured one among them) with 500,000 bookings each over 50 hosts, the
 *   others sharing the rest (some 400 each over 3 hosts), spread over the last three years; one in ten cancelled;
 * - a reminder for every fifth booking, sent when it was due;
 * - 1,000,000 audit entries (100,000 of them the measured organization's, older than two days);
 * - 5,000,000 domain events (dispatched), as many webhook deliveries and attempts (one webhook per organization).
 *
 * Every request is timed one at a time from this process (client latency, a keep-alive connection), in rounds that
 * alternate which database goes first; a figure is the median of its samples, with the 95th percentile beside it.
 * Then each request is run once more on the volume database with its SQL recorded (every statement the app sends
 * through `pg`), and each statement is `EXPLAIN`ed there: a sequential scan of a table over 100,000 rows fails.
 *
 *   DATABASE_URL=postgres://… npm run bench:volume          (BENCH_VOLUME_BOOKINGS changes the ten million)
 *
 * BENCH_VOLUME_KEEP=1 keeps the seeded database (`sched_volume_seed_<bookings>`, as a template) and measures on a copy,
 * so a rerun skips the seeding; drop that database to seed again.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import pg from 'pg';
import { AuditRepository } from '../apps/api/src/modules/audit/audit.repository.js';
import { ReminderQueueRepository } from '../apps/api/src/modules/booking-reminders/reminder-queue.repository.js';
import { DomainEventsRepository } from '../apps/api/src/modules/outbox/domain-events.repository.js';
import { WebhookQueueRepository } from '../apps/api/src/modules/webhooks/webhook-queue.repository.js';
import { ALL_SCOPES } from '../libs/common/src/index.js';
import { runMigrations } from '../libs/database/src/index.js';
import { RECONCILE_BOOKING_COUNTS_SQL } from '../libs/database/src/migrations/1795912996146-KeptBookingCounts.js';
import { bookingTargets, loadBookings, type Target } from './support/booking-targets.js';
import { reportGoal } from './support/goals.js';
import { benchServer, machine, row, startInstance, type LoadResult } from './support/harness.js';

const TOTAL = Number(process.env.BENCH_VOLUME_BOOKINGS ?? 10_000_000);
const ORGANIZATIONS = 20_000;
const BIG = Math.min(500_000, Math.floor(TOTAL / 20));
const AUDIT = Math.round(TOTAL / 10);
const EVENTS = Math.round(TOTAL / 2);
const KEEP = process.env.BENCH_VOLUME_KEEP === '1';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 25);
const CHUNK = 1_000_000;
const GOAL = 1.25;
/** Tables with more rows than this must never be read by a sequential scan on a request path. */
const LARGE = 100_000;

/** Bookings per second offered evenly while a migration runs (and before it, to compare). */
const MIGRATION_RATE = Number(process.env.BENCH_MIGRATION_RATE ?? 60);

const ERASED = 'erase-me@example.com';
const LOOKED_UP = 'lookup@example.com';

interface Site {
  name: 'empty' | 'volume';
  databaseUrl: string;
  url: string;
  coldUrl: string;
  close(): Promise<void>;
  apps: Awaited<ReturnType<typeof startInstance>>['app'][];
  organizationId: string;
  ownerId: string;
  availabilityTypeId: string;
  authorization: string;
  seedMs: number;
  /** With BENCH_VOLUME_KEEP: how long the copy of the kept seeded database took. */
  copyMs?: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function http(
  url: string,
  method: string,
  path: string,
  authorization: string,
  body?: unknown,
): Promise<{ status: number; text: string; ms: number }> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, url),
      {
        method,
        agent,
        headers: {
          authorization,
          ...(text === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }),
        },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (data += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: data, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

async function api<T>(url: string, method: string, path: string, authorization: string, body?: unknown): Promise<T> {
  const res = await http(url, method, path, authorization, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return JSON.parse(res.text) as T;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** The measured organization, made through the API: an owner who hosts a 30-minute event type, and an API key. */
interface Measured {
  organizationId: string;
  ownerId: string;
  availabilityTypeId: string;
  authorization: string;
}

async function register(url: string, name: Site['name']): Promise<Measured> {
  const owner = await api<{ accessToken: string; user: { id: string }; organization: { id: string } }>(
    url,
    'POST',
    '/v1/auth/register',
    '',
    {
      email: `owner-${name}@example.com`,
      password: 'bench password',
      organizationName: `Measured ${name}`,
    },
  );
  const bearer = `Bearer ${owner.accessToken}`;
  const everyDay = [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({ dayOfWeek, slots: [{ startTime: '00:00', endTime: '24:00' }] }));
  await api(url, 'PUT', '/v1/availability/schedules', bearer, { timezone: 'UTC', schedules: everyDay });
  const availabilityType = await api<{ eventType: { id: string } }>(url, 'POST', '/v1/event-types', bearer, {
    title: 'Intro',
    slug: 'intro',
    durationMinutes: 30,
    bookingWindowDays: 730,
  });
  const key = await api<{ apiKey: string }>(url, 'POST', '/v1/api-keys', bearer, {
    name: 'volume',
    rateLimitPerMinute: 10_000,
    scopes: ALL_SCOPES,
  });
  return {
    organizationId: owner.organization.id,
    ownerId: owner.user.id,
    availabilityTypeId: availabilityType.eventType.id,
    authorization: `ApiKey ${key.apiKey}`,
  };
}

/**
 * `database` (created when `measured` is not given, else a copy already made) migrated, its app and an app without the
 * availability cache; the measured organization made through the API when not given.
 */
async function openSite(admin: pg.Client, adminUrl: string, name: Site['name'], database: string, measured?: Measured): Promise<Site> {
  if (!measured) await admin.query(`CREATE DATABASE "${database}"`);
  const databaseUrl = withDatabase(adminUrl, database);
  await runMigrations(databaseUrl);
  const env = { RUN_WORKERS: 'false' };
  const main = await startInstance(databaseUrl, [], env);
  const cold = await startInstance(databaseUrl, [], { ...env, AVAILABILITY_CACHE_MB: '0' });
  return {
    name,
    databaseUrl,
    url: main.url,
    coldUrl: cold.url,
    apps: [main.app, cold.app],
    ...(measured ?? (await register(main.url, name))),
    seedMs: 0,
    close: async () => {
      await Promise.allSettled([main.app.close(), cold.app.close()]);
      await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    },
  };
}

const fresh = (name: Site['name']): string => `sched_volume_${name}_${randomBytes(3).toString('hex')}`;

/**
 * The volume database. With BENCH_VOLUME_KEEP=1 the seeded database is kept, as a template named after its size, and
 * each run measures on a copy of it (a file copy: a minute or so instead of the seeding's seventeen minutes). A
 * template seeded by an older checkout gets the newer migrations on the copy; its working set's audit entries are moved
 * to the last day.
 */
async function openVolume(admin: pg.Client, adminUrl: string): Promise<Site> {
  const template = `sched_volume_seed_${TOTAL}`;
  const kept = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
  if (!KEEP || kept.rowCount === 0) {
    const site = await openSite(admin, adminUrl, 'volume', fresh('volume'));
    await seed(site);
    if (!KEEP) return site;
    // Kept: the seeded database becomes the template (it must have no connection), and the run goes on on a copy.
    const client = new pg.Client({ connectionString: site.databaseUrl });
    await client.connect();
    const { organizationId, ownerId, availabilityTypeId, authorization, seedMs } = site;
    await client.query(`CREATE TABLE bench_volume_seed (measured jsonb NOT NULL, seeded_at timestamptz NOT NULL DEFAULT now())`);
    await client.query(`INSERT INTO bench_volume_seed (measured) VALUES ($1)`, [
      JSON.stringify({ organizationId, ownerId, availabilityTypeId, authorization, seedMs }),
    ]);
    await client.end();
    await Promise.allSettled(site.apps.map((app) => app.close()));
    await admin.query(`ALTER DATABASE "${new URL(site.databaseUrl).pathname.slice(1)}" RENAME TO "${template}"`);
  }
  const database = fresh('volume');
  const started = Date.now();
  await admin.query(`CREATE DATABASE "${database}" TEMPLATE "${template}" STRATEGY FILE_COPY`);
  const copied = Date.now() - started;
  const client = new pg.Client({ connectionString: withDatabase(adminUrl, database) });
  await client.connect();
  const {
    rows: [stored],
  } = await client.query<{ measured: Measured & { seedMs: number }; age: number }>(
    `SELECT measured, extract(epoch FROM now() - seeded_at) AS age FROM bench_volume_seed`,
  );
  await client.query(
    `UPDATE audit_entries SET occurred_at = occurred_at + $2 * interval '1 second' WHERE organization_id = $1 AND id LIKE 'aud_ws%'`,
    [stored.measured.organizationId, stored.age],
  );
  await client.end();
  const { seedMs, ...measured } = stored.measured;
  const site = await openSite(admin, adminUrl, 'volume', database, measured);
  const now = new Date();
  await site.apps[0].get(AuditRepository).partitions.prepare(now);
  await site.apps[0].get(DomainEventsRepository).partitions.prepare(now);
  await site.apps[0].get(WebhookQueueRepository).attemptPartitions.prepare(now);
  site.seedMs = seedMs;
  site.copyMs = copied;
  return site;
}

/** Bookings from `rows` (a SELECT giving the columns named below), as one INSERT … SELECT. */
function bookingsFrom(rows: string): string {
  return `
      INSERT INTO bookings (id, organization_id, event_type_id, livemode, status, starts_at, ends_at, host_user_id, attendee_email,
                            attendee_first_name, timezone, buffer_before_minutes, buffer_after_minutes, confirmation_token_hash,
                            created_at, updated_at, cancelled_at)
      SELECT id, organization_id, event_type_id, true, status, starts_at, starts_at + duration, host_user_id, attendee_email,
             'Attendee', 'UTC', 0, 0, md5(id), starts_at - interval '7 days', starts_at - interval '7 days',
             CASE WHEN status = 'cancelled' THEN starts_at - interval '1 day' END
        FROM (${rows}) AS r`;
}

/** Bookings and their booking_hosts rows in one statement (see bookingsFrom). */
function insertBookings(rows: string): string {
  return `
    WITH made AS (${bookingsFrom(rows)}
      RETURNING id, host_user_id, organization_id, event_type_id, livemode, status, starts_at, ends_at, created_at
    )
    INSERT INTO booking_hosts (booking_id, host_user_id, organization_id, event_type_id, livemode, status, during, created_at)
    SELECT id, host_user_id, organization_id, event_type_id, livemode, status, tstzrange(starts_at, ends_at, '[)'), created_at FROM made`;
}

const log = (line: string): void => void process.stdout.write(`  [volume] ${line}\n`);

/** The volume's organizations and event types (see the header). */
async function seedOrganizations(client: pg.Client): Promise<void> {
  await client.query(
    `INSERT INTO organizations (id, name, slug, created_at, updated_at)
     SELECT 'org_vol' || lpad(o::text, 20, '0'), 'Volume ' || o, 'volume-' || o, now() - interval '3 years', now() - interval '3 years'
       FROM generate_series(1, $1::int) AS o`,
    [ORGANIZATIONS - 1],
  );
  await client.query(
    `INSERT INTO event_types (id, organization_id, title, slug, duration_minutes, scheduling_type, created_at, updated_at)
     SELECT 'evt_vol' || lpad(o::text, 20, '0'), 'org_vol' || lpad(o::text, 20, '0'), 'Call', 'call', 30, 'individual', now(), now()
       FROM generate_series(1, $1::int) AS o`,
    [ORGANIZATIONS - 1],
  );
}

interface BookingChunk {
  label: string;
  /** A SELECT of the columns bookingsFrom reads, every value written into it: both lanes read the same rows. */
  rows: string;
}

/**
 * The volume's bookings, a million at most per chunk, as of `at` (one instant for both lanes, whatever the clock does
 * between their statements).
 */
function bookingChunks(site: Site, at: Date, quote: (value: string) => string): BookingChunk[] {
  const chunks: BookingChunk[] = [];
  const now = `${quote(at.toISOString())}::timestamptz`;
  // Three other large organizations and the measured one: BIG bookings each over 50 hosts, one every so often per host
  // across the last three years (the measured one's bookings are on other hosts than its owner, and end two days ago).
  const bigSpan = 3 * 365 * 86_400;
  for (let org = 0; org < 4; org++) {
    const measured = org === 3;
    const organizationId = measured ? site.organizationId : `org_vol${String(org + 1).padStart(20, '0')}`;
    const eventTypeId = measured ? site.availabilityTypeId : `evt_vol${String(org + 1).padStart(20, '0')}`;
    for (let first = 0; first < BIG; first += CHUNK) {
      const last = Math.min(BIG, first + CHUNK) - 1;
      chunks.push({
        label: `large organization ${org + 1}: ${(last + 1).toLocaleString('en')} bookings`,
        rows: `
          SELECT 'bkg_vb${org}_' || lpad(k::text, 12, '0') AS id,
                 ${quote(organizationId)}::text AS organization_id, ${quote(eventTypeId)}::text AS event_type_id,
                 CASE WHEN k % 10 = 0 THEN 'cancelled' ELSE 'confirmed' END AS status,
                 to_timestamp(extract(epoch FROM date_trunc('hour', ${now} - interval '2 days')) - ${bigSpan}::bigint
                              + (k / 50) * (${bigSpan}::bigint / (${BIG}::bigint / 50))) AS starts_at,
                 interval '30 minutes' AS duration,
                 'usr_vb${org}_' || (k % 50) AS host_user_id,
                 'attendee' || (k % 200000) || '@example.com' AS attendee_email
            FROM generate_series(${first}::bigint, ${last}::bigint) AS k`,
      });
    }
  }
  // The rest over the other 19,996 organizations, three hosts each.
  const rest = TOTAL - 4 * BIG;
  const small = ORGANIZATIONS - 4;
  const perOrganization = Math.max(1, Math.ceil(rest / small));
  for (let first = 0; first < rest; first += CHUNK) {
    const last = Math.min(rest, first + CHUNK) - 1;
    chunks.push({
      label: `other organizations: ${(last + 1).toLocaleString('en')} bookings`,
      rows: `
        SELECT 'bkg_vs' || lpad(g::text, 12, '0') AS id,
               'org_vol' || lpad((4 + g % ${small})::text, 20, '0') AS organization_id,
               'evt_vol' || lpad((4 + g % ${small})::text, 20, '0') AS event_type_id,
               CASE WHEN g % 10 = 0 THEN 'cancelled' ELSE 'confirmed' END AS status,
               to_timestamp(extract(epoch FROM date_trunc('hour', ${now})) - ${bigSpan}::bigint
                            + ((g / ${small}) / 3) * (${bigSpan}::bigint / (${perOrganization}::bigint / 3 + 1))) AS starts_at,
               interval '30 minutes' AS duration,
               'usr_vs' || (g % ${small}) || '_' || ((g / ${small}) % 3) AS host_user_id,
               'attendee' || (g % 1000000) || '@example.com' AS attendee_email
          FROM generate_series(${first}::bigint, ${last}::bigint) AS g`,
    });
  }
  return chunks;
}

/** The bookings of `chunks`, one statement each. */
async function seedBookings(client: pg.Client, chunks: BookingChunk[]): Promise<void> {
  for (const chunk of chunks) {
    await client.query(bookingsFrom(chunk.rows));
    log(chunk.label);
  }
}

/**
 * The host row of every booking of `chunks`, made from the same rows rather than read back from bookings, so that they
 * need not wait for them: the exclusion constraint's GiST index, built over them, is the seeding's longest step. They
 * go in in time order, as a live table receives them.
 */
async function seedBookingHosts(client: pg.Client, chunks: BookingChunk[]): Promise<void> {
  await client.query(`SET work_mem = '1GB'`);
  await client.query(
    `INSERT INTO booking_hosts (booking_id, host_user_id, organization_id, event_type_id, livemode, status, during, created_at)
     SELECT id, host_user_id, organization_id, event_type_id, true, status, tstzrange(starts_at, starts_at + duration, '[)'),
            starts_at - interval '7 days'
       FROM (${chunks.map((chunk) => chunk.rows).join(' UNION ALL ')}) AS r
      ORDER BY starts_at, host_user_id`,
  );
  await client.query(`RESET work_mem`);
  log('booking hosts');
}

/** Reminders of the seeded bookings (once they are loaded). */
async function seedReminders(client: pg.Client): Promise<void> {
  await client.query(
    `INSERT INTO booking_reminders (organization_id, booking_id, minutes_before, due_at, sent_at)
     SELECT organization_id, id, 60, starts_at - interval '1 hour', CASE WHEN starts_at - interval '1 hour' < now() THEN starts_at - interval '1 hour' END
       FROM bookings WHERE right(id, 1) IN ('0', '5') AND status = 'confirmed'`,
  );
  log('reminders');
}

/** The volume's audit entries, webhooks, domain events, deliveries and attempts: none reads the bookings. */
async function seedLogs(client: pg.Client, site: Site): Promise<void> {
  for (let first = 0; first < AUDIT; first += CHUNK) {
    const last = Math.min(AUDIT, first + CHUNK) - 1;
    // One in ten the measured organization's (before the last two days), the rest spread over the others.
    await client.query(
      `INSERT INTO audit_entries (id, organization_id, occurred_at, action, actor_type, actor_id, actor_label, resource_type, resource_id,
                                  request_id, ip, user_agent, changes)
       SELECT 'aud_vol' || lpad(g::text, 20, '0'),
              CASE WHEN g % 10 = 0 THEN $1 ELSE 'org_vol' || lpad((1 + g % ($4::int - 1))::text, 20, '0') END,
              now() - interval '2 days' - (g * interval '13 seconds'),
              'booking.verb' || (g % 5), 'user', 'usr_vol' || (g % 60), 'member' || (g % 60) || '@example.com',
              'booking', 'bkg_vol' || (g % 200000), 'req_vol' || g, '203.0.113.' || (g % 250), 'Mozilla/5.0 (bench)',
              CASE WHEN g % 5 = 1 THEN '{"title": {"from": "Before", "to": "After"}}'::jsonb END
         FROM generate_series($2::bigint, $3::bigint) AS g`,
      [site.organizationId, first, last, ORGANIZATIONS],
    );
    log(`audit entries: ${(last + 1).toLocaleString('en')}`);
  }
  await client.query(
    `INSERT INTO webhooks (id, organization_id, livemode, url, events, active, secret_ciphertext, created_at, updated_at)
     SELECT 'whk_vol' || lpad(o::text, 20, '0'), 'org_vol' || lpad(o::text, 20, '0'), true, 'https://example.invalid/hook',
            '{booking.created}', false, 'sealed', now(), now()
       FROM generate_series(1, $1::int) AS o`,
    [ORGANIZATIONS - 1],
  );
  for (let first = 0; first < EVENTS; first += CHUNK) {
    const last = Math.min(EVENTS, first + CHUNK) - 1;
    const org = `'org_vol' || lpad((1 + g % ($3::int - 1))::text, 20, '0')`;
    const at = `now() - interval '2 days' - (g * interval '17 seconds')`;
    await client.query(
      `INSERT INTO domain_events (id, organization_id, livemode, type, data, created_at, dispatched_at, due_at)
       SELECT 'evt_v' || lpad(g::text, 20, '0'), ${org}, true, 'booking.created', jsonb_build_object('booking', jsonb_build_object('id', 'bkg_vs' || lpad(g::text, 12, '0'))), ${at}, ${at}, ${at}
         FROM generate_series($1::bigint, $2::bigint) AS g`,
      [first, last, ORGANIZATIONS],
    );
    await client.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, organization_id, event_id, event_type, body, status, attempts, max_attempts,
                                       next_attempt_at, last_attempt_at, response_status, created_at)
       SELECT 'whd_v' || lpad(g::text, 20, '0'), 'whk_vol' || lpad((1 + g % ($3::int - 1))::text, 20, '0'), ${org},
              'evt_v' || lpad(g::text, 20, '0'), 'booking.created', '{}', 'succeeded', 1, 8, NULL, ${at}, 200, ${at}
         FROM generate_series($1::bigint, $2::bigint) AS g`,
      [first, last, ORGANIZATIONS],
    );
    await client.query(
      `INSERT INTO webhook_attempts (delivery_id, attempt, organization_id, started_at, duration_ms, response_status)
       SELECT 'whd_v' || lpad(g::text, 20, '0'), 1, ${org}, ${at}, 120, 200
         FROM generate_series($1::bigint, $2::bigint) AS g`,
      [first, last, ORGANIZATIONS],
    );
    log(`domain events, webhook deliveries and attempts: ${(last + 1).toLocaleString('en')} each`);
  }
}

/** The working set both databases share (after the volume, so the audit log's newest entries are these). */
async function seedWorkingSet(client: pg.Client, site: Site): Promise<void> {
  const args = [site.organizationId, site.availabilityTypeId, site.ownerId];
  // The owner's bookings in the measured week (2027-03-01..07): two a day.
  await client.query(
    insertBookings(`
      SELECT 'bkg_ws_own_' || d || '_' || h AS id, $1::text AS organization_id, $2::text AS event_type_id, 'confirmed' AS status,
             timestamptz '2027-03-01 00:00Z' + d * interval '1 day' + h * interval '1 hour' AS starts_at, interval '30 minutes' AS duration,
             $3::text AS host_user_id, 'guest' || d || '@example.com' AS attendee_email
        FROM generate_series(0, 6) AS d, (VALUES (10), (14)) AS hours(h)`),
    args,
  );
  // The attendee to erase (10,000 bookings), the one looked up (20), and 12,000 to page through: on other hosts.
  await client.query(
    insertBookings(`
      SELECT 'bkg_ws_' || k AS id, $1::text AS organization_id, $2::text AS event_type_id,
             CASE WHEN k % 10 = 0 THEN 'cancelled' ELSE 'confirmed' END AS status,
             timestamptz '2026-01-05 00:00Z' + (k / 20) * interval '1 hour' AS starts_at, interval '30 minutes' AS duration,
             'usr_ws_' || (k % 20) AS host_user_id,
             CASE WHEN k < 10000 THEN $3::text WHEN k < 10020 THEN $4::text ELSE 'page' || k || '@example.com' END AS attendee_email
        FROM generate_series(0, 22019) AS k`),
    [site.organizationId, site.availabilityTypeId, ERASED, LOOKED_UP],
  );
  await client.query(
    `INSERT INTO audit_entries (id, organization_id, occurred_at, action, actor_type, actor_id, actor_label, resource_type, resource_id)
     SELECT 'aud_ws' || lpad(g::text, 20, '0'), $1, now() - g * interval '2 minutes', 'booking.created', 'user', $2, 'owner',
            'booking', 'bkg_ws_' || g
       FROM generate_series(1, 500) AS g`,
    [site.organizationId, site.ownerId],
  );
}

/** Drops the secondary indexes and exclusion constraints of `tables`; returns the statements that build them again. */
async function dropIndexes(client: pg.Client, tables: string[]): Promise<string[]> {
  const { rows } = await client.query<{ table: string; name: string; constraint: string | null; definition: string }>(
    `SELECT c.relname AS table, i.relname AS name, con.conname AS constraint,
            COALESCE(pg_get_constraintdef(con.oid), pg_get_indexdef(i.oid)) AS definition
       FROM pg_index x
       JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_class c ON c.oid = x.indrelid
       LEFT JOIN pg_constraint con ON con.conindid = i.oid AND con.contype IN ('x', 'u')
      WHERE c.relname = ANY($1) AND c.relnamespace = 'public'::regnamespace AND NOT x.indisprimary`,
    [tables],
  );
  const rebuild: string[] = [];
  for (const index of rows) {
    if (index.constraint) {
      await client.query(`ALTER TABLE "${index.table}" DROP CONSTRAINT "${index.constraint}"`);
      rebuild.push(`ALTER TABLE "${index.table}" ADD CONSTRAINT "${index.constraint}" ${index.definition}`);
    } else {
      await client.query(`DROP INDEX "${index.name}"`);
      // A partitioned table's index is defined ON ONLY the parent; built again on the parent, it reaches every month.
      rebuild.push(index.definition.replace(' ON ONLY ', ' ON '));
    }
  }
  return rebuild;
}

/** Builds `statements` one after the other on `client`, then vacuums and analyzes `tables`. */
async function build(client: pg.Client, statements: string[], tables: string[]): Promise<void> {
  for (const statement of statements) {
    const started = Date.now();
    await client.query(statement);
    log(`${statement.slice(0, 90)}… ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  for (const table of tables) await client.query(`VACUUM (ANALYZE) "${table}"`);
}

/** A bulk load's session: no triggers (availability versions, kept counts) and no foreign-key checks; the rows are consistent. */
async function bulkSession(client: pg.Client): Promise<void> {
  await client.query(`SET session_replication_role = replica`);
  await client.query(`SET maintenance_work_mem = '1GB'`);
}

/** Runs `work` on a bulk-load connection of its own. */
async function onOwnConnection(databaseUrl: string, work: (client: pg.Client) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await bulkSession(client);
    await work(client);
  } finally {
    await client.end();
  }
}

async function seed(site: Site): Promise<void> {
  const client = new pg.Client({ connectionString: site.databaseUrl });
  await client.connect();
  const started = Date.now();
  try {
    await bulkSession(client);
    if (site.name === 'volume') {
      // As a restore does: the large tables' secondary indexes and the exclusion constraint dropped during the load and
      // built after it (sorted builds instead of ten million random index insertions).
      const rebuild = await dropIndexes(client, [
        'bookings',
        'booking_hosts',
        'booking_reminders',
        'audit_entries',
        'domain_events',
        'webhook_deliveries',
      ]);
      // booking_hosts' indexes stay in its own lane: adding the constraint locks the table.
      const hosts = rebuild.filter((statement) => /\bbooking_hosts\b/.test(statement.split(' USING ')[0]));
      const { rows } = await client.query<{ now: Date }>('SELECT now()');
      const chunks = bookingChunks(site, rows[0].now, (value) => client.escapeLiteral(value));
      await seedOrganizations(client);
      // Two lanes, one per core. The longest path is this connection's: the host rows, made from the same rows as the
      // bookings, and the exclusion constraint's GiST build over them (one core). The other loads the bookings, their
      // reminders and the logs meanwhile, then builds every other index.
      await Promise.all([
        (async () => {
          await seedBookingHosts(client, chunks);
          // The GiST index (some 1 GB) outgrows Debian's default shared_buffers (128 MB): built entry by entry, it keeps
          // reading evicted pages back from the kernel. A cache this small makes PostgreSQL switch to its buffered build
          // early (level step 1), which took 831 s instead of 1,107 s (2026-11-29).
          await client.query(`SET effective_cache_size = '64MB'`);
          await build(client, hosts, ['booking_hosts']);
          // The planner's setting too: what this connection runs next is planned as the server would plan it.
          await client.query(`RESET effective_cache_size`);
        })(),
        onOwnConnection(site.databaseUrl, async (other) => {
          await seedBookings(other, chunks);
          await seedReminders(other);
          await seedLogs(other, site);
          await build(
            other,
            rebuild.filter((statement) => !hosts.includes(statement)),
            ['bookings', 'booking_reminders', 'audit_entries', 'domain_events', 'webhook_deliveries', 'webhook_attempts'],
          );
        }),
      ]);
    }
    await seedWorkingSet(client, site);
    await client.query(`RESET session_replication_role`);
    // The load ran without triggers: the kept booking counts are made as the migration makes them for older bookings.
    const counting = Date.now();
    await client.query(RECONCILE_BOOKING_COUNTS_SQL);
    process.stdout.write(`  [volume] ${site.name}: booking counts reconciled in ${((Date.now() - counting) / 1000).toFixed(1)} s\n`);
    // What a restore or a day of autovacuum leaves: visibility maps and statistics.
    await client.query('VACUUM (ANALYZE)');
  } finally {
    await client.end();
  }
  site.seedMs = Date.now() - started;
}

interface Operation {
  name: string;
  /** One call; returns its latency in ms. `n` numbers the sample (each write a distinct slot). */
  run(site: Site, n: number): Promise<number>;
  samples?: number;
}

async function timed(res: Promise<{ status: number; text: string; ms: number }>, what: string): Promise<number> {
  const { status, text, ms } = await res;
  if (status >= 300) throw new Error(`${what}: ${status} ${text.slice(0, 300)}`);
  return ms;
}

const slotTimes = new Map<string, number>();
function nextSlot(site: Site, kind: string, base: string): string {
  const key = `${site.name}:${kind}`;
  const n = slotTimes.get(key) ?? 0;
  slotTimes.set(key, n + 1);
  return new Date(Date.parse(base) + n * 30 * 60_000).toISOString();
}

const availabilityPath = (site: Site): string =>
  `/v1/availability?eventTypeId=${site.availabilityTypeId}&start=2027-03-01&end=2027-03-07&timezone=UTC`;

const OPERATIONS: Operation[] = [
  {
    name: 'GET /v1/availability, a week, warm (cached)',
    run: (site) => timed(http(site.url, 'GET', availabilityPath(site), site.authorization), 'availability'),
  },
  {
    name: 'GET /v1/availability, a week, cold (no cache)',
    run: (site) => timed(http(site.coldUrl, 'GET', availabilityPath(site), site.authorization), 'cold availability'),
  },
  {
    name: 'GET /v1/bookings, first page (20)',
    run: (site) => timed(http(site.url, 'GET', '/v1/bookings?limit=20', site.authorization), 'bookings list'),
  },
  {
    name: 'GET /v1/bookings, page 500 (offset 9,980)',
    run: (site) => timed(http(site.url, 'GET', '/v1/bookings?limit=20&page=500', site.authorization), 'deep page'),
  },
  {
    name: 'GET /v1/bookings?attendeeEmail= (20 bookings)',
    run: (site) => timed(http(site.url, 'GET', `/v1/bookings?attendeeEmail=${LOOKED_UP}`, site.authorization), 'attendee filter'),
  },
  {
    name: 'GET /v1/audit-log, first page (50)',
    run: (site) => timed(http(site.url, 'GET', '/v1/audit-log?limit=50', site.authorization), 'audit log'),
  },
  {
    name: 'GET /v1/audit-log/export, the last day (500 entries)',
    run: (site) => {
      const from = new Date(Date.now() - 86_400_000).toISOString();
      return timed(http(site.url, 'GET', `/v1/audit-log/export?from=${from}`, site.authorization), 'audit export');
    },
    samples: 10,
  },
  {
    name: 'Reminder claim (nothing due; LeaseQueue)',
    run: async (site) => {
      const started = process.hrtime.bigint();
      await site.apps[0].get(ReminderQueueRepository).claimDue(new Date(), 100, 30);
      return Number(process.hrtime.bigint() - started) / 1e6;
    },
  },
  {
    name: 'Outbox claim (domain events; LeaseQueue)',
    run: async (site) => {
      const started = process.hrtime.bigint();
      await site.apps[0].get(DomainEventsRepository).claimUndispatched(100, 1);
      return Number(process.hrtime.bigint() - started) / 1e6;
    },
  },
  {
    name: 'POST /v1/holds',
    run: (site) =>
      timed(
        http(site.url, 'POST', '/v1/holds', site.authorization, {
          eventTypeId: site.availabilityTypeId,
          startTime: nextSlot(site, 'hold', '2027-06-01T00:00:00Z'),
          timezone: 'UTC',
        }),
        'hold',
      ),
  },
  {
    name: 'POST /v1/bookings',
    run: (site, n) =>
      timed(
        http(site.url, 'POST', '/v1/bookings', site.authorization, {
          eventTypeId: site.availabilityTypeId,
          startTime: nextSlot(site, 'booking', '2027-09-01T00:00:00Z'),
          timezone: 'UTC',
          attendee: { email: `booked-${n}@example.com` },
        }),
        'booking',
      ),
  },
];

const ERASURE: Operation = {
  name: 'POST /v1/attendees/erase (10,000 bookings)',
  run: (site) => timed(http(site.url, 'POST', '/v1/attendees/erase', site.authorization, { email: ERASED }), 'erasure'),
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
function p95(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))];
}

/** Every statement the app sends through `pg` while `work` runs (pg.Client#query is where TypeORM and raw pools meet). */
async function recordStatements(work: () => Promise<unknown>): Promise<{ text: string; values: unknown[] }[]> {
  const statements: { text: string; values: unknown[] }[] = [];
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const [first, second] = args;
    if (typeof first === 'string') statements.push({ text: first, values: Array.isArray(second) ? second : [] });
    else if (first && typeof first === 'object' && 'text' in first) {
      const config = first as { text: string; values?: unknown[] };
      statements.push({ text: config.text, values: config.values ?? (Array.isArray(second) ? second : []) });
    }
    return original.apply(this, args);
  };
  try {
    await work();
  } finally {
    proto.query = original;
  }
  return statements;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function scans(node: PlanNode, out: string[]): void {
  if (node['Relation Name'])
    out.push(`${node['Node Type']} on ${node['Relation Name']}${node['Index Name'] ? ` using ${node['Index Name']}` : ''}`);
  for (const child of node.Plans ?? []) scans(child, out);
}

async function explainAll(
  client: pg.Client,
  large: Map<string, number>,
  statements: { text: string; values: unknown[] }[],
): Promise<{ lines: string[]; sequential: string[] }> {
  const lines = new Set<string>();
  const sequential: string[] = [];
  const seen = new Set<string>();
  for (const { text, values } of statements) {
    if (!/^\s*(WITH|SELECT|INSERT|UPDATE|DELETE)\b/i.test(text) || seen.has(text)) continue;
    seen.add(text);
    try {
      await client.query('BEGIN');
      const result = await client.query(`EXPLAIN (FORMAT JSON) ${text}`, values);
      const plan = (result.rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan;
      const found: string[] = [];
      scans(plan, found);
      for (const line of found) {
        lines.add(line);
        const relation = line.match(/^Seq Scan on (\S+)/)?.[1];
        if (relation && (large.get(relation) ?? 0) > LARGE) sequential.push(`${line}: ${text.replace(/\s+/g, ' ').slice(0, 160)}`);
      }
    } catch (error) {
      lines.add(`(not explained: ${(error as Error).message.slice(0, 80)})`);
    } finally {
      await client.query('ROLLBACK');
    }
  }
  return { lines: [...lines], sequential };
}

interface MigrationUnderLoad {
  name: string;
  migrationMs: number;
  loads: LoadResult[];
}

/**
 * Bookings offered at MIGRATION_RATE (bench:bookings' load: 25 organizations, 50 connections) in consecutive windows of
 * BENCH_SECONDS while `migrate` runs, from its start until it ends; the figures of every window together.
 */
async function underLoad(
  url: string,
  targets: Target[],
  name: string,
  migrate: () => Promise<unknown>,
  day: { n: number },
): Promise<MigrationUnderLoad> {
  const started = Date.now();
  let migrationMs: number | undefined;
  let failure: unknown;
  const migration = migrate().then(
    () => (migrationMs = Date.now() - started),
    (error: unknown) => {
      failure = error;
      migrationMs = Date.now() - started;
    },
  );
  const loads: LoadResult[] = [];
  do {
    loads.push(await loadBookings(url, targets, new Date(Date.UTC(2027, 0, 4 + day.n++)).toISOString(), MIGRATION_RATE));
  } while (migrationMs === undefined);
  await migration;
  if (failure) throw failure;
  return { name, migrationMs: migrationMs ?? 0, loads };
}

function merged(loads: LoadResult[]): { requests: number; p50: number; p99: number; failed: number } {
  const requests = loads.reduce((sum, l) => sum + l.requests, 0);
  return {
    requests,
    p50: Math.round((loads.reduce((sum, l) => sum + l.p50 * l.requests, 0) / Math.max(1, requests)) * 10) / 10,
    p99: Math.max(...loads.map((l) => l.p99)),
    failed: loads.reduce((sum, l) => sum + l.non2xx + l.errors, 0),
  };
}

/**
 * Online migrations shown (issue 54 item 2): the largest statement of this issue's own migration (VolumeIndexes: the GIN
 * index over the ten million bookings' answer emails) dropped, then built again as the migration builds it (CREATE
 * INDEX CONCURRENTLY) while bookings are taken; beside it the form the migration lint refuses (a plain CREATE INDEX on
 * bookings) under the same load.
 */
async function migrationsUnderLoad(volume: Site): Promise<MigrationUnderLoad[]> {
  const targets = await bookingTargets(volume.url, 25, 'migration');
  // A connection of its own, as the migration runner's (the app's pool cuts statements at its statement_timeout).
  const runner = new pg.Client({ connectionString: volume.databaseUrl });
  await runner.connect();
  const day = { n: 0 };
  try {
    const {
      rows: [{ definition }],
    } = await runner.query<{ definition: string }>(`SELECT pg_get_indexdef('bookings_answer_emails_idx'::regclass) AS definition`);
    await runner.query('DROP INDEX CONCURRENTLY bookings_answer_emails_idx');
    const quiet = await underLoad(volume.url, targets, 'No migration', () => Promise.resolve(), day);
    const online = await underLoad(
      volume.url,
      targets,
      'VolumeIndexes: the GIN index on bookings, CREATE INDEX CONCURRENTLY',
      () => runner.query(definition.replace(/^CREATE INDEX/, 'CREATE INDEX CONCURRENTLY')),
      day,
    );
    const blocking = await underLoad(
      volume.url,
      targets,
      'The refused form: CREATE INDEX on bookings (no CONCURRENTLY)',
      () => runner.query('CREATE INDEX bench_blocking_idx ON bookings (updated_at, id)'),
      day,
    );
    await runner.query('DROP INDEX IF EXISTS bench_blocking_idx');
    return [quiet, online, blocking];
  } finally {
    await runner.end();
  }
}

interface RetentionFigures {
  way: string;
  rows: number;
  ms: number;
}

/**
 * Retention on the volume database (issue 54 item 3), through AuditRepository as the audit-retention job calls it:
 * row by row (what retention was before partitions, and what it still does in the month the cut-off falls in: DELETE
 * of 10,000 rows at a time) for the oldest tenth of the entries (100,000 of the million); then the legacy partition
 * (everything before this month: most of the rest) dropped whole once the cut-off is past its end.
 */
async function retention(volume: Site): Promise<RetentionFigures[]> {
  const audit = volume.apps[0].get(AuditRepository);
  const client = new pg.Client({ connectionString: volume.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ cutoff: Date }>(
      `SELECT occurred_at AS cutoff FROM audit_entries ORDER BY occurred_at OFFSET $1 LIMIT 1`,
      [Math.round(AUDIT / 10)],
    );
    let deleted = 0;
    let started = Date.now();
    for (;;) {
      const count = await audit.deleteBefore(rows[0].cutoff, 10_000);
      deleted += count;
      if (count < 10_000) break;
    }
    const rowByRow = { way: 'Row by row: DELETE … LIMIT 10,000 until none is left', rows: deleted, ms: Date.now() - started };
    const legacy = await client.query<{ rows: string }>(`SELECT count(*) AS rows FROM audit_entries_p_legacy`);
    started = Date.now();
    await audit.partitions.dropExpired(new Date(Date.UTC(2100, 0, 1)));
    const dropped = {
      way: 'A partition dropped whole (the legacy one: everything before this month)',
      rows: Number(legacy.rows[0].rows),
      ms: Date.now() - started,
    };
    return [rowByRow, dropped];
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const { adminUrl, stop } = await benchServer();
  const sites: Site[] = [];
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const emptySite = await openSite(admin, adminUrl, 'empty', fresh('empty'));
    sites.push(emptySite);
    await seed(emptySite);
    sites.push(await openVolume(admin, adminUrl));
    for (const site of sites)
      console.log(
        `seeded ${site.name} in ${(site.seedMs / 1000).toFixed(0)} s` +
          (site.copyMs === undefined ? '' : ` (kept; copied in ${(site.copyMs / 1000).toFixed(0)} s)`),
      );
    const [empty, volume] = sites;
    const volumeClient = new pg.Client({ connectionString: volume.databaseUrl });
    volumeClient.on('error', () => undefined); // ended by the database's drop when something failed
    await volumeClient.connect();
    const sizes = await volumeClient.query<{ relname: string; rows: string; size: string }>(
      `SELECT relname, reltuples::bigint AS rows, pg_size_pretty(pg_total_relation_size(oid)) AS size
         FROM pg_class WHERE relkind IN ('r', 'p') AND relnamespace = 'public'::regnamespace AND reltuples > 10000 ORDER BY reltuples DESC`,
    );
    const large = new Map(sizes.rows.map((r) => [r.relname, Number(r.rows)]));

    // Warm both (plans, caches, connections), then the rounds.
    for (const site of sites) for (const operation of OPERATIONS) await operation.run(site, 0);
    const samples = new Map<string, { empty: number[]; volume: number[] }>();
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [empty, volume] : [volume, empty];
      for (const operation of OPERATIONS) {
        const entry = samples.get(operation.name) ?? { empty: [], volume: [] };
        samples.set(operation.name, entry);
        for (const site of order) {
          const n = Math.ceil((operation.samples ?? SAMPLES) / ROUNDS);
          for (let i = 0; i < n; i++) entry[site.name].push(await operation.run(site, round * 1000 + i + 1));
        }
      }
    }
    const plans: { name: string; lines: string[] }[] = [];
    const sequential: string[] = [];
    for (const operation of [...OPERATIONS, ERASURE]) {
      if (operation === ERASURE) {
        // Once on each (it erases); timed and recorded together on the volume database.
        const emptyMs = await ERASURE.run(empty, 0);
        let volumeMs = 0;
        const statements = await recordStatements(async () => (volumeMs = await ERASURE.run(volume, 0)));
        samples.set(ERASURE.name, { empty: [emptyMs], volume: [volumeMs] });
        const explained = await explainAll(volumeClient, large, statements);
        plans.push({ name: operation.name, lines: explained.lines });
        sequential.push(...explained.sequential.map((s) => `${operation.name}: ${s}`));
        continue;
      }
      const statements = await recordStatements(() => operation.run(volume, 9999));
      const explained = await explainAll(volumeClient, large, statements);
      plans.push({ name: operation.name, lines: explained.lines });
      sequential.push(...explained.sequential.map((s) => `${operation.name}: ${s}`));
    }
    await volumeClient.end();

    console.log(`\n${machine()}; ${new Date().toISOString().slice(0, 10)}; ${ROUNDS} rounds, alternating which database goes first`);
    console.log(
      `Volume database: ${TOTAL.toLocaleString('en')} bookings over ${ORGANIZATIONS.toLocaleString('en')} organizations ` +
        `(the measured one holds ${BIG.toLocaleString('en')}); seeded in ${(volume.seedMs / 1000).toFixed(0)} s` +
        `${volume.copyMs === undefined ? '' : ` (kept, copied for this run in ${(volume.copyMs / 1000).toFixed(0)} s)`}\n`,
    );
    console.log(row(['Table', 'Rows', 'Size']));
    console.log(row(['---', '---:', '---:']));
    for (const r of sizes.rows) console.log(row([r.relname, Number(r.rows).toLocaleString('en'), r.size]));
    console.log('');
    console.log(row(['Request', 'Empty p50 (ms)', 'Empty p95', 'Volume p50 (ms)', 'Volume p95', 'Volume ÷ empty (p50)', 'Samples']));
    console.log(row(['---', '---:', '---:', '---:', '---:', '---:', '---:']));
    const misses: string[] = [];
    for (const [name, s] of samples) {
      const ratio = median(s.volume) / median(s.empty);
      if (!(ratio <= GOAL)) misses.push(`${name} ${ratio.toFixed(2)}×`);
      console.log(
        row([
          name,
          median(s.empty).toFixed(2),
          p95(s.empty).toFixed(2),
          median(s.volume).toFixed(2),
          p95(s.volume).toFixed(2),
          `${ratio.toFixed(2)}×`,
          `${s.empty.length} + ${s.volume.length}`,
        ]),
      );
    }
    console.log('\nWhat each request reads on the volume database (EXPLAIN of every statement it sent):\n');
    for (const plan of plans) console.log(`- ${plan.name}: ${plan.lines.join('; ') || '(no table read)'}`);
    console.log(
      sequential.length ? `\nSequential scans of large tables:\n${sequential.join('\n')}` : '\nNo sequential scan of a large table.',
    );
    reportGoal({
      bench: 'volume',
      goal: `every request at ${TOTAL.toLocaleString('en')} bookings ≤ ${GOAL}× the empty database's (p50)`,
      result: misses.length ? `over: ${misses.join(', ')}` : 'all within',
      met: misses.length === 0,
    });
    reportGoal({
      bench: 'volume',
      goal: 'no sequential scan of a large table on a request path',
      result: sequential.length ? `${sequential.length} found` : 'none',
      met: sequential.length === 0,
    });

    // Each printed as it ends: a failure in one (reported) leaves the figures above standing.
    try {
      const migrations = process.env.BENCH_MIGRATION_DEMO === '0' ? [] : await migrationsUnderLoad(volume);
      if (migrations.length) {
        console.log(`\nBookings at ${MIGRATION_RATE}/s offered evenly (25 organizations) while a migration runs on the volume database:\n`);
        console.log(row(['Migration', 'Ran for (s)', 'Bookings', 'p50 (ms)', 'p99 (ms)', 'Failed']));
        console.log(row(['---', '---:', '---:', '---:', '---:', '---:']));
        for (const m of migrations) {
          const figures = merged(m.loads);
          console.log(row([m.name, (m.migrationMs / 1000).toFixed(1), figures.requests, figures.p50, figures.p99, figures.failed]));
        }
      }
    } catch (error) {
      console.error('migration under load failed:', error);
      process.exitCode = 1;
    }
    try {
      const retained = await retention(volume);
      console.log('\nAudit log retention on the volume database:\n');
      console.log(row(['Way', 'Rows', 'Seconds', 'Rows/s']));
      console.log(row(['---', '---:', '---:', '---:']));
      for (const r of retained)
        console.log(
          row([
            r.way,
            r.rows.toLocaleString('en'),
            (r.ms / 1000).toFixed(2),
            Math.round(r.rows / Math.max(0.001, r.ms / 1000)).toLocaleString('en'),
          ]),
        );
    } catch (error) {
      console.error('retention failed:', error);
      process.exitCode = 1;
    }
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  } finally {
    agent.destroy();
    for (const site of sites) await site.close();
    await admin.end();
    await stop?.();
  }
}

await main();
