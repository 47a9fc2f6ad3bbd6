import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@app/database';
import { ensureDebianPackages } from './debian-packages.js';
import { stopChild } from './process.js';

const PROMETHEUS = '/usr/bin/prometheus';
const PROMTOOL = '/usr/bin/promtool';
const run = promisify(execFile);

/**
 * Debian's Prometheus package (the server and promtool), installed here when missing; `.ci/run` installs it too. A test
 * never depends on something installed by hand. Without recommends: the node exporter it suggests is not needed.
 */
export function ensurePrometheus(): void {
  ensureDebianPackages(['prometheus']);
}

/** `promtool <args>`: its exit code and everything it printed (a failed check is an answer, not an exception). */
export async function promtool(args: readonly string[], input?: string): Promise<{ code: number; output: string }> {
  ensurePrometheus();
  if (input !== undefined) {
    // execFile cannot feed stdin; `check metrics` reads the scrape from it.
    return new Promise((resolve, reject) => {
      const child = spawn(PROMTOOL, [...args], { stdio: ['pipe', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, output }));
      child.stdin.end(input);
    });
  }
  try {
    const { stdout, stderr } = await run(PROMTOOL, [...args]);
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** The samples of one family in a scrape: each line's labels and value. */
export function samples(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  const found: { labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]] = pair[2];
    found.push({ labels, value: Number(match[3]) });
  }
  return found;
}

export function valueOf(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  return samples(text, name).find((sample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value))?.value;
}

export interface ScrapeTarget {
  /** `127.0.0.1:port` */
  address: string;
  bearerToken?: string;
}

/** One sample of an instant vector: its labels and value. */
export interface VectorSample {
  metric: Record<string, string>;
  value: number;
}

/**
 * A real Prometheus of one test file: a config of the test's own (scrape every second), its storage in a temporary
 * directory, its HTTP API on a free loopback port. Stopped (and its directory removed) by `stop()`.
 */
export class PrometheusServer {
  private process: ChildProcess | undefined;
  private output = '';

  private constructor(
    readonly port: number,
    private readonly directory: string,
  ) {}

  static async start(job: string, target: ScrapeTarget): Promise<PrometheusServer> {
    ensurePrometheus();
    const directory = mkdtempSync(join(tmpdir(), 'sched-prometheus-'));
    const server = new PrometheusServer(await freePort(), directory);
    const config = [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      '  evaluation_interval: 1s',
      'scrape_configs:',
      `  - job_name: ${job}`,
      '    metrics_path: /metrics',
      ...(target.bearerToken ? ['    authorization:', '      type: Bearer', `      credentials: ${target.bearerToken}`] : []),
      '    static_configs:',
      `      - targets: ['${target.address}']`,
      '',
    ].join('\n');
    writeFileSync(join(directory, 'prometheus.yml'), config);
    server.process = spawn(
      PROMETHEUS,
      [
        `--config.file=${join(directory, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(directory, 'data')}`,
        `--web.listen-address=127.0.0.1:${server.port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    server.process.stdout?.on('data', (chunk: Buffer) => (server.output += chunk.toString()));
    server.process.stderr?.on('data', (chunk: Buffer) => (server.output += chunk.toString()));
    const deadline = Date.now() + 20_000;
    for (;;) {
      const ready = await fetch(server.url('/-/ready')).then(
        (res) => res.ok,
        () => false,
      );
      if (ready) return server;
      if (Date.now() > deadline || server.process.exitCode !== null) {
        await server.stop();
        throw new Error(`Prometheus did not start:\n${server.output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** An instant query through the HTTP API; throws with Prometheus's error when the expression is refused. */
  async query(expression: string): Promise<VectorSample[]> {
    const res = await fetch(this.url(`/api/v1/query?query=${encodeURIComponent(expression)}`));
    const body = (await res.json()) as {
      status: string;
      error?: string;
      data?: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
    };
    if (body.status !== 'success' || !body.data) throw new Error(`query ${expression}: ${body.error ?? res.status}`);
    if (body.data.resultType !== 'vector') throw new Error(`query ${expression}: a ${body.data.resultType}, not a vector`);
    return body.data.result.map((sample) => ({ metric: sample.metric, value: Number(sample.value[1]) }));
  }

  /** Polls `expression` (every 250 ms, at most `timeoutMs`) until `accept` takes its answer; returns that answer. */
  async until(expression: string, accept: (samples: VectorSample[]) => boolean, timeoutMs = 20_000): Promise<VectorSample[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const last = await this.query(expression);
      if (accept(last)) return last;
      if (Date.now() > deadline) throw new Error(`${expression} stayed ${JSON.stringify(last)}\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** The state of each target, as Prometheus's own scrapes saw it. */
  async targets(): Promise<{ health: string; lastError: string }[]> {
    const res = await fetch(this.url('/api/v1/targets?state=active'));
    const body = (await res.json()) as { data: { activeTargets: { health: string; lastError: string }[] } };
    return body.data.activeTargets;
  }

  async stop(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    await stopChild(child);
    rmSync(this.directory, { recursive: true, force: true });
  }
}
