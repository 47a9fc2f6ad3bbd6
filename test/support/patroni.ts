import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from '@app/database';
import { ensureDebianPackages } from './debian-packages.js';
import { stopChild } from './process.js';

/** deploy/ha/ of the repository, from test/support or from its compiled copy under dist-drill/test/support. */
const HA_DIR = [2, 3]
  .map((up) => resolve(fileURLToPath(new URL('.', import.meta.url)), ...Array<string>(up).fill('..'), 'deploy/ha'))
  .find((dir) => existsSync(dir))!;
const HAPROXY = '/usr/sbin/haproxy';
const ETCD = '/usr/bin/etcd';
const PATRONI = '/usr/bin/patroni';
/** Debian's PostgreSQL 15 (the YAML's bin_dir); postgresql-15 is what CI's database runs already. */
const PG_BIN = '/usr/lib/postgresql/15/bin';

/**
 * Debian's patroni, etcd-server and haproxy, installed when missing (the machines run as root and reach Debian's
 * mirror; `.ci/run` installs them too).
 */
export function ensureHaPackages(): void {
  ensureDebianPackages(['postgresql-15', 'patroni', 'etcd-server', 'haproxy']);
}

/** Which OS user PostgreSQL runs as: never root (PostgreSQL refuses it); `postgres` when we are root. */
function postgresUser(): { name: string; uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  return { name: 'postgres', uid: idOf('-u'), gid: idOf('-g') };
}

function idOf(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, 'postgres']).toString().trim());
}

interface Child {
  process: ChildProcess | undefined;
  output: string;
}

function launch(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Child {
  const child: Child = { process: undefined, output: '' };
  const proc = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (chunk: Buffer): void => {
    child.output = (child.output + chunk.toString()).slice(-200_000);
  };
  proc.stdout.on('data', keep);
  proc.stderr.on('data', keep);
  child.process = proc;
  return child;
}

export interface PatroniNode {
  name: string;
  pgPort: number;
  restPort: number;
  dataDir: string;
  agent: Child;
}

export interface ClusterMember {
  name: string;
  role: string;
  state: string;
  timeline?: number;
  lag?: number | string;
}

/**
 * An etcd member, two PostgreSQL 15 nodes under Patroni and HAProxy in front of them, on free loopback ports in a temp
 * directory: deploy/ha/'s files as they are, their addresses, data directories and passwords given through Patroni's
 * environment variables and HAProxy's bind and server lines. PostgreSQL (and Patroni, which starts it) runs as
 * `postgres` when we are root, and reads only what is in its node's own directory (owned by it): its YAML is copied
 * there, as the repository may be in a directory `postgres` cannot enter (a clone under `mktemp -d`, 0700, as root).
 * Locked down as deploy/ha/README.md says: etcd with authentication on (a `root` user, and a `patroni` user that may
 * write only under Patroni's namespace), Patroni's REST API with a username and password, PostgreSQL scram-sha-256.
 */
export class PatroniCluster {
  readonly password = randomBytes(12).toString('hex');
  /** Patroni's REST API (restapi.authentication: every call that changes something). */
  readonly restApi = { username: 'patroni', password: randomBytes(12).toString('hex') };
  /** etcd's users: `root` (administers etcd) and `patroni` (read-write on /service/ only, what Patroni uses). */
  readonly etcdUsers = { root: randomBytes(12).toString('hex'), patroni: randomBytes(12).toString('hex') };
  private etcdAuthOn = false;
  readonly nodes: PatroniNode[] = [];
  private etcd: Child | undefined;
  private haproxy: Child | undefined;
  private etcdPorts: [number, number] = [0, 0];
  haproxyPort = 0;
  /** HAProxy's replica listener (deploy/ha/haproxy.cfg `postgres_replicas`): a standby, for DATABASE_REPLICA_URLS. */
  haproxyReplicaPort = 0;

  private constructor(private readonly directory: string) {}

  static async start(): Promise<PatroniCluster> {
    ensureHaPackages();
    const directory = mkdtempSync(join(tmpdir(), 'sched-ha-'));
    chmodSync(directory, 0o755);
    const cluster = new PatroniCluster(directory);
    try {
      cluster.etcdPorts = [await freePort(), await freePort()];
      await cluster.startEtcd();
      for (const name of ['pg1', 'pg2']) {
        const dataParent = join(directory, name);
        mkdirSync(dataParent);
        const user = postgresUser();
        if (user) chownSync(dataParent, user.uid, user.gid);
        chmodSync(dataParent, 0o700);
        cluster.nodes.push({
          name,
          pgPort: await freePort(),
          restPort: await freePort(),
          dataDir: join(dataParent, 'data'),
          agent: { process: undefined, output: '' },
        });
      }
      // Both at once, as on real machines: the `initialize` key in etcd decides which one runs initdb (pg1, started
      // first, in practice); the other waits for it and copies it (pg_basebackup) as the synchronous standby.
      cluster.startNode('pg1');
      await new Promise((done) => setTimeout(done, 500));
      cluster.startNode('pg2');
      await cluster.waitFor(
        async () => {
          const members = await cluster.members();
          return (
            members.some((m) => m.role === 'leader' && m.state === 'running') &&
            members.some((m) => m.role === 'sync_standby' && m.state === 'running')
          );
        },
        90_000,
        'a leader and a synchronous standby',
      );
      cluster.haproxyPort = await freePort();
      cluster.haproxyReplicaPort = await freePort();
      await cluster.startHaproxy();
      return cluster;
    } catch (error) {
      const logs = cluster.logs();
      await cluster.stop();
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${logs.slice(-4000)}`, { cause: error });
    }
  }

  /** `postgres://postgres:…@127.0.0.1:<haproxy>/<database>`: what the service's DATABASE_URL is in a deployment. */
  url(database = 'postgres'): string {
    return `postgres://postgres:${this.password}@127.0.0.1:${this.haproxyPort}/${database}`;
  }

  /** HAProxy's replica port: a running standby (what DATABASE_REPLICA_URLS names in a deployment). */
  replicaUrl(database = 'postgres'): string {
    return `postgres://postgres:${this.password}@127.0.0.1:${this.haproxyReplicaPort}/${database}`;
  }

  /** A node's own PostgreSQL, bypassing HAProxy. */
  nodeUrl(name: string, database = 'postgres'): string {
    return `postgres://postgres:${this.password}@127.0.0.1:${this.node(name).pgPort}/${database}`;
  }

  node(name: string): PatroniNode {
    const node = this.nodes.find((n) => n.name === name);
    if (!node) throw new Error(`no node ${name}`);
    return node;
  }

  logs(): string {
    return [
      `--- etcd\n${this.etcd?.output.slice(-3000) ?? ''}`,
      ...this.nodes.map((n) => `--- ${n.name}\n${n.agent.output.slice(-6000)}`),
      `--- haproxy\n${this.haproxy?.output.slice(-3000) ?? ''}`,
    ].join('\n');
  }

  nodeLog(name: string): string {
    return this.node(name).agent.output;
  }

  async startEtcd(): Promise<void> {
    if (this.etcd?.process) return;
    const [client, peer] = this.etcdPorts;
    const data = join(this.directory, 'etcd');
    this.etcd = launch(
      ETCD,
      [
        '--name=e1',
        `--data-dir=${data}`,
        `--listen-client-urls=http://127.0.0.1:${client}`,
        `--advertise-client-urls=http://127.0.0.1:${client}`,
        `--listen-peer-urls=http://127.0.0.1:${peer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
        `--initial-cluster=e1=http://127.0.0.1:${peer}`,
        '--log-level=warn',
      ],
      process.env,
      this.directory,
    );
    await this.waitFor(async () => accepts(client), 20_000, 'etcd');
    if (!this.etcdAuthOn) {
      await enableEtcdAuth(`http://127.0.0.1:${client}`, this.etcdUsers);
      this.etcdAuthOn = true;
    }
  }

  /** etcd's client URL (v3 JSON gateway), for checks. */
  get etcdUrl(): string {
    return `http://127.0.0.1:${this.etcdPorts[0]}`;
  }

  /** The REST API's `Authorization` header (Basic). */
  restAuthorization(): string {
    return `Basic ${Buffer.from(`${this.restApi.username}:${this.restApi.password}`).toString('base64')}`;
  }

  /** etcd gone at once (SIGKILL): Patroni cannot renew the leader key. */
  async killEtcd(): Promise<void> {
    const child = this.etcd?.process;
    if (this.etcd) this.etcd.process = undefined;
    await kill(child, 'SIGKILL');
  }

  startNode(name: string): void {
    const node = this.node(name);
    if (node.agent.process) return;
    const [client] = this.etcdPorts;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATRONI_NAME: name,
      PATRONI_RESTAPI_LISTEN: `127.0.0.1:${node.restPort}`,
      PATRONI_RESTAPI_CONNECT_ADDRESS: `127.0.0.1:${node.restPort}`,
      PATRONI_POSTGRESQL_LISTEN: `127.0.0.1:${node.pgPort}`,
      PATRONI_POSTGRESQL_CONNECT_ADDRESS: `127.0.0.1:${node.pgPort}`,
      PATRONI_POSTGRESQL_DATA_DIR: node.dataDir,
      PATRONI_POSTGRESQL_BIN_DIR: PG_BIN,
      PATRONI_ETCD3_HOSTS: `127.0.0.1:${client}`,
      PATRONI_ETCD3_USERNAME: 'patroni',
      PATRONI_ETCD3_PASSWORD: this.etcdUsers.patroni,
      PATRONI_RESTAPI_USERNAME: this.restApi.username,
      PATRONI_RESTAPI_PASSWORD: this.restApi.password,
      PATRONI_SUPERUSER_PASSWORD: this.password,
      PATRONI_REPLICATION_PASSWORD: this.password,
      PATRONI_REWIND_PASSWORD: this.password,
      PATRONI_LOG_LEVEL: 'INFO',
    };
    // The YAML in the node's own directory (owned by the user Patroni runs as), never read from the repository.
    const config = join(dirname(node.dataDir), 'patroni.yml');
    const user = postgresUser();
    copyFileSync(join(HA_DIR, `patroni-node${name.slice(2)}.yml`), config);
    chmodSync(config, 0o600);
    if (user) chownSync(config, user.uid, user.gid);
    const output = node.agent.output;
    node.agent = user
      ? launch('runuser', ['-u', user.name, '--', PATRONI, config], env, this.directory)
      : launch(PATRONI, [config], env, this.directory);
    node.agent.output = output + node.agent.output;
  }

  /** Patroni stopped (SIGTERM): it shuts its PostgreSQL down cleanly. */
  async stopNode(name: string): Promise<void> {
    const node = this.node(name);
    const child = node.agent.process;
    node.agent.process = undefined;
    await stopChild(child);
  }

  /** The node's postmaster (from postmaster.pid), killed with SIGKILL; Patroni itself keeps running. */
  killPostmaster(name: string): number {
    const pid = Number(readFileSync(join(this.node(name).dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGKILL');
    return pid;
  }

  async startHaproxy(): Promise<void> {
    if (this.haproxy?.process) return;
    const config = join(this.directory, 'haproxy.cfg');
    writeFileSync(
      config,
      haproxyPostgresConfig(
        readFileSync(join(HA_DIR, 'haproxy.cfg'), 'utf8'),
        this.haproxyPort,
        this.nodes.map((n) => ({ name: n.name, address: `127.0.0.1:${n.pgPort}`, checkPort: n.restPort })),
        this.haproxyReplicaPort,
      ),
    );
    this.haproxy = launch(HAPROXY, ['-db', '-f', config], process.env, this.directory);
    await this.waitFor(async () => accepts(this.haproxyPort), 15_000, 'haproxy');
    // HAProxy 2.6 starts every server as up until `fall` checks fail: until then a connection may land on the
    // standby. Ready once several connections in a row reach the primary.
    let inARow = 0;
    await this.waitFor(
      async () => ((await this.viaHaproxyIsPrimary()) ? ++inARow >= 6 : (inARow = 0) > 0),
      20_000,
      'haproxy to reach only the primary',
    );
  }

  async stopHaproxy(): Promise<void> {
    const child = this.haproxy?.process;
    if (this.haproxy) this.haproxy.process = undefined;
    await kill(child, 'SIGKILL');
  }

  private async viaHaproxyIsPrimary(): Promise<boolean> {
    const client = new pg.Client({ connectionString: this.url(), connectionTimeoutMillis: 1000 });
    // A probe cut by a restarting HAProxy fails its query; the same error as an event would be unhandled (it was once).
    client.on('error', () => undefined);
    try {
      await client.connect();
      const { rows } = await client.query<{ recovery: boolean }>('SELECT pg_is_in_recovery() AS recovery');
      return rows[0].recovery === false;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** Patroni's view (GET /cluster on any node that answers). */
  async members(): Promise<ClusterMember[]> {
    for (const node of this.nodes) {
      try {
        const res = await fetch(`http://127.0.0.1:${node.restPort}/cluster`, { signal: AbortSignal.timeout(1000) });
        if (res.ok) return ((await res.json()) as { members: ClusterMember[] }).members;
      } catch {
        // try the other node
      }
    }
    return [];
  }

  /** The node whose REST API answers GET /primary with 200 (what HAProxy asks), if any. */
  async primary(): Promise<string | undefined> {
    for (const node of this.nodes) {
      if (await this.isPrimary(node.name)) return node.name;
    }
    return undefined;
  }

  async isPrimary(name: string): Promise<boolean> {
    try {
      const res = await fetch(`http://127.0.0.1:${this.node(name).restPort}/primary`, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      return res.status === 200;
    } catch {
      return false;
    }
  }

  /** A planned switchover through the leader's REST API (what `patronictl switchover` does). */
  async switchover(leader: string, candidate: string): Promise<void> {
    const res = await fetch(`http://127.0.0.1:${this.node(leader).restPort}/switchover`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: this.restAuthorization() },
      body: JSON.stringify({ leader, candidate }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`switchover failed: ${res.status} ${text}`);
  }

  /**
   * Maintenance mode (what `patronictl pause` / `resume` do), returned once every running node's Patroni reports it:
   * paused, Patroni leaves each PostgreSQL as it is (unpaused, a replica's HA loop resumes WAL replay it finds paused).
   */
  async setMaintenance(paused: boolean, nodes: readonly string[]): Promise<void> {
    const leader = await this.primary();
    if (!leader) throw new Error('no leader to change the cluster configuration through');
    const res = await fetch(`http://127.0.0.1:${this.node(leader).restPort}/config`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: this.restAuthorization() },
      body: JSON.stringify({ pause: paused }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`pause ${paused} failed: ${res.status} ${text}`);
    await this.waitFor(
      async () => {
        for (const name of nodes) {
          const state = await fetch(`http://127.0.0.1:${this.node(name).restPort}/patroni`, { signal: AbortSignal.timeout(1000) });
          if (((await state.json()) as { pause?: boolean }).pause !== (paused || undefined)) return false;
        }
        return true;
      },
      30_000,
      `every node's Patroni to report pause ${paused}`,
    );
  }

  async waitFor(probe: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await probe().catch(() => false))) {
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
      await new Promise((done) => setTimeout(done, 100));
    }
  }

  async stop(): Promise<void> {
    await this.stopHaproxy();
    await Promise.all(this.nodes.map((n) => this.stopNode(n.name)));
    // Patroni stopped while it was starting a PostgreSQL (a standby rejoining after the switchover) leaves that
    // postmaster running, orphaned, holding Patroni's stdout: the test's worker could not exit. Any postmaster still
    // running in a node's directory gets an immediate shutdown (SIGQUIT), then SIGKILL, before the directory goes.
    await Promise.all(this.nodes.map((n) => stopPostmaster(n.dataDir)));
    await this.killEtcd();
    rmSync(this.directory, { recursive: true, force: true });
  }
}

/** deploy/ha/haproxy.cfg with the frontend's bind on `port` of loopback and one `server` line per node, its options kept. */
export function haproxyPostgresConfig(
  template: string,
  port: number,
  nodes: readonly { name: string; address: string; checkPort: number }[],
  replicaPort = 0,
): string {
  const lines = template.split('\n');
  const binds = lines.filter((line) => /^\s*bind\s/.test(line));
  const servers = lines.filter((line) => /^\s*server\s/.test(line));
  if (binds.length === 0 || binds.length > 2 || servers.length !== nodes.length * binds.length)
    throw new Error('deploy/ha/haproxy.cfg needs a bind line (the primary’s, then the replicas’) and a server line per node for each');
  return lines
    .map((line) => {
      if (line === binds[0]) return line.replace(/bind\s+\S+/, `bind 127.0.0.1:${port}`);
      if (line === binds[1]) return line.replace(/bind\s+\S+/, `bind 127.0.0.1:${replicaPort}`);
      const index = servers.indexOf(line);
      if (index === -1) return line;
      const node = nodes[index % nodes.length];
      return line.replace(/server\s+\S+\s+\S+/, `server ${node.name} ${node.address}`).replace(/port\s+\d+/, `port ${node.checkPort}`);
    })
    .join('\n');
}

/**
 * etcd's authentication on, through its v3 JSON gateway (what `etcdctl user add`, `role grant-permission` and `auth
 * enable` do; deploy/ha/README.md): `root` with the root role, a `patroni` role that may read and write under
 * Patroni's namespace (`/service/`) only, and its user.
 */
async function enableEtcdAuth(url: string, passwords: { root: string; patroni: string }): Promise<void> {
  const call = async (path: string, body: unknown): Promise<void> => {
    const res = await fetch(`${url}/v3/auth/${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`etcd ${path}: ${res.status} ${text}`);
  };
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  await call('user/add', { name: 'root', password: passwords.root });
  await call('user/grant', { user: 'root', role: 'root' });
  await call('role/add', { name: 'patroni' });
  await call('role/grant', { name: 'patroni', perm: { permType: 'READWRITE', key: b64('/service/'), range_end: b64('/service0') } });
  await call('user/add', { name: 'patroni', password: passwords.patroni });
  await call('user/grant', { user: 'patroni', role: 'patroni' });
  await call('enable', {});
}

async function kill(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((done) => {
    child.once('exit', () => done());
    child.kill(signal);
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

async function stopPostmaster(dataDir: string): Promise<void> {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  // The file outlives a postmaster killed with SIGKILL: signal the pid only while it is still this node's postgres
  // (its command line names the data directory), never a process that reused the number.
  const alive = (): boolean => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dataDir);
    } catch {
      return false;
    }
  };
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(pid, name);
    } catch {
      // gone between the look and the signal
    }
  };
  if (!pid || !alive()) return;
  signal('SIGQUIT');
  for (let waited = 0; waited < 5000 && alive(); waited += 100) await new Promise((done) => setTimeout(done, 100));
  if (alive()) signal('SIGKILL');
}
