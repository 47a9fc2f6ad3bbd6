import pg from 'pg';
import { startTestApp, type TestApp } from './support/app.js';

/** With nothing to send, the mail and webhook workers must wait, not poll the database in a loop. */
describe('idle workers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { RUN_WORKERS: 'true' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('commit only a handful of transactions per second while there is no work', async () => {
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    try {
      const database = new URL(t.databaseUrl).pathname.slice(1);
      const commits = async (): Promise<number> =>
        Number((await client.query('SELECT xact_commit FROM pg_stat_database WHERE datname = $1', [database])).rows[0].xact_commit);
      await new Promise((r) => setTimeout(r, 500));
      const before = await commits();
      await new Promise((r) => setTimeout(r, 2000));
      const perSecond = ((await commits()) - before) / 2;
      expect(perSecond).toBeLessThan(20);
    } finally {
      await client.end();
    }
  });
});
