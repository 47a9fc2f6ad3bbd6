import pg from 'pg';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { MIGRATIONS, runMigrations } from '@app/database';
import { cloneTestDatabase } from './support/database.js';

/** A migration that needs an ACCESS EXCLUSIVE lock on bookings, as any ALTER TABLE does. */
class AddProbeColumn1999999999999 implements MigrationInterface {
  name = 'AddProbeColumn1999999999999';
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "bookings" ADD "online_probe" text`);
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "bookings" DROP COLUMN "online_probe"`);
  }
}

/**
 * Migrations never queue the service's requests behind a long transaction (docs/operating/upgrades.md): an
 * ALTER TABLE waiting for its lock makes every later statement on the table wait behind it, so its wait is bounded by
 * `lock_timeout`; it gives up, the requests go on, and it is tried again until it gets the lock.
 */
describe('migrations wait for a lock a bounded time, and try again', () => {
  let db: { url: string; drop(): Promise<void> };
  const clients: pg.Client[] = [];
  const connect = async (): Promise<pg.Client> => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    clients.push(client);
    return client;
  };

  /** Until a statement waits for a lock on bookings (the migration's ALTER TABLE). */
  const waitingForBookings = async (client: pg.Client): Promise<void> => {
    for (;;) {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'bookings'::regclass`,
      );
      if (rows[0].n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  beforeAll(async () => {
    db = await cloneTestDatabase();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.end().catch(() => undefined)));
    await db?.drop();
  });

  it('a long transaction on bookings: the migration gives up after lock_timeout, reads go on meanwhile, a later try applies it', async () => {
    // A report reading bookings in a long transaction (ACCESS SHARE until it ends).
    const report = await connect();
    await report.query('BEGIN');
    await report.query('SELECT count(*) FROM bookings');

    const migrating = runMigrations(db.url, { migrations: [...MIGRATIONS, AddProbeColumn1999999999999], lockTimeoutMs: 300, attempts: 2 });
    const failed = migrating.then(
      () => null,
      (error: { code?: string }) => error,
    );
    // While the migration waits, a request's read of bookings waits behind it, but only until the migration gives up.
    const reader = await connect();
    await waitingForBookings(reader);
    const read = await reader.query<{ n: string }>('SELECT count(*) AS n FROM bookings');
    expect(read.rows[0].n).toBe('0');
    expect((await failed)?.code).toBe('55P03');
    const [{ exists }] = (
      await reader.query<{ exists: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'bookings' AND column_name = 'online_probe') AS exists`,
      )
    ).rows;
    expect(exists).toBe(false);

    // Once the long transaction ends, a try gets the lock.
    const retried = runMigrations(db.url, { migrations: [...MIGRATIONS, AddProbeColumn1999999999999], lockTimeoutMs: 300, attempts: 20 });
    await waitingForBookings(reader);
    await report.query('COMMIT');
    expect(await retried).toEqual(['AddProbeColumn1999999999999']);
  });
});
