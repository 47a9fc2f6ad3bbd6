/**
 * API-key authentication cost: authenticated GET /v1/users/me against a baseline route doing one
 * primary-key lookup, same app, same run. Goal: ≥ 0.70 of the baseline's requests per second.
 *
 *   npm run bench:auth      (compiles with tsc like production, then runs dist-bench/bench/auth.bench.js)
 */
import { Controller, Get, Module, Param } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { DataSource } from 'typeorm';
import { Public } from '../libs/common/src/index.js';
import { reportGoal } from './support/goals.js';
import { BaselineModule, load, loadSplit, machine, row, startBenchApp } from './support/harness.js';

@Public()
@SkipThrottle()
@Controller('bench')
class ReferenceController {
  constructor(private readonly dataSource: DataSource) {}

  /** What a second round trip costs on this machine: /users/me with a key makes two. */
  @Get('two-lookups/:id')
  async twoLookups(@Param('id') id: string): Promise<unknown> {
    const organizations: unknown[] = await this.dataSource.query('SELECT id, name, slug FROM organizations WHERE id = $1', [id]);
    const members: unknown[] = await this.dataSource.query('SELECT id, role FROM members WHERE organization_id = $1 LIMIT 1', [id]);
    return { organization: organizations[0] ?? null, member: members[0] ?? null };
  }
}

@Module({ controllers: [ReferenceController] })
class ReferenceModule {}

const CONNECTIONS = 50;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PROCESSES = 5;

async function main(): Promise<void> {
  const bench = await startBenchApp([BaselineModule, ReferenceModule]);
  try {
    const register = await fetch(`${bench.url}/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', password: 'bench password', organizationName: 'Bench' }),
    });
    const owner = (await register.json()) as { accessToken: string; organization: { id: string } };
    // A key may make at most 10,000 requests a minute through the API; the keys' limits are raised in the
    // database so that the limiter runs on every request (one Redis round trip) but never refuses one.
    const keyHeaders: Record<string, string>[] = [];
    // One more for the warm-up.
    for (let i = 0; i <= PROCESSES; i++) {
      const created = await fetch(`${bench.url}/v1/api-keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.accessToken}` },
        body: JSON.stringify({ name: `bench ${i}`, rateLimitPerMinute: 10000 }),
      });
      keyHeaders.push({ authorization: `ApiKey ${((await created.json()) as { apiKey: string }).apiKey}` });
    }
    await bench.app.get(DataSource).query(`UPDATE api_keys SET rate_limit_per_minute = 10000000`);
    const warmUpKey = keyHeaders.pop()!;
    const baselineUrl = `${bench.url}/v1/bench/baseline/${owner.organization.id}`;
    const meUrl = `${bench.url}/v1/users/me`;

    // Warm up both routes, then measure them back to back with the same process layout.
    await load(baselineUrl, { connections: 10, seconds: 1 });
    await load(meUrl, { connections: 10, seconds: 1, headers: warmUpKey });
    const baseline = await loadSplit(baselineUrl, { connections: CONNECTIONS, seconds: SECONDS, headers: keyHeaders.map(() => ({})) });
    const two = await loadSplit(baselineUrl.replace('/baseline/', '/two-lookups/'), {
      connections: CONNECTIONS,
      seconds: SECONDS,
      headers: keyHeaders.map(() => ({})),
    });
    const me = await loadSplit(meUrl, { connections: CONNECTIONS, seconds: SECONDS, headers: keyHeaders });

    console.log(
      `${machine()}; ${CONNECTIONS} connections over ${PROCESSES} autocannon processes, ${SECONDS} s each; ${new Date().toISOString().slice(0, 10)}\n`,
    );
    console.log(row(['Route', 'Requests/s', 'p50 (ms)', 'p99 (ms)', 'Requests', 'Non-2xx', 'Errors']));
    console.log(row(['---', '---:', '---:', '---:', '---:', '---:', '---:']));
    for (const [name, r] of [
      ['Baseline: one primary-key lookup (public route)', baseline],
      ['Reference: two primary-key lookups (public route)', two],
      ['GET /v1/users/me with an API key', me],
    ] as const) {
      console.log(row([name, r.requestsPerSecond.toFixed(0), r.p50, r.p99, r.requests, r.non2xx, r.errors]));
    }
    const ratio = me.requestsPerSecond / baseline.requestsPerSecond;
    console.log('');
    reportGoal({
      bench: 'auth',
      goal: 'API-key GET /v1/users/me ≥ 0.70 of the one-lookup route',
      result: `${ratio.toFixed(2)} (${me.requestsPerSecond.toFixed(0)}/s against ${baseline.requestsPerSecond.toFixed(0)}/s)`,
      met: ratio >= 0.7,
    });
  } finally {
    await bench.close();
  }
}

await main();
