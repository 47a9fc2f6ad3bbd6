/**
 * Every benchmark, one after the other, each in its own process (`npm run bench`): their tables as
 * they print them, then one summary of every goal with its ratio or figure and whether it is met.
 * A benchmark that fails is reported and the others still run; the exit code says whether all ran.
 * When every benchmark ran (and BENCH_WRITE_DOCS is not 0), the summary also becomes the opening table of
 * docs/contributing/performance.md, between its two `bench:goals` markers, with the date and the machine of the run.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, platform, arch, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GOAL_PREFIX, type GoalResult } from './support/goals.js';
import { row } from './support/harness.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const BENCHES = [
  'calendar',
  'availability',
  'availability-http',
  'auth',
  'bookings',
  'holds',
  'seats',
  'webhooks',
  'jobs',
  'calendar-sync',
  'reminders',
];

function runBench(name: string): Promise<{ goals: GoalResult[]; ok: boolean }> {
  return new Promise((resolve) => {
    const goals: GoalResult[] = [];
    // A benchmark that hangs is ended after 10 minutes and reported as failed.
    const child = spawn(process.execPath, [join(HERE, `${name}.bench.js`)], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: process.env,
      timeout: 600_000,
    });
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith(GOAL_PREFIX)) goals.push(JSON.parse(line.slice(GOAL_PREFIX.length)) as GoalResult);
        else process.stdout.write(`${line}\n`);
      }
    });
    child.on('close', (code) => resolve({ goals, ok: code === 0 }));
  });
}

const goals: GoalResult[] = [];
const failed: string[] = [];
for (const name of BENCHES) {
  console.log(`\n## ${name}\n`);
  const result = await runBench(name);
  goals.push(...result.goals);
  if (!result.ok) failed.push(name);
}
const table = [
  row(['Benchmark', 'Goal', 'Result (the machine baseline of the same run in brackets)', 'Met']),
  row(['---', '---', '---', '---']),
  ...goals.map((goal) => row([goal.bench, goal.goal, goal.result, goal.met ? 'met' : '**not met**'])),
].join('\n');
const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${platform()} ${arch()}, Node ${process.version}`;
const started = new Date().toISOString().slice(0, 10);
console.log('\n## Goals\n');
console.log(table);
if (failed.length > 0) console.log(`\nFailed to run: ${failed.join(', ')}`);
else if (process.env.BENCH_WRITE_DOCS !== '0') {
  const docs = join(HERE, '..', '..', 'docs', 'contributing', 'performance.md');
  const [before, rest] = readFileSync(docs, 'utf8').split('<!-- bench:goals -->');
  const after = rest?.split('<!-- /bench:goals -->')[1];
  if (after === undefined) throw new Error('docs/contributing/performance.md has no bench:goals markers');
  const heading = `Written by \`npm run bench\` on ${started} (${machine}; load average ${loadavg()[0].toFixed(1)} at the end).`;
  writeFileSync(docs, `${before}<!-- bench:goals -->\n${heading}\n\n${table}\n<!-- /bench:goals -->${after}`);
  console.log('\ndocs/contributing/performance.md: opening table written');
}
process.exitCode = failed.length > 0 ? 1 : 0;
