import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '@app/common';
import { checkEncryptionKey } from '../apps/api/src/encryption-key-check.js';
import { TEST_JWT_SECRET } from './support/app.js';
import { cloneTestDatabase } from './support/database.js';
import { cleanEnv, compileEntries, spawnShell, waitFor, type SpawnedProcess } from './support/process.js';

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
      // A rotation: the new key, the old one as previous.
      expect(await checkEncryptionKey(configWith(database.url, KEY_B, KEY_A))).toBe('rotated');
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

  describe('the processes, as they run in production', () => {
    const buildDir = join(ROOT, '.data', `key-build-${process.pid}`);
    const processes: SpawnedProcess[] = [];
    let databaseUrl: string;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      await compileEntries(buildDir, ['apps/api/src/main.ts', 'apps/worker/src/main.ts']);
      const database = await cloneTestDatabase();
      databaseUrl = database.url;
      drop = () => database.drop();
    }, 90_000);

    afterAll(async () => {
      for (const proc of processes) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
      await Promise.all(processes.map((proc) => proc.exited));
      await drop?.();
      rmSync(buildDir, { recursive: true, force: true });
    });

    function start(app: 'api' | 'worker', port: number, key: string, previous?: string): SpawnedProcess {
      // cleanEnv drops the test run's database settings: this process gets its own after it.
      const env = {
        ...cleanEnv({}),
        NODE_ENV: 'test',
        PORT: String(port),
        DATABASE_URL: databaseUrl,
        JWT_SECRET: TEST_JWT_SECRET,
        ENCRYPTION_KEY: key,
        ...(previous ? { ENCRYPTION_KEY_PREVIOUS: previous } : {}),
        LOG_LEVEL: 'info',
        DATA_DIR: join(buildDir, `data-${port}`),
        RUN_WORKERS: 'false',
        ADMIN_DIR: join(buildDir, 'no-console'),
      };
      const proc = spawnShell(`exec node ${join(buildDir, `apps/${app}/src/main.js`)}`, env, ROOT);
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

      // The new key with the old one as previous starts, and re-seals: afterwards the new key alone starts too.
      const rotating = await freePort();
      start('api', rotating, KEY_B, KEY_A);
      await ready(rotating);
      const newOnly = await freePort();
      start('api', newOnly, KEY_B);
      await ready(newOnly);
    }, 90_000);
  });
});
