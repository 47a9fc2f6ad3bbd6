import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort, runMigrations } from '@app/database';
import { startTestApp } from './support/app.js';
import { bookingBody, bookingOrg, NOW, type BookingOrg } from './support/bookings.js';
import { dumpAllRows } from './support/database.js';
import { ensureDebianPackages } from './support/debian-packages.js';
import { stopChild, waitFor } from './support/process.js';

const run = promisify(execFile);

/** Debian's PostgreSQL 15 (the package the failover tests run): its server, and its pg_dump and pg_restore. */
const DEBIAN_POSTGRES = '/usr/lib/postgresql/15/bin';
const asRoot = process.getuid?.() === 0;

function uidOf(name: string): { uid: number; gid: number } {
  const id = (flag: string): number => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * A PostgreSQL server of this file's own, from Debian's binaries: the procedure of docs/operating/backups.md needs the
 * pg_dump and pg_restore of the server's major version, and the embedded server of `npm test` (newer than the
 * machine's client tools) has none. As root it runs as the `postgres` user the package made.
 */
class DebianPostgres {
  private constructor(
    private readonly child: ChildProcess,
    private readonly directory: string,
    readonly port: number,
  ) {}

  static async start(): Promise<DebianPostgres> {
    ensureDebianPackages(['postgresql-15']);
    const directory = mkdtempSync(join(tmpdir(), 'sched-backup-'));
    chmodSync(directory, 0o755);
    const data = join(directory, 'data');
    mkdirSync(data, { mode: 0o700 });
    const user = asRoot ? uidOf('postgres') : undefined;
    if (user) chownSync(data, user.uid, user.gid);
    execFileSync(join(DEBIAN_POSTGRES, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'], {
      ...user,
      stdio: 'ignore',
      env: { PATH: process.env.PATH, LC_ALL: 'C' },
    });
    const port = await freePort();
    const settings = ['listen_addresses=127.0.0.1', 'unix_socket_directories=', 'fsync=off', 'max_connections=60'];
    const child = spawn(join(DEBIAN_POSTGRES, 'postgres'), ['-D', data, '-p', String(port), ...settings.flatMap((s) => ['-c', s])], {
      ...user,
      stdio: 'ignore',
      env: { PATH: process.env.PATH, LC_ALL: 'C' },
    });
    const server = new DebianPostgres(child, directory, port);
    await waitFor(
      async () => {
        const client = new pg.Client({ connectionString: server.url('postgres') });
        try {
          await client.connect();
          return true;
        } catch {
          return undefined;
        } finally {
          await client.end().catch(() => undefined);
        }
      },
      30_000,
      'Debian PostgreSQL 15 accepting connections',
    );
    return server;
  }

  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async query<T extends pg.QueryResultRow>(database: string, text: string): Promise<T[]> {
    const client = new pg.Client({ connectionString: this.url(database) });
    await client.connect();
    try {
      return (await client.query<T>(text)).rows;
    } finally {
      await client.end();
    }
  }

  async stop(): Promise<void> {
    await stopChild(this.child);
    rmSync(this.directory, { recursive: true, force: true });
  }
}

/**
 * docs/operating/backups.md as written: bookings on a database, `pg_dump --format=custom`, `pg_restore
 * --single-transaction` into a new database, every row back, and the service on the copy answering the same bookings
 * to the same key.
 */
describe('backup and restore (docs/operating/backups.md)', () => {
  let server: DebianPostgres;
  const dumps = mkdtempSync(join(tmpdir(), 'sched-dumps-'));

  beforeAll(async () => {
    server = await DebianPostgres.start();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dumps, { recursive: true, force: true });
  });

  it('a custom-format dump restored into a new database holds every row, and the service reads the same bookings from it', async () => {
    await server.query('postgres', 'CREATE DATABASE scheduling');
    await runMigrations(server.url('scheduling'));

    // Bookings on the source: confirmed ones, a cancelled one, a test-mode one.
    const source = await startTestApp({ databaseUrl: server.url('scheduling') });
    let org: BookingOrg;
    let listed: unknown;
    let detail: unknown;
    let first: string;
    try {
      org = await bookingOrg(source);
      const ids: string[] = [];
      for (const start of ['2027-03-01T09:00:00Z', '2027-03-01T10:00:00Z', '2027-03-02T14:30:00Z']) {
        const res = await source.http.post('/v1/bookings', bookingBody(org.eventTypeId, start), { apiKey: org.apiKey });
        expect(res.status).toBe(201);
        ids.push(res.body.booking.id as string);
      }
      expect((await source.http.post(`/v1/bookings/${ids[1]}/cancel`, { reason: 'backup test' }, { apiKey: org.apiKey })).status).toBe(200);
      expect(
        (await source.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-03T09:00:00Z'), { apiKey: org.testKey })).status,
      ).toBe(201);
      listed = (await source.http.get('/v1/bookings?limit=100', { apiKey: org.apiKey })).body;
      first = ids[0];
      detail = (await source.http.get(`/v1/bookings/${first}`, { apiKey: org.apiKey })).body;
      expect((listed as { bookings: unknown[] }).bookings).toHaveLength(3);
    } finally {
      // Quiet, so the rows compared below are the rows dumped (a dump of a running service is as consistent: one snapshot).
      await source.close();
    }

    // The server's own major version's tools.
    const [{ server_version_num: version }] = await server.query<{ server_version_num: string }>('postgres', 'SHOW server_version_num');
    const bin = `/usr/lib/postgresql/${Math.floor(Number(version) / 10000)}/bin`;
    const file = join(dumps, 'scheduling.dump');
    await run(join(bin, 'pg_dump'), ['--format=custom', '--no-owner', `--file=${file}`, server.url('scheduling')]);
    const listing = await run(join(bin, 'pg_restore'), ['--list', file]);
    expect(listing.stdout).toContain('TABLE DATA public bookings');

    await server.query('postgres', 'CREATE DATABASE scheduling_restored');
    await run(join(bin, 'pg_restore'), [
      '--no-owner',
      '--exit-on-error',
      '--single-transaction',
      `--dbname=${server.url('scheduling_restored')}`,
      file,
    ]);

    expect(await dumpAllRows(server.url('scheduling_restored'))).toBe(await dumpAllRows(server.url('scheduling')));

    const restored = await startTestApp({ databaseUrl: server.url('scheduling_restored') });
    try {
      restored.clock.set(NOW);
      const again = await restored.http.get('/v1/bookings?limit=100', { apiKey: org!.apiKey });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(listed);
      expect((await restored.http.get(`/v1/bookings/${first!}`, { apiKey: org!.apiKey })).body).toEqual(detail);
      // The test-mode booking came back too, for the test key only.
      const test = await restored.http.get('/v1/bookings?limit=100', { apiKey: org!.testKey });
      expect(test.body.bookings).toHaveLength(1);
    } finally {
      await restored.close();
    }
  }, 180_000);
});
