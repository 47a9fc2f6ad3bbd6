import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export default async function globalTeardown(): Promise<void> {
  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL;
  const template = process.env.TEST_TEMPLATE_DATABASE;
  // This run's builds: the browser files' (test/support/browser.ts RUN_BUILDS), the compiled server (test/support/process.ts REPO_RUN_BUILDS).
  if (template) {
    rmSync(join(tmpdir(), `sched-builds-${template}`), { recursive: true, force: true });
    rmSync(join(ROOT, '.data', `test-builds-${template}`), { recursive: true, force: true });
  }
  if (adminUrl && template) {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      // The template, and any clone of this run a file could not drop (test/support/database.ts names them after it).
      const clones = await admin.query<{ name: string }>(
        `SELECT datname AS name FROM pg_database WHERE left(datname, length($1) + 1) = $1 || '_'`,
        [template],
      );
      for (const { name } of clones.rows) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  }
  const embedded = globalThis.__EMBEDDED_PG__;
  if (embedded) {
    await embedded.server.stop();
    // The cluster's directory: in place, or (root, unreachable temp directory) the launcher's own location.
    rmSync(embedded.server.options.directory, { recursive: true, force: true });
    rmSync(embedded.directory, { recursive: true, force: true });
  }
}
