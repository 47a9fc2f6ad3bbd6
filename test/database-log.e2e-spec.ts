import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { type EmbeddedDatabase, runMigrations, startEmbeddedPostgres, TransactionHost } from '@app/database';
import { startTestApp, type TestApp } from './support/app.js';
import { createRootLogger } from '../apps/api/src/logging/logger.js';
import { bookingBody, bookingOrg } from './support/bookings.js';
import { createApiKey } from './support/factories.js';

/**
 * What PostgreSQL writes to its own log when a statement fails. Its own server here, started for this file, so
 * the test reads that server's log (its stderr) whatever the machine's cluster logs to.
 */
describe('the database server’s log', () => {
  let db: EmbeddedDatabase;
  let log = '';
  let t: TestApp;

  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sched-pglog-'));
    chmodSync(dataDir, 0o755); // run as root, the server runs as the postgres user, which must reach its directory
    db = await startEmbeddedPostgres(dataDir, {
      database: 'scheduling_log',
      log: (message) => (log += message),
    });
    await runMigrations(db.url);
    t = await startTestApp({ databaseUrl: db.url });
  }, 120_000);
  afterAll(async () => {
    await t?.app.close();
    await db?.stop();
  });

  /** Everything the server logged until now: a failing marker statement, then its line in the log. */
  async function serverLog(url = db.url): Promise<string> {
    const marker = `marker_${randomBytes(6).toString('hex')}`;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`SELECT 1 / 0 AS ${marker}`).catch(() => undefined);
    await client.end();
    for (let i = 0; i < 200 && !log.includes(marker); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(log).toContain(marker);
    return log;
  }

  /** The race a second instance wins between the check and the insert: the database refuses the overlap. */
  async function refuseOverlapsFor(email: string): Promise<void> {
    await t.app.get(DataSource).query(`
      CREATE OR REPLACE FUNCTION test_race() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM bookings WHERE id = NEW.booking_id AND attendee_email = '${email}') THEN
          RAISE EXCEPTION 'conflicting key value violates exclusion constraint "booking_hosts_no_overlap"'
            USING ERRCODE = 'exclusion_violation', CONSTRAINT = 'booking_hosts_no_overlap';
        END IF;
        RETURN NEW;
      END $$;
      CREATE OR REPLACE TRIGGER test_race BEFORE INSERT ON booking_hosts FOR EACH ROW EXECUTE FUNCTION test_race();`);
  }

  it('a control: a failing multi-statement query with a literal email puts the email in the log', async () => {
    const email = `control-${randomBytes(4).toString('hex')}@example.com`;
    await t.app
      .get(DataSource)
      .query(`SELECT '${email}' AS attendee; SELECT 1 / 0`)
      .catch(() => undefined);
    expect(await serverLog()).toContain(email);
  });

  it('keeps the attendee’s email, name and answers out of it when a double booking is refused', async () => {
    const org = await bookingOrg(t, { questions: [{ id: 'company', label: 'Company', type: 'text' }] });
    const first = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey });
    expect(first.status).toBe(201);
    const tag = randomBytes(4).toString('hex');
    const emails = Array.from({ length: 10 }, (_, i) => `late-${tag}-${i}@example.com`);
    // Refused by the check under the hosts' lock.
    const refused = await Promise.all(
      emails.map((email) =>
        t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z', { attendee: { email } }), { apiKey: org.apiKey }),
      ),
    );
    expect(refused.map((r) => r.status)).toEqual(emails.map(() => 409));
    // Refused by the database itself, as when another instance won the race: the batch fails.
    const racer = `racer-${tag}@example.com`;
    await refuseOverlapsFor(racer);
    const raced = await t.http.post(
      '/v1/bookings',
      bookingBody(org.eventTypeId, '2027-03-02T11:00:00Z', {
        attendee: { email: racer, firstName: `Racer${tag}` },
        answers: { company: `Company${tag}` },
      }),
      { apiKey: org.apiKey },
    );
    expect(raced.status).toBe(409);
    expect(raced.body).toMatchObject({ code: 'SLOT_UNAVAILABLE' });
    const text = await serverLog();
    expect(text).toContain('booking_hosts_no_overlap');
    for (const secret of [...emails, racer, `Racer${tag}`, `Company${tag}`]) expect(text).not.toContain(secret);
  });

  it('keeps an email out of the DETAIL line of a unique violation, on six registrations of one email at once', async () => {
    // The control: a duplicate key's value is in the DETAIL line PostgreSQL logs.
    const control = `dup-control-${randomBytes(4).toString('hex')}@example.com`;
    const dataSource = t.app.get(DataSource);
    await dataSource.query(`CREATE TEMP TABLE dup_probe (email text UNIQUE); INSERT INTO dup_probe VALUES ('${control}')`);
    await dataSource.query(`INSERT INTO dup_probe VALUES ($1)`, [control]).catch(() => undefined);
    expect(await serverLog()).toContain(control);

    const email = `twice-${randomBytes(4).toString('hex')}@example.com`;
    const register = () => t.http.post('/v1/auth/register', { email, password: 'long enough password', organizationName: 'Twice' });
    const answers = await Promise.all(Array.from({ length: 6 }, register));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(5);
    expect(await serverLog()).not.toContain(email);
  });

  it('keeps a batch’s values out of the log for a role that may not change the log’s settings (they are bound)', async () => {
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    const password = randomBytes(12).toString('hex');
    await admin.query(`CREATE ROLE plain_app LOGIN PASSWORD '${password}'`);
    await admin.query(`CREATE TABLE log_probe (value text NOT NULL); GRANT INSERT, SELECT ON log_probe TO plain_app`);
    await admin.end();
    const url = db.url.replace(/\/\/[^@]+@/, `//plain_app:${password}@`);
    const dataSource = await new DataSource({ type: 'postgres', url }).initialize();
    const tx = new TransactionHost(dataSource);
    const email = `plain-${randomBytes(4).toString('hex')}@example.com`;
    try {
      await tx.transaction(() =>
        tx.batched(async () => {
          await tx.write('INSERT INTO log_probe (value) VALUES ($1)', ['kept']);
          await tx.write('INSERT INTO log_probe (value) VALUES ($1)', [email]);
        }),
      );
      expect(await dataSource.query('SELECT value FROM log_probe ORDER BY value')).toEqual([{ value: 'kept' }, { value: email }]);
      await expect(
        tx.transaction(() =>
          tx.batched(async () => {
            await tx.write('INSERT INTO log_probe (value) VALUES ($1)', [email]);
            await tx.write('INSERT INTO log_probe (value) VALUES ($1)', [null]);
          }),
        ),
      ).rejects.toMatchObject({ driverError: expect.objectContaining({ code: '23502' }) });
      expect(await serverLog()).not.toContain(email);
    } finally {
      await dataSource.destroy();
    }
  });

  /*
   * Everything logged: every statement by its duration, every error with its statement. The service's role has both
   * parameter lengths at 0 (migration QuietParameterLog), batches bind their values as every statement does, and the request
   * log writes no token of a path; the service's own log is read too.
   */
  it('holds no attendee email, name or answer, nor any token, with every statement logged, in the server’s log or the service’s', async () => {
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    const logEverything = async (on: boolean): Promise<void> => {
      for (const [name, value] of [
        ['log_min_duration_statement', '0'],
        ['log_min_error_statement', 'error'],
      ])
        await admin.query(on ? `ALTER SYSTEM SET ${name} = '${value}'` : `ALTER SYSTEM RESET ${name}`);
      await admin.query('SELECT pg_reload_conf()');
    };
    await logEverything(true);
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    let logged: TestApp | undefined;
    try {
      logged = await startTestApp({ databaseUrl: db.url, logger: createRootLogger('info', sink) });
      const settings = await logged.app.get(DataSource).query(
        `SELECT current_setting('log_min_duration_statement') AS duration, current_setting('log_parameter_max_length') AS bound,
                current_setting('log_parameter_max_length_on_error') AS on_error`,
      );
      expect(settings).toEqual([{ duration: '0', bound: '0', on_error: '0' }]);
      // The control: a session that logs its bound values puts them in the log.
      const control = `bound-control-${randomBytes(4).toString('hex')}@example.com`;
      await admin.query('SET log_parameter_max_length = -1');
      await admin.query('SELECT $1::text AS attendee', [control]);

      const tag = randomBytes(4).toString('hex');
      const person = (label: string) => ({
        email: `${label}-${tag}@example.com`,
        firstName: `First${label}${tag}`,
        lastName: `Last${label}${tag}`,
      });
      const secrets: string[] = [];
      const org = await bookingOrg(logged, { questions: [{ id: 'company', label: 'Company', type: 'text' }] });
      const owner = { apiKey: org.apiKey };

      // A booking with answers, and one the slot check refuses.
      const booker = person('booker');
      const booked = await logged.http.post(
        '/v1/bookings',
        bookingBody(org.eventTypeId, '2027-03-03T09:00:00Z', { attendee: booker, answers: { company: `Answer${tag}` } }),
        owner,
      );
      expect(booked.status).toBe(201);
      const refusedPerson = person('refused');
      const refused = await logged.http.post(
        '/v1/bookings',
        bookingBody(org.eventTypeId, '2027-03-03T09:00:00Z', { attendee: refusedPerson, answers: { company: `Refused${tag}` } }),
        owner,
      );
      expect(refused.status).toBe(409);
      // The attendee reads and cancels with the confirmation token.
      const { id, confirmationToken } = booked.body.booking as { id: string; confirmationToken: string };
      expect(
        (await logged.http.get(`/v1/public/bookings/${id}`, { headers: { authorization: `Token ${confirmationToken}` } })).status,
      ).toBe(200);
      expect((await logged.http.post(`/v1/bookings/${id}/cancel`, { token: confirmationToken, reason: `Reason${tag}` })).status).toBe(200);

      // From the browser: a hold, and a booking through it.
      const shop = 'https://shop.example.test';
      const pk = (await createApiKey(logged.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [shop] })).apiKey;
      const fromShop = { apiKey: pk, headers: { origin: shop } };
      const held = await logged.http.post(
        '/v1/public/holds',
        { eventTypeId: org.eventTypeId, startTime: '2027-03-03T10:00:00Z', timezone: 'UTC' },
        fromShop,
      );
      expect(held.status).toBe(201);
      const visitor = person('visitor');
      const publicBooking = await logged.http.post(
        '/v1/public/bookings',
        {
          ...bookingBody(org.eventTypeId, '2027-03-03T10:00:00Z', { attendee: visitor, answers: { company: `Public${tag}` } }),
          holdId: held.body.hold.id,
          holdToken: held.body.holdToken,
        },
        { ...fromShop, headers: { ...fromShop.headers, 'idempotency-key': `page-${tag}` } },
      );
      expect(publicBooking.status).toBe(201);
      const anotherHold = await logged.http.post(
        '/v1/public/holds',
        { eventTypeId: org.eventTypeId, startTime: '2027-03-03T11:00:00Z', timezone: 'UTC' },
        fromShop,
      );
      expect(
        (
          await logged.http.post(
            `/v1/public/holds/${anotherHold.body.hold.id}/release`,
            { holdToken: anotherHold.body.holdToken },
            fromShop,
          )
        ).status,
      ).toBe(204);

      // The host's calendar feed: its token is in the path.
      const feedUrl = (await logged.http.get('/v1/users/me/calendar-feed', { token: org.owner.accessToken })).body.url as string;
      const feedPath = new URL(feedUrl).pathname;
      const feedToken = feedPath
        .split('/')
        .pop()!
        .replace(/\.ics$/, '');
      expect((await fetch(`${logged.url}${feedPath}`)).status).toBe(200);

      secrets.push(
        ...[booker, refusedPerson, visitor].flatMap((p) => [p.email, p.firstName, p.lastName]),
        `Answer${tag}`,
        `Refused${tag}`,
        `Public${tag}`,
        `Reason${tag}`,
        confirmationToken,
        publicBooking.body.booking.confirmationToken as string,
        held.body.holdToken as string,
        anotherHold.body.holdToken as string,
        feedToken,
        // The host's own: registration binds the email; credentials.
        org.owner.email,
        org.owner.accessToken,
        org.owner.refreshToken,
        org.apiKey,
        pk,
      );
      const server = await serverLog();
      expect(server).toContain(control);
      // Statements were logged, with their durations, and no bound value after them.
      expect(server.match(/duration: [\d.]+ ms {2}(statement|execute [^:]*):/g)?.length).toBeGreaterThan(100);
      for (const secret of secrets) expect({ secret, found: server.includes(secret) }).toEqual({ secret, found: false });
      const service = lines.join('');
      expect(service).toContain('/v1/calendar-feeds/[redacted]');
      for (const secret of secrets) expect({ secret, found: service.includes(secret) }).toEqual({ secret, found: false });
    } finally {
      await logged?.close();
      await logEverything(false);
      await admin.end();
    }
  });
});
