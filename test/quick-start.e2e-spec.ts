import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, ROOT_BASE } from '@app/database';
import { cleanEnv, descendantCommands, descendantsMatching, spawnShell, waitFor, type SpawnedProcess } from './support/process.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

/** What a fresh clone of the working tree holds: the files git tracks, and new ones it does not ignore. */
function freshClone(target: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && existsSync(join(ROOT, file)));
  for (const file of files) {
    mkdirSync(dirname(join(target, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(target, file));
  }
}

function uidOf(name: string): { uid: number; gid: number } {
  const id = (flag: string): number => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

const asRoot = process.getuid?.() === 0;

/**
 * How long `npm install && npm start` may take before /health/ready answers: an install and a full build (the API, its
 * types, the console and the booker) on a 2-core machine whose other three test workers keep both cores busy: once
 * over 240 s in CI. A timeout names the processes still running under the command and its output at that moment.
 */
const READY_WITHIN_MS = 420_000;
const QUICK_START_TEST_MS = READY_WITHIN_MS + 60_000;

/**
 * The README's first command, run as written from a fresh clone in a directory only its owner may enter (0700: a home
 * directory, a `mktemp -d`), on a fresh data directory, with no DATABASE_URL: first as whoever runs the tests (root in
 * CI), then as an unprivileged user (`nobody`) when the tests run as root.
 */
describe('quick start', () => {
  const home = mkdtempSync(join(tmpdir(), 'sched-quickstart-')); // mode 0700
  const clone = join(home, 'scheduling');
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const command = readme.match(/^\s*(npm install && npm start)\s*$/m)?.[1];

  beforeAll(() => freshClone(clone));
  afterAll(() => {
    // As root in a private directory the cluster lived under ROOT_BASE (docs/operating/deployment.md, the embedded database): remove that too.
    const location = join(clone, '.data', 'postgres-location');
    if (existsSync(location)) rmSync(join(ROOT_BASE, 'data', readFileSync(location, 'utf8').trim()), { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  async function quickStart(user?: { uid: number; gid: number }): Promise<void> {
    expect(command).toBe('npm install && npm start');
    const port = await freePort();
    const env = cleanEnv({ PORT: String(port), LOG_LEVEL: 'warn', npm_config_audit: 'false', npm_config_fund: 'false' });
    // npm's cache, as a newcomer's would be: their own (the root run's is the machine's, already warm).
    if (user) Object.assign(env, { HOME: home, npm_config_cache: join(home, '.npm') });
    const proc: SpawnedProcess = spawnShell(command!, env, clone, user);
    try {
      const ready = await waitFor(
        async () => {
          const res = await fetch(`http://127.0.0.1:${port}/health/ready`);
          return res.status === 200 ? res : undefined;
        },
        READY_WITHIN_MS,
        () =>
          `/health/ready; running: ${descendantCommands(proc.child.pid!).join(' | ') || 'nothing'}; output so far: ${proc.output().slice(-2000)}`,
      );
      expect(ready.status).toBe(200);
      const docs = await fetch(`http://127.0.0.1:${port}/docs-json`);
      expect(docs.status).toBe(200);
      expect(((await docs.json()) as { openapi: string }).openapi).toMatch(/^3\./);
      // The console is built by the same command and served by the same process.
      const admin = await fetch(`http://127.0.0.1:${port}/admin/bookings`);
      expect(admin.status).toBe(200);
      const script = (await admin.text()).match(/src="(\/admin\/assets\/[^"]+\.js)"/)?.[1];
      expect(script).toBeDefined();
      expect((await fetch(`http://127.0.0.1:${port}${script}`)).status).toBe(200);
      // SIGTERM to the server itself, as an orchestrator would: it must stop cleanly and exit 0.
      const [server] = descendantsMatching(proc.child.pid!, 'dist/apps/api/src/main.js');
      expect(server).toBeDefined();
      process.kill(server, 'SIGTERM');
      // Promptly, though the script's answer above was never read (a connection still busy at the close once kept the
      // process for Fastify's 72 s keep-alive timeout: longer than an orchestrator waits).
      const stopping = Date.now();
      expect(await proc.exited).toBe(0);
      expect(Date.now() - stopping).toBeLessThan(15_000);
    } finally {
      if (proc.child.exitCode === null) process.kill(-proc.child.pid!, 'SIGKILL');
    }
  }

  it(
    'npm install && npm start from a fresh clone in a 0700 directory serves /health/ready, /docs-json and the console on an embedded database, and stops cleanly',
    async () => {
      await quickStart();
      if (asRoot) {
        // PostgreSQL refuses root and its user cannot enter this directory: the cluster was placed where it can.
        expect(existsSync(join(clone, '.data', 'postgres-location'))).toBe(true);
        expect(existsSync(join(clone, '.data', 'postgres'))).toBe(false);
      }
    },
    QUICK_START_TEST_MS,
  );

  it(
    'works the same for an unprivileged user (nobody, when the tests run as root) in their own 0700 directory',
    async () => {
      const user = asRoot ? uidOf('nobody') : undefined;
      if (user) {
        rmSync(join(clone, '.data'), { recursive: true, force: true });
        execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, home]);
        chmodSync(home, 0o700);
      }
      await quickStart(user);
      // An ordinary user runs PostgreSQL as itself, its data inside the clone.
      expect(existsSync(join(clone, '.data', 'postgres', 'PG_VERSION'))).toBe(true);
    },
    QUICK_START_TEST_MS,
  );

  it.each([
    [{ PORT: 'abc' }, /^Configuration error: PORT must be an integer/],
    [{ NODE_ENV: 'production' }, /^Configuration error: DATABASE_URL is required/],
    [
      { NODE_ENV: 'production', DATABASE_URL: 'postgres://127.0.0.1/x', JWT_SECRET: 'short' },
      /^Configuration error: JWT_SECRET must be at least 32/,
    ],
    [{ TRUST_PROXY: 'true' }, /^Configuration error: TRUST_PROXY must not be true/],
    [{ TRUST_PROXY: '10.0.0.0/33' }, /^Configuration error: TRUST_PROXY must be a number of proxies .* \(got "10\.0\.0\.0\/33"\)$/],
  ])('a bad configuration %j stops the built service with one line naming the variable', async (env, expected) => {
    // Runs after the quick start above, which built the clone's dist/.
    const proc = spawnShell(
      'node dist/apps/api/src/main.js',
      cleanEnv({ ...env, DATA_DIR: mkdtempSync(join(tmpdir(), 'sched-badcfg-')) }),
      clone,
    );
    expect(await proc.exited).toBe(1);
    const lines = proc.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(expected);
  });

  it('an embedded database that cannot start stops the service with one line naming the cause and the fix', async () => {
    // A cluster directory that is not one: PostgreSQL refuses it, the service says so and exits 1 (no stack trace).
    const dataDir = mkdtempSync(join(tmpdir(), 'sched-baddb-'));
    chmodSync(dataDir, 0o755);
    mkdirSync(join(dataDir, 'postgres', 'base'), { recursive: true });
    execFileSync('sh', ['-c', `echo 99 > ${join(dataDir, 'postgres', 'PG_VERSION')}`]);
    if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', join(dataDir, 'postgres')]);
    const proc = spawnShell('node dist/apps/api/src/main.js', cleanEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' }), clone);
    expect(await proc.exited).toBe(1);
    const lines = proc.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Startup failed: embedded PostgreSQL: .*set DATABASE_URL/);
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);
});
