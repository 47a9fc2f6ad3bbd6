/**
 * Every benchmark, one after the other, each in its own process (`npm run bench`): their tables as
 * they print them, then one summary of every goal with its ratio or figure and whether it is met.
 * A benchmark that fails is reported and the others still run; the exit code says whether all ran.
 */
import { spawn } from 'node:child_process';
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
console.log('\n## Goals\n');
console.log(row(['Benchmark', 'Goal', 'Result', 'Met']));
console.log(row(['---', '---', '---', '---']));
for (const goal of goals) console.log(row([goal.bench, goal.goal, goal.result, goal.met ? 'met' : '**not met**']));
if (failed.length > 0) console.log(`\nFailed to run: ${failed.join(', ')}`);
process.exitCode = failed.length > 0 ? 1 : 0;
