import { ApiExcludeController } from '@nestjs/swagger';
import { randomBytes } from 'node:crypto';
import { Controller, Module, Post } from '@nestjs/common';
import { Access, Scope } from '@app/common';
import { freePort } from '@app/database';
import { startTestApp, type TestApp } from './support/app.js';
import { createApiKey, registerOwner } from './support/factories.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Counts the calls that reached the handler, to prove a limited request has no effect. */
let effects = 0;
// A test-only route: not part of the published API, so not in its document.
@ApiExcludeController()
@Controller('probe-effect')
class EffectProbeController {
  @Access({ scope: Scope.BookingsWrite })
  @Post()
  act(): { effects: number } {
    effects += 1;
    return { effects };
  }
}

@Module({ controllers: [EffectProbeController] })
class EffectProbeModule {}

describe('rate limits', () => {
  describe('in one instance', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({
        env: { RATE_LIMIT_USER_PER_MINUTE: '3', RATE_LIMIT_PUBLIC_PER_MINUTE: '4' },
        extraModules: [EffectProbeModule],
      });
    });
    afterAll(async () => {
      await t.close();
    });

    it('limits each API key to its own rateLimitPerMinute, with headers, and a limited request has no effect', async () => {
      const owner = await registerOwner(t.http);
      const key = await createApiKey(t.http, owner.accessToken, { rateLimitPerMinute: 2 });
      const other = await createApiKey(t.http, owner.accessToken, { rateLimitPerMinute: 5 });
      effects = 0;
      const before = Math.floor(Date.now() / 1000);
      const first = await t.http.post('/v1/probe-effect', {}, { apiKey: key.apiKey });
      const second = await t.http.post('/v1/probe-effect', {}, { apiKey: key.apiKey });
      expect([first.status, second.status]).toEqual([201, 201]);
      expect(first.headers.get('x-ratelimit-limit')).toBe('2');
      expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
      expect(second.headers.get('x-ratelimit-remaining')).toBe('0');
      const reset = Number(first.headers.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThanOrEqual(before + 59);
      expect(reset).toBeLessThanOrEqual(before + 61);

      const limited = await t.http.post('/v1/probe-effect', {}, { apiKey: key.apiKey });
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe('RATE_LIMITED');
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(effects).toBe(2);
      // Another key of the same organization has its own budget.
      expect((await t.http.post('/v1/probe-effect', {}, { apiKey: other.apiKey })).status).toBe(201);
    });

    it('limits JWT callers per user', async () => {
      const owner = await registerOwner(t.http);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await t.http.get('/v1/users/me', { token: owner.accessToken })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    });

    it('limits public endpoints per client IP', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await t.http.post('/v1/auth/refresh', { refreshToken: 'nope' })).status);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
      expect(statuses.slice(0, 1)).toEqual([401]);
    });
  });

  it('shares one limit across two instances through Redis', async () => {
    const env = { REDIS_URL, RATE_LIMIT_NAMESPACE: `test:${randomBytes(6).toString('hex')}` };
    const a = await startTestApp({ env });
    const b = await startTestApp({ env, databaseUrl: a.databaseUrl });
    try {
      const owner = await registerOwner(a.http);
      const key = await createApiKey(a.http, owner.accessToken, { rateLimitPerMinute: 4 });
      const statuses = [];
      for (const app of [a, b, a, b, a, b]) statuses.push((await app.http.get('/v1/users/me', { apiKey: key.apiKey })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await b.app.close();
      await a.close();
    }
  });

  it('keeps answering, with per-instance counters, when Redis is unreachable', async () => {
    const deadPort = await freePort();
    const t = await startTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${deadPort}` } });
    try {
      const owner = await registerOwner(t.http);
      const key = await createApiKey(t.http, owner.accessToken, { rateLimitPerMinute: 2 });
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await t.http.get('/v1/users/me', { apiKey: key.apiKey })).status);
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await t.close();
    }
  });
});
