import pg from 'pg';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingOrg, type BookingOrg } from './support/bookings.js';
import { cloneTestDatabase } from './support/database.js';
import { call, sleep } from './support/outage.js';
import { FreezableProxy } from './support/tcp-proxy.js';

/*
 * Section 19: a statement the client gives up on (pg's `query_timeout`, a second after the server's own statement
 * timeout: the server stopped answering) takes its connection out of the pool. Before, TypeORM handed the connection
 * back as healthy and the next request on it queued behind the dead statement until its own timeout (a 503).
 *
 * The request's statement waits on a lock the test holds, and the proxy in front of PostgreSQL holds back the server's
 * answers on that one connection: the server's statement timeout fires, but the client never hears it.
 */

const STATEMENT_TIMEOUT_MS = 1500;
/** pg's query_timeout in poolOptions: the statement timeout plus a second. */
const CLIENT_TIMEOUT_MS = STATEMENT_TIMEOUT_MS + 1000;

describe('a client-side query timeout', () => {
  let database: { url: string; drop(): Promise<void> };
  let proxy: FreezableProxy;
  let t: TestApp;
  let org: BookingOrg;
  let admin: pg.Client;

  beforeAll(async () => {
    database = await cloneTestDatabase();
    const target = new URL(database.url);
    proxy = await FreezableProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    t = await startTestApp({
      databaseUrl: proxy.url(database.url),
      env: { DB_POOL_SIZE: '2', DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS), RUN_WORKERS: 'false' },
    });
    org = await bookingOrg(t);
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  }, 60_000);

  afterAll(async () => {
    await admin?.end().catch(() => undefined);
    await t?.close();
    await proxy?.close();
    await database?.drop();
  });

  const listEventTypes = () => call(`${t.url}/v1/event-types`, { headers: { authorization: `Bearer ${org.apiKey}` }, timeoutMs: 20_000 });

  /** The app's session waiting on the test's lock: its pid and the port of its socket (the proxy's side). */
  async function blockedSession(): Promise<{ pid: number; port: number }> {
    const deadline = Date.now() + STATEMENT_TIMEOUT_MS - 300;
    while (Date.now() < deadline) {
      const rows = await admin.query<{ pid: number; client_port: number }>(
        `SELECT pid, client_port FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
      );
      if (rows.rows[0]) return { pid: rows.rows[0].pid, port: rows.rows[0].client_port };
      await sleep(20);
    }
    throw new Error('no session of the app waited on the lock');
  }

  it('takes its connection out of the pool: the next requests answer at once and the server session is gone', async () => {
    expect((await listEventTypes()).status).toBe(200);

    await admin.query('BEGIN');
    await admin.query('LOCK TABLE event_types IN ACCESS EXCLUSIVE MODE');
    const stuck = listEventTypes();
    const session = await blockedSession();
    expect(proxy.freeze(session.port)).toBe(true);

    const failed = await stuck;
    expect(failed.status).toBe(503);
    expect(failed.body.code).toBe('SERVICE_UNAVAILABLE');
    expect(failed.ms).toBeGreaterThanOrEqual(CLIENT_TIMEOUT_MS - 100);
    expect(failed.ms).toBeLessThan(CLIENT_TIMEOUT_MS + 2000);
    await admin.query('ROLLBACK');

    // The connection was destroyed: the proxy closed its side to the server, whose session ends.
    const deadline = Date.now() + 3000;
    let alive = true;
    while (alive && Date.now() < deadline) {
      alive = (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [session.pid])).rowCount === 1;
      if (alive) await sleep(50);
    }
    expect(alive).toBe(false);

    // Every later request on the pool of two answers promptly: none waits behind the dead statement.
    for (let i = 0; i < 6; i++) {
      const next = await listEventTypes();
      expect({ status: next.status, fast: next.ms < 1000 }).toEqual({ status: 200, fast: true });
    }
  }, 30_000);
});
