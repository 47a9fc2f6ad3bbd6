import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataSource } from 'typeorm';
import { ConfigError, loadConfig, SecretSealer } from '@app/common';
import { checkEncryptionKey, completeRotation } from '../apps/api/src/encryption-key-check.js';
import { CalendarSecretReseal } from '../apps/api/src/modules/calendars/calendar-secret-reseal.service.js';
import { WebhookSecretReseal } from '../apps/api/src/modules/webhooks/webhook-secret-reseal.service.js';
import { startTestApp, TEST_DB_POOL_SIZE, TEST_JWT_SECRET } from './support/app.js';
import { cloneTestDatabase } from './support/database.js';
import { registerOwner } from './support/factories.js';
import { cleanEnv, compiledServer, spawnShell, waitFor, type SpawnedProcess } from './support/process.js';
import { createWebhook } from './support/webhooks.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const KEY_A = Buffer.alloc(32, 0xa1).toString('base64');
const KEY_B = Buffer.alloc(32, 0xb2).toString('base64');

function configWith(databaseUrl: string, key: string, previous?: string) {
  return loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    JWT_SECRET: TEST_JWT_SECRET,
    ENCRYPTION_KEY: key,
    ...(previous ? { ENCRYPTION_KEY_PREVIOUS: previous } : {}),
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

describe('ENCRYPTION_KEY must open the database’s check value (issue 29)', () => {
  it('is recorded by the first instance, refused for another key, and carried over by a rotation', async () => {
    const database = await cloneTestDatabase();
    try {
      expect(await checkEncryptionKey(configWith(database.url, KEY_A))).toBe('recorded');
      expect(await checkEncryptionKey(configWith(database.url, KEY_A))).toBe('matched');
      await expect(checkEncryptionKey(configWith(database.url, KEY_B))).rejects.toThrow(ConfigError);
      await expect(checkEncryptionKey(configWith(database.url, KEY_B))).rejects.toThrow(/^ENCRYPTION_KEY .*ENCRYPTION_KEY_PREVIOUS/);
      // A rotation: the new key with the old one as previous starts, and leaves the value the old key's until the
      // re-sealing jobs have moved every secret (completeRotation): the new key alone is refused till then.
      expect(await checkEncryptionKey(configWith(database.url, KEY_B, KEY_A))).toBe('rotating');
      await expect(checkEncryptionKey(configWith(database.url, KEY_B))).rejects.toThrow(ConfigError);
      expect(await checkEncryptionKey(configWith(database.url, KEY_A))).toBe('matched');
      expect(await completeRotation(configWith(database.url, KEY_B, KEY_A))).toBe('rotated');
      expect(await completeRotation(configWith(database.url, KEY_B, KEY_A))).toBe('current');
      expect(await checkEncryptionKey(configWith(database.url, KEY_B))).toBe('matched');
      await expect(checkEncryptionKey(configWith(database.url, KEY_A))).rejects.toThrow(ConfigError);
      // Instances starting together agree on one value.
      const fresh = await cloneTestDatabase();
      try {
        const outcomes = await Promise.all(Array.from({ length: 5 }, () => checkEncryptionKey(configWith(fresh.url, KEY_A))));
        expect(outcomes.filter((outcome) => outcome === 'recorded')).toHaveLength(1);
      } finally {
        await fresh.drop();
      }
    } finally {
      await database.drop();
    }
  });

  it('moves the check value to the new key only once every webhook and calendar secret is re-sealed under it', async () => {
    const database = await cloneTestDatabase();
    const feed = createHttpServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/calendar' });
      response.end('BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nEND:VCALENDAR\r\n');
    });
    await new Promise<void>((done) => feed.listen(0, '127.0.0.1', done));
    const apps: { app: { close(): Promise<void> } }[] = [];
    try {
      expect(await checkEncryptionKey(configWith(database.url, KEY_A))).toBe('recorded');
      // Secrets sealed with the old key, through the API of an instance that has it.
      const old = await startTestApp({ databaseUrl: database.url, env: { ENCRYPTION_KEY: KEY_A, RUN_WORKERS: 'false' } });
      apps.push(old);
      const owner = await registerOwner(old.http);
      const hook = await createWebhook(old.http, { token: owner.accessToken }, { url: 'http://127.0.0.1:9/hook', events: ['*'] });
      const feedUrl = `http://127.0.0.1:${(feed.address() as AddressInfo).port}/private.ics`;
      const calendar = await old.http.post('/v1/calendars', { type: 'ics', url: feedUrl }, { token: owner.accessToken });
      expect(calendar.status).toBe(201);

      // The rotation starts; an instance with the new key alone is refused while any secret needs the old one.
      expect(await checkEncryptionKey(configWith(database.url, KEY_B, KEY_A))).toBe('rotating');
      const rotating = await startTestApp({
        databaseUrl: database.url,
        env: { ENCRYPTION_KEY: KEY_B, ENCRYPTION_KEY_PREVIOUS: KEY_A, RUN_WORKERS: 'false' },
      });
      apps.push(rotating);
      await expect(checkEncryptionKey(configWith(database.url, KEY_B))).rejects.toThrow(/^ENCRYPTION_KEY /);
      expect(await rotating.app.get(WebhookSecretReseal).resealAll()).toBe(1);
      // The webhook secrets are done, the calendar secrets are not: still refused.
      await expect(checkEncryptionKey(configWith(database.url, KEY_B))).rejects.toThrow(ConfigError);
      expect(await rotating.app.get(CalendarSecretReseal).resealAll()).toBe(1);
      expect(await checkEncryptionKey(configWith(database.url, KEY_B))).toBe('matched');
      await expect(checkEncryptionKey(configWith(database.url, KEY_A))).rejects.toThrow(ConfigError);

      // And the new key alone opens every secret the check value now vouches for.
      const newOnly = new SecretSealer(configWith(database.url, KEY_B));
      const db = rotating.app.get(DataSource);
      const [{ secret_ciphertext: webhookSecret }] = await db.query(`SELECT secret_ciphertext FROM webhooks WHERE id = $1`, [hook.id]);
      expect(newOnly.open(webhookSecret, hook.id)).toBe(hook.secret);
      const [{ sealed_url: sealedUrl }] = await db.query(`SELECT sealed_url FROM calendar_connections WHERE id = $1`, [
        calendar.body.calendar.id,
      ]);
      expect(newOnly.open(sealedUrl, calendar.body.calendar.id)).toBe(feedUrl);
    } finally {
      for (const started of apps.reverse()) await started.app.close();
      await new Promise((done) => feed.close(done));
      await database.drop();
    }
  });

  describe('the processes, as they run in production', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'sched-key-check-'));
    let server: { api: string; worker: string };
    const processes: SpawnedProcess[] = [];
    let databaseUrl: string;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      server = await compiledServer();
      const database = await cloneTestDatabase();
      databaseUrl = database.url;
      drop = () => database.drop();
    }, 90_000);

    afterAll(async () => {
      for (const proc of processes) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
      await Promise.all(processes.map((proc) => proc.exited));
      await drop?.();
      rmSync(scratch, { recursive: true, force: true });
    });

    function start(app: 'api' | 'worker', port: number, key: string, previous?: string): SpawnedProcess {
      // cleanEnv drops the test run's database settings: this process gets its own after it.
      const env = {
        ...cleanEnv({}),
        NODE_ENV: 'test',
        PORT: String(port),
        DATABASE_URL: databaseUrl,
        JWT_SECRET: TEST_JWT_SECRET,
        DB_POOL_SIZE: TEST_DB_POOL_SIZE,
        ENCRYPTION_KEY: key,
        ...(previous ? { ENCRYPTION_KEY_PREVIOUS: previous } : {}),
        LOG_LEVEL: 'info',
        DATA_DIR: join(scratch, `data-${port}`),
        RUN_WORKERS: 'false',
        ADMIN_DIR: join(scratch, 'no-console'),
        // A worker's /metrics on any free port: another test file's worker may have the default 9464.
        METRICS_PORT: '0',
      };
      const proc = spawnShell(`exec node ${server[app]}`, env, ROOT);
      processes.push(proc);
      return proc;
    }

    const ready = (port: number) =>
      waitFor(
        async () => ((await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200 ? true : undefined),
        30_000,
        `port ${port}`,
      );

    it('a second instance with another key exits before listening, naming the variable; the first serves on; a rotation starts', async () => {
      const first = await freePort();
      start('api', first, KEY_A);
      await ready(first);

      const wrong = await freePort();
      const refused = start('api', wrong, KEY_B);
      expect(await refused.exited).not.toBe(0);
      const line = refused
        .output()
        .split('\n')
        .find((text) => text.includes('ENCRYPTION_KEY'));
      expect(line).toMatch(/^Configuration error: ENCRYPTION_KEY does not open .*ENCRYPTION_KEY_PREVIOUS/);
      await expect(fetch(`http://127.0.0.1:${wrong}/health`)).rejects.toThrow();
      expect((await fetch(`http://127.0.0.1:${first}/health/ready`)).status).toBe(200);

      // The worker makes the same check.
      const worker = start('worker', 0, KEY_B);
      expect(await worker.exited).not.toBe(0);
      expect(worker.output()).toContain('Configuration error: ENCRYPTION_KEY');

      // The new key with the old one as previous starts; the new key alone does not, until a worker's re-sealing
      // jobs have found every secret under the new key (none here) and moved the check value to it.
      const rotating = await freePort();
      start('api', rotating, KEY_B, KEY_A);
      await ready(rotating);
      const early = start('api', await freePort(), KEY_B);
      expect(await early.exited).not.toBe(0);
      expect(early.output()).toContain('Configuration error: ENCRYPTION_KEY does not open');
      start('worker', 0, KEY_B, KEY_A);
      await waitFor(
        async () => ((await checkEncryptionKey(configWith(databaseUrl, KEY_B))) === 'matched' ? true : undefined),
        30_000,
        'the re-sealed check value',
      );
      const newOnly = await freePort();
      start('api', newOnly, KEY_B);
      await ready(newOnly);
    }, 90_000);
  });
});
