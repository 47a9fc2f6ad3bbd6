/**
 * API-key authentication cost: authenticated GET /v1/users/me against a baseline route doing one
 * primary-key lookup, same app, same run. Goal: ≥ 0.70 of the baseline's requests per second. Beside it, the same
 * route with a partner app's access token (contract § 20), which should cost at most 1.1× the API key's request.
 *
 *   npm run bench:auth      (compiles with tsc like production, then runs dist-bench/bench/auth.bench.js)
 */
import { createHash, randomBytes } from 'node:crypto';
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
const REDIRECT = 'https://partner.example/callback';

/** An access token of a partner app connected to the owner's organization, through the real flow (PKCE S256). */
async function appToken(url: string, ownerToken: string, clientId: string, clientSecret: string): Promise<string> {
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'team:read',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const authorize = await fetch(`${url}/oauth/authorize?${query.toString()}`, { redirect: 'manual' });
  const requestId = new URLSearchParams(authorize.headers.get('location')!.split('?')[1]).get('request')!;
  const approved = await fetch(`${url}/v1/oauth/requests/${requestId}/approve`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ownerToken}` },
  });
  const code = new URL(((await approved.json()) as { redirectTo: string }).redirectTo).searchParams.get('code')!;
  const token = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
      client_secret: clientSecret,
    }).toString(),
  });
  return ((await token.json()) as { access_token: string }).access_token;
}

async function main(): Promise<void> {
  // The limiter runs on every app request (one Redis round trip) but never refuses one, as for the keys below.
  const bench = await startBenchApp([BaselineModule, ReferenceModule], { RATE_LIMIT_APP_PER_MINUTE: '1000000' });
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
    // Partner apps' access tokens: one app, each token from its own authorization (one grant, as for a real partner).
    const registered = await fetch(`${bench.url}/v1/oauth-apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.accessToken}` },
      body: JSON.stringify({ name: 'bench app', type: 'confidential', redirectUris: [REDIRECT], scopes: ['team:read'] }),
    });
    const app = (await registered.json()) as { app: { clientId: string }; clientSecret: string };
    const tokenHeaders: Record<string, string>[] = [];
    for (let i = 0; i <= PROCESSES; i++) {
      tokenHeaders.push({ authorization: `Bearer ${await appToken(bench.url, owner.accessToken, app.app.clientId, app.clientSecret)}` });
    }
    const warmUpToken = tokenHeaders.pop()!;
    const baselineUrl = `${bench.url}/v1/bench/baseline/${owner.organization.id}`;
    const meUrl = `${bench.url}/v1/users/me`;

    // Warm up both routes, then measure them back to back with the same process layout.
    await load(baselineUrl, { connections: 10, seconds: 1 });
    await load(meUrl, { connections: 10, seconds: 1, headers: warmUpKey });
    await load(meUrl, { connections: 10, seconds: 1, headers: warmUpToken });
    const baseline = await loadSplit(baselineUrl, { connections: CONNECTIONS, seconds: SECONDS, headers: keyHeaders.map(() => ({})) });
    const two = await loadSplit(baselineUrl.replace('/baseline/', '/two-lookups/'), {
      connections: CONNECTIONS,
      seconds: SECONDS,
      headers: keyHeaders.map(() => ({})),
    });
    const me = await loadSplit(meUrl, { connections: CONNECTIONS, seconds: SECONDS, headers: keyHeaders });
    const appMe = await loadSplit(meUrl, { connections: CONNECTIONS, seconds: SECONDS, headers: tokenHeaders });

    console.log(
      `${machine()}; ${CONNECTIONS} connections over ${PROCESSES} autocannon processes, ${SECONDS} s each; ${new Date().toISOString().slice(0, 10)}\n`,
    );
    console.log(row(['Route', 'Requests/s', 'p50 (ms)', 'p99 (ms)', 'Requests', 'Non-2xx', 'Errors']));
    console.log(row(['---', '---:', '---:', '---:', '---:', '---:', '---:']));
    for (const [name, r] of [
      ['Baseline: one primary-key lookup (public route)', baseline],
      ['Reference: two primary-key lookups (public route)', two],
      ['GET /v1/users/me with an API key', me],
      ['GET /v1/users/me with a partner app’s access token', appMe],
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
    // Cost per request is the inverse of the rate: the token's request may cost at most 1.1× the key's.
    const cost = me.requestsPerSecond / appMe.requestsPerSecond;
    reportGoal({
      bench: 'auth',
      goal: 'an access token’s GET /v1/users/me costs ≤ 1.1× an API key’s',
      result: `${cost.toFixed(2)}× (${appMe.requestsPerSecond.toFixed(0)}/s against ${me.requestsPerSecond.toFixed(0)}/s)`,
      met: cost <= 1.1,
    });
  } finally {
    await bench.close();
  }
}

await main();
