import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@app/database';
import { ensureDebianPackages } from './debian-packages.js';
import { stopChild } from './process.js';

const HAPROXY = '/usr/sbin/haproxy';
/** The configuration docs/operating/deployment.md "Behind a reverse proxy" shows. */
export const DEPLOYED_HAPROXY_CONFIG = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'deploy/haproxy/haproxy.cfg');

/**
 * Debian's haproxy package, installed here when missing (the machines run as root and reach Debian's mirror);
 * `.ci/run` installs it too. A test never depends on something installed by hand.
 */
export function ensureHaproxy(): void {
  ensureDebianPackages(['haproxy']);
}

/**
 * The deployed configuration with the test's addresses: the frontend's `bind` on `port` of loopback, and one `server`
 * line per backend (`host:port`) in place of the example's, their other settings (health checks) kept.
 */
export function haproxyConfig(template: string, port: number, backends: readonly string[]): string {
  const lines = template.split('\n');
  const binds = lines.filter((line) => /^\s*bind\s/.test(line));
  const servers = lines.filter((line) => /^\s*server\s/.test(line));
  if (binds.length !== 1 || servers.length === 0) throw new Error('the haproxy template needs one bind line and server lines');
  const [indent, options] = /^(\s*)server\s+\S+\s+\S+(.*)$/.exec(servers[0])!.slice(1);
  const ours = backends.map((backend, i) => `${indent}server api${i + 1} ${backend}${options}`);
  return lines
    .map((line) => (line === binds[0] ? line.replace(/bind\s+\S+/, `bind 127.0.0.1:${port}`) : line))
    .flatMap((line) => (line === servers[0] ? ours : servers.includes(line) ? [] : [line]))
    .join('\n');
}

/**
 * A real HAProxy in the foreground on a free loopback port, with the deployed configuration in front of `backends`,
 * its error files (errors/, read relative to the configuration) beside it.
 */
export class HaproxyServer {
  private process: ChildProcess | undefined;
  private output = '';

  private constructor(
    readonly port: number,
    private readonly directory: string,
  ) {}

  /** `httpRequestTimeout`: the deployed `timeout http-request` replaced (a test waits for it; the deployed one is 10 s). */
  static async start(backends: readonly string[], options: { httpRequestTimeout?: string } = {}): Promise<HaproxyServer> {
    ensureHaproxy();
    const directory = mkdtempSync(join(tmpdir(), 'sched-haproxy-'));
    const server = new HaproxyServer(await freePort(), directory);
    const config = join(directory, 'haproxy.cfg');
    let text = haproxyConfig(readFileSync(DEPLOYED_HAPROXY_CONFIG, 'utf8'), server.port, backends);
    if (options.httpRequestTimeout !== undefined) {
      text = text.replace(/timeout http-request \S+/, `timeout http-request ${options.httpRequestTimeout}`);
    }
    writeFileSync(config, text);
    cpSync(join(dirname(DEPLOYED_HAPROXY_CONFIG), 'errors'), join(directory, 'errors'), { recursive: true });
    const child = spawn(HAPROXY, ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    server.process = child;
    child.stdout.on('data', (chunk: Buffer) => (server.output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (server.output += chunk.toString()));
    const deadline = Date.now() + 15_000;
    while (!(await accepts(server.port))) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await server.stop();
        throw new Error(`haproxy did not start: ${server.output}`);
      }
      await new Promise((done) => setTimeout(done, 50));
    }
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    await stopChild(child);
    rmSync(this.directory, { recursive: true, force: true });
  }
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
