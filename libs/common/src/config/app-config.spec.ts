import { ConfigError, loadConfig } from './app-config.js';

describe('loadConfig', () => {
  it('applies the defaults of api-rules.md § Running', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      nodeEnv: 'development',
      port: 3000,
      databaseUrl: undefined,
      redisUrl: undefined,
      jwtAccessTtl: 900,
      appUrl: 'http://localhost:3000',
      smtpUrl: undefined,
      mailFrom: 'Scheduling <no-reply@localhost>',
      rateLimitUserPerMinute: 60,
      rateLimitAppPerMinute: 600,
      rateLimitPublicPerMinute: 60,
      webhookAllowPrivateUrls: true,
      webhookRetrySchedule: [5, 300, 1800, 7200, 18000, 36000, 36000],
      webhookTimeoutMs: 10000,
      publicBookingsPerVisitorPerHour: 10,
      dbPoolSize: 20,
      databaseReplicaUrls: [],
      replicaMaxLagMs: 1000,
      requestTimeoutMs: 30_000,
      maxConnectionsPerClient: 100,
      metricsAllowLoopback: false,
      metricsPort: 9464,
    });
    expect(config.dataDir).toMatch(/\.data$/);
  });

  it('follows PORT in the default APP_URL and keeps an explicit one without a trailing slash', () => {
    expect(loadConfig({ PORT: '8080' }).appUrl).toBe('http://localhost:8080');
    expect(loadConfig({ APP_URL: 'https://book.example.com/' }).appUrl).toBe('https://book.example.com');
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'not a url'],
    ['DATABASE_REPLICA_URLS', 'postgres://db/x,mysql://y'],
    ['REPLICA_MAX_LAG_MS', '-1'],
    ['REDIS_URL', 'http://localhost'],
    ['JWT_SECRET', 'short'],
    ['JWT_ACCESS_TTL', '-5'],
    ['APP_URL', 'ftp://x'],
    ['SMTP_URL', 'http://mail'],
    ['RATE_LIMIT_USER_PER_MINUTE', '0'],
    ['RATE_LIMIT_PUBLIC_PER_MINUTE', '1.5'],
    ['WEBHOOK_ALLOW_PRIVATE_URLS', 'maybe'],
    ['WEBHOOK_RETRY_SCHEDULE', '5,abc'],
    ['WEBHOOK_TIMEOUT_MS', '0'],
    ['NODE_ENV', 'staging'],
    ['LOG_LEVEL', 'loud'],
    ['RATE_LIMIT_NAMESPACE', 'has spaces'],
    ['PUBLIC_BOOKINGS_PER_VISITOR_PER_HOUR', '0'],
    ['PUBLIC_BOOKINGS_PER_VISITOR_PER_HOUR', 'ten'],
    ['DB_POOL_SIZE', '1'],
    ['DB_POOL_SIZE', '501'],
    ['DB_POOL_SIZE', 'ten'],
    ['TRUST_PROXY', 'true'],
    ['TRUST_PROXY', 'TRUE'],
    ['TRUST_PROXY', '0'],
    ['TRUST_PROXY', '11'],
    ['TRUST_PROXY', '-1'],
    ['TRUST_PROXY', '1.5'],
    ['TRUST_PROXY', 'abc'],
    ['TRUST_PROXY', 'loopback'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', '10.0.0.0/8/8'],
    ['TRUST_PROXY', '10.0.0.0/'],
    ['TRUST_PROXY', '0.0.0.0/0'],
    ['TRUST_PROXY', '2001:db8::/129'],
    ['TRUST_PROXY', '10.1'],
    ['TRUST_PROXY', '10.0.0.1,'],
    ['TRUST_PROXY', '10.0.0.1, 300.0.0.1'],
    ['TRUST_PROXY', 'fe80::1%eth0'],
    ['REQUEST_TIMEOUT_MS', '999'],
    ['REQUEST_TIMEOUT_MS', '600001'],
    ['REQUEST_TIMEOUT_MS', '30s'],
    ['MAX_CONNECTIONS_PER_CLIENT', '0'],
    ['MAX_CONNECTIONS_PER_CLIENT', 'many'],
    ['METRICS_ALLOW_LOOPBACK', 'yes'],
    ['METRICS_PORT', '-1'],
    ['METRICS_PORT', '65536'],
    ['METRICS_PORT', 'metrics'],
  ])('names %s when its value %j is bad', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(new RegExp(`^${variable} `));
  });

  it('reads REQUEST_TIMEOUT_MS (1000..600000), MAX_CONNECTIONS_PER_CLIENT and METRICS_ALLOW_LOOPBACK (contract § 19)', () => {
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '1000' }).requestTimeoutMs).toBe(1000);
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '600000' }).requestTimeoutMs).toBe(600_000);
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '999' })).toThrow(/^REQUEST_TIMEOUT_MS must be an integer from 1000 to 600000/);
    expect(loadConfig({ MAX_CONNECTIONS_PER_CLIENT: '1' }).maxConnectionsPerClient).toBe(1);
    expect(loadConfig({ METRICS_ALLOW_LOOPBACK: 'true' }).metricsAllowLoopback).toBe(true);
    expect(loadConfig({ METRICS_PORT: '9100' }).metricsPort).toBe(9100);
  });

  it('reads TRUST_PROXY as a number of proxies or a list of their addresses and CIDRs (contract § 19)', () => {
    expect(loadConfig({}).trustProxy).toBeUndefined();
    expect(loadConfig({ TRUST_PROXY: ' ' }).trustProxy).toBeUndefined();
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toEqual({ hops: 1 });
    expect(loadConfig({ TRUST_PROXY: '10' }).trustProxy).toEqual({ hops: 10 });
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.7,2001:db8::/32, ::1' }).trustProxy).toEqual({
      proxies: ['10.0.0.0/8', '192.0.2.7', '2001:db8::/32', '::1'],
    });
    // One line, whatever the value holds.
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.1,x\ny' })).toThrow(/^TRUST_PROXY [^\n]*\(got "x\\ny"\)$/);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/^TRUST_PROXY must not be true/);
  });

  it('requires DATABASE_URL and a 32-character JWT_SECRET in production, and refuses private webhook URLs there', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/^DATABASE_URL /);
    expect(() => loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x' })).toThrow(/^JWT_SECRET /);
    const production = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', JWT_SECRET: 'x'.repeat(32) };
    expect(() => loadConfig(production)).toThrow(/^ENCRYPTION_KEY /);
    const config = loadConfig({ ...production, ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') });
    expect(config.webhookAllowPrivateUrls).toBe(false);
    expect(config.calendarAllowPrivateUrls).toBe(false);
    expect(config.isProduction).toBe(true);
  });

  it.each([['short'], [Buffer.alloc(16).toString('base64')], [Buffer.alloc(33).toString('base64')]])(
    'refuses an ENCRYPTION_KEY that is not 32 bytes (%s)',
    (key) => {
      expect(() => loadConfig({ ENCRYPTION_KEY: key })).toThrow(/^ENCRYPTION_KEY must be the base64 of 32 random bytes/);
    },
  );

  it('reads the calendar settings with the documented defaults', () => {
    const config = loadConfig({});
    expect([config.calendarSyncIntervalSeconds, config.calendarTimeoutMs, config.calendarAllowPrivateUrls]).toEqual([300, 10000, true]);
    expect(config.calendarRetrySchedule).toEqual([5, 60, 300, 1800, 7200]);
    expect(config.publicUrl).toBe('http://localhost:3000');
  });
});
