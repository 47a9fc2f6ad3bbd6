import { readFileSync, mkdtempSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '@app/database';
import { fileURLToPath } from 'node:url';
import { cleanEnv, descendantsMatching, spawnShell, waitFor } from './support/process.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

/** The README's first command, run as written on a fresh data directory with no DATABASE_URL. */
describe('quick start', () => {
  it('npm install && npm start serves /health/ready, /docs-json and the console on an embedded database, and stops cleanly', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const command = readme.match(/^\s*(npm install && npm start)\s*$/m)?.[1];
    expect(command).toBe('npm install && npm start');

    const dataDir = mkdtempSync(join(tmpdir(), 'sched-quickstart-'));
    chmodSync(dataDir, 0o755);
    const port = await freePort();
    const started = Date.now();
    const proc = spawnShell(
      command!,
      cleanEnv({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', npm_config_audit: 'false' }),
      ROOT,
    );
    try {
      const ready = await waitFor(
        async () => {
          const res = await fetch(`http://127.0.0.1:${port}/health/ready`);
          return res.status === 200 ? res : undefined;
        },
        150_000,
        `/health/ready (output so far: ${proc.output().slice(-2000)})`,
      );
      expect(ready.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(150_000);
      const docs = await fetch(`http://127.0.0.1:${port}/docs-json`);
      expect(docs.status).toBe(200);
      expect(((await docs.json()) as { openapi: string }).openapi).toMatch(/^3\./);
      // The console is built by the same command and served by the same process.
      const admin = await fetch(`http://127.0.0.1:${port}/admin/bookings`);
      expect(admin.status).toBe(200);
      const page = await admin.text();
      const script = page.match(/src="(\/admin\/assets\/[^"]+\.js)"/)?.[1];
      expect(script).toBeDefined();
      expect((await fetch(`http://127.0.0.1:${port}${script}`)).status).toBe(200);
      // SIGTERM to the server itself, as an orchestrator would: it must stop cleanly and exit 0.
      const [server] = descendantsMatching(proc.child.pid!, 'dist/apps/api/src/main.js');
      expect(server).toBeDefined();
      process.kill(server, 'SIGTERM');
      expect(await proc.exited).toBe(0);
    } finally {
      if (proc.child.exitCode === null) process.kill(-proc.child.pid!, 'SIGKILL');
    }
  }, 200_000);

  it.each([
    [{ PORT: 'abc' }, /^Configuration error: PORT must be an integer/],
    [{ NODE_ENV: 'production' }, /^Configuration error: DATABASE_URL is required/],
    [
      { NODE_ENV: 'production', DATABASE_URL: 'postgres://127.0.0.1/x', JWT_SECRET: 'short' },
      /^Configuration error: JWT_SECRET must be at least 32/,
    ],
  ])('a bad configuration %j stops the built service with one line naming the variable', async (env, expected) => {
    // Runs after the quick start above, which built dist/.
    const proc = spawnShell(
      'node dist/apps/api/src/main.js',
      cleanEnv({ ...env, DATA_DIR: mkdtempSync(join(tmpdir(), 'sched-badcfg-')) }),
      ROOT,
    );
    expect(await proc.exited).toBe(1);
    const lines = proc.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(expected);
  });
});
