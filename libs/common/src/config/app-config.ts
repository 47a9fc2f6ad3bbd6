import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ipaddr from 'ipaddr.js';

/**
 * `TRUST_PROXY` (contract § 19): whose `X-Forwarded-For` is believed. `hops`: the last n entries were written by the
 * proxies in front of the service, so the client is the nth from the end; `proxies`: entries are believed only as
 * far back as each hop came from one of these addresses or CIDRs. Unset: the TCP peer is the client.
 */
export type TrustProxy = { hops: number } | { proxies: string[] };

/** The validated environment of api-rules.md § Running. Built once at boot by `loadConfig`. */
export class AppConfig {
  nodeEnv!: 'development' | 'production' | 'test';
  port!: number;
  databaseUrl!: string | undefined;
  dataDir!: string;
  redisUrl!: string | undefined;
  jwtSecret!: string | undefined;
  jwtAccessTtl!: number;
  appUrl!: string;
  smtpUrl!: string | undefined;
  mailFrom!: string;
  rateLimitUserPerMinute!: number;
  /** Every grant of a partner app, its access tokens together (contract § 20: 600). */
  rateLimitAppPerMinute!: number;
  rateLimitPublicPerMinute!: number;
  /** Prefix of the Redis counter keys, so services sharing one Redis keep separate limits. */
  rateLimitNamespace!: string;
  webhookAllowPrivateUrls!: boolean;
  webhookRetrySchedule!: number[];
  webhookTimeoutMs!: number;
  mailRetrySchedule!: number[];
  /** Longest wait of the reminder sender between two looks for due reminders (it wakes earlier for the next one it knows). */
  remindersPollMs!: number;
  /** Seconds before a reminder whose round failed is tried again, one per retry; after the last it is parked (missed, with its error). */
  reminderRetrySchedule!: number[];
  /** Seconds before a domain event whose fan-out failed is tried again, one per retry; after the last it is parked (failed_at, with its error). */
  outboxRetrySchedule!: number[];
  logLevel!: string;
  /** Run the background jobs inside the API process (apps/worker runs them alone). */
  runWorkers!: boolean;
  /** Delivered and failed webhook deliveries, sent mail and dispatched domain events are kept this many days. */
  retentionDays!: number;
  /** Audit log entries are kept this many days (contract § 18). */
  auditRetentionDays!: number;
  /** A statement running longer is cancelled by PostgreSQL; the request answers 503. */
  dbStatementTimeoutMs!: number;
  /** Waiting longer for a pooled connection (or for a new one) fails the request with 503. */
  dbConnectTimeoutMs!: number;
  /** Connections this process's pool may hold at once (every instance's pool counts against `max_connections`). */
  dbPoolSize!: number;
  /** Standbys (or HAProxy's replica port) the reads of availability, lists and the audit log may use; empty: none. */
  databaseReplicaUrls!: string[];
  /** A standby further behind the primary than this is skipped (its reads go to the primary). */
  replicaMaxLagMs!: number;
  /** On SIGTERM, /health/ready answers 503 this long before the server stops accepting (when something probes it). */
  shutdownDrainMs!: number;
  /** Seconds between two background syncs of a connected calendar. */
  calendarSyncIntervalSeconds!: number;
  /** Per request to a calendar source. */
  calendarTimeoutMs!: number;
  calendarAllowPrivateUrls!: boolean;
  /** Whether an SSO issuer (discovery, token endpoint, JWKS) may be on a private address (contract § 21, § 12's rules). */
  ssoAllowPrivateUrls!: boolean;
  /** Seconds between write-back attempts to a CalDAV destination. */
  calendarRetrySchedule!: number[];
  /** 32 bytes (base64) for secrets at rest; generated under DATA_DIR outside production. */
  encryptionKey!: Buffer | undefined;
  /** A key being rotated out: still decrypts. */
  encryptionKeyPrevious!: Buffer | undefined;
  /** Base of links a member subscribes to (calendar feeds). */
  publicUrl!: string;
  /** Bytes of computed availability answers each instance keeps (0: none). */
  availabilityCacheBytes!: number;
  /** The built admin console (`npm run build` writes it to dist/admin), served at /admin. */
  adminDir!: string;
  /** The built booker (`npm run build` writes it to dist/booker), served at /booker.js. */
  bookerDir!: string;
  /** Bookings one client address may make through one publishable key in any hour. */
  publicBookingsPerVisitorPerHour!: number;
  /** `GET /metrics` asks for it as a Bearer token; unset, it answers loopback clients only (contract § 19). */
  metricsToken!: string | undefined;
  /** Without METRICS_TOKEN and with NODE_ENV=production, `GET /metrics` answers loopback peers only when this is set (404 otherwise). */
  metricsAllowLoopback!: boolean;
  /** The port a worker process (`npm run start:worker`) serves its own `GET /metrics` on, with the API's access rules; 0 = any free one. */
  metricsPort!: number;
  /** Undefined: the TCP peer is the client (TRUST_PROXY unset). */
  trustProxy!: TrustProxy | undefined;
  /** A request whose headers and body have not all arrived this long after its first byte gets 408 (contract § 19). */
  requestTimeoutMs!: number;
  /** Open connections one client address (the TCP peer; IPv6 by /64) may have; those beyond are closed at once. */
  maxConnectionsPerClient!: number;

  get isProduction(): boolean {
    return this.nodeEnv === 'production';
  }
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function intVar(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function urlVar(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a URL');
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `must use ${protocols.map((p) => p.replace(':', '://')).join(' or ')}`);
  }
  return raw;
}

function boolVar(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be true or false (got "${raw}")`);
}

const MAX_PROXY_HOPS = 10;

function trustProxyVar(env: Env): TrustProxy | undefined {
  const raw = env.TRUST_PROXY?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops < 1 || hops > MAX_PROXY_HOPS) {
      throw new ConfigError('TRUST_PROXY', `must be a number of proxies from 1 to ${MAX_PROXY_HOPS} (got "${raw}")`);
    }
    return { hops };
  }
  if (/^true$/i.test(raw)) {
    // Fastify's `true` believes whatever X-Forwarded-For a client sends: every per-client limit would be the client's choice.
    throw new ConfigError(
      'TRUST_PROXY',
      'must not be true (any client could choose its address): give the number of proxies, or their addresses',
    );
  }
  const proxies = raw.split(',').map((entry) => entry.trim());
  const bad = proxies.find((entry) => !isAddressOrCidr(entry));
  if (bad !== undefined) {
    throw new ConfigError(
      'TRUST_PROXY',
      `must be a number of proxies (1 to ${MAX_PROXY_HOPS}) or a comma list of their addresses and CIDRs (got ${JSON.stringify(bad)})`,
    );
  }
  return { proxies };
}

/** `203.0.113.7`, `10.0.0.0/8`, `2001:db8::1`, `2001:db8::/32`; not `0.0.0.0/0` (that is `true`) nor shorthand IPv4 (`10.1`). */
function isAddressOrCidr(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  const v4 = ipaddr.IPv4.isValidFourPartDecimal(address);
  if (rest.length > 0 || (!v4 && (address.includes('%') || !ipaddr.IPv6.isValid(address)))) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) >= 1 && Number(prefix) <= (v4 ? 32 : 128));
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${values.join(', ')} (got "${raw}")`);
  }
  return raw as T;
}

const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];
const DEFAULT_MAIL_RETRY_SCHEDULE = [10, 60, 300, 1800, 7200, 21600];

function retrySchedule(env: Env, name = 'WEBHOOK_RETRY_SCHEDULE', fallback = DEFAULT_RETRY_SCHEDULE): number[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 50 || parts.some((p) => !/^\d+(\.\d+)?$/.test(p) || Number(p) > 7 * 86400)) {
    throw new ConfigError(name, 'must be comma-separated delays in seconds (0..604800)');
  }
  return parts.map(Number);
}

/** `DATABASE_REPLICA_URLS`: a comma list of PostgreSQL URLs, each checked like DATABASE_URL. */
function replicaUrlsVar(env: Env): string[] {
  const raw = env.DATABASE_REPLICA_URLS;
  if (raw === undefined || raw.trim() === '') return [];
  const urls = raw
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '');
  for (const url of urls) urlVar({ DATABASE_REPLICA_URLS: url }, 'DATABASE_REPLICA_URLS', ['postgres:', 'postgresql:']);
  return urls;
}

/** Validates the environment; throws `ConfigError` naming the first bad variable. */
export function loadConfig(env: Env = process.env): AppConfig {
  const config = new AppConfig();
  config.nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  config.port = intVar(env, 'PORT', 3000, 0, 65535);
  config.databaseUrl = urlVar(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  config.dataDir = resolve(env.DATA_DIR && env.DATA_DIR.trim() !== '' ? env.DATA_DIR : './.data');
  config.redisUrl = urlVar(env, 'REDIS_URL', ['redis:', 'rediss:']);
  config.jwtSecret = env.JWT_SECRET === '' ? undefined : env.JWT_SECRET;
  if (config.jwtSecret !== undefined && config.jwtSecret.length < 32) {
    throw new ConfigError('JWT_SECRET', 'must be at least 32 characters');
  }
  config.jwtAccessTtl = intVar(env, 'JWT_ACCESS_TTL', 900, 10, 86400);
  config.appUrl = (urlVar(env, 'APP_URL', ['http:', 'https:']) ?? `http://localhost:${config.port}`).replace(/\/+$/, '');
  config.smtpUrl = urlVar(env, 'SMTP_URL', ['smtp:', 'smtps:']);
  config.mailFrom = env.MAIL_FROM && env.MAIL_FROM.trim() !== '' ? env.MAIL_FROM : 'Scheduling <no-reply@localhost>';
  config.rateLimitUserPerMinute = intVar(env, 'RATE_LIMIT_USER_PER_MINUTE', 60, 1, 1_000_000);
  config.rateLimitAppPerMinute = intVar(env, 'RATE_LIMIT_APP_PER_MINUTE', 600, 1, 1_000_000);
  config.rateLimitPublicPerMinute = intVar(env, 'RATE_LIMIT_PUBLIC_PER_MINUTE', 60, 1, 1_000_000);
  config.publicBookingsPerVisitorPerHour = intVar(env, 'PUBLIC_BOOKINGS_PER_VISITOR_PER_HOUR', 10, 1, 1_000_000);
  config.rateLimitNamespace = env.RATE_LIMIT_NAMESPACE || 'sched:rl';
  if (!/^[\w:.-]{1,64}$/.test(config.rateLimitNamespace))
    throw new ConfigError('RATE_LIMIT_NAMESPACE', 'must be 1-64 characters of [A-Za-z0-9_:.-]');
  config.webhookAllowPrivateUrls = boolVar(env, 'WEBHOOK_ALLOW_PRIVATE_URLS', config.nodeEnv !== 'production');
  config.webhookRetrySchedule = retrySchedule(env);
  config.webhookTimeoutMs = intVar(env, 'WEBHOOK_TIMEOUT_MS', 10000, 1, 600000);
  config.mailRetrySchedule = retrySchedule(env, 'MAIL_RETRY_SCHEDULE', DEFAULT_MAIL_RETRY_SCHEDULE);
  config.remindersPollMs = intVar(env, 'REMINDERS_POLL_MS', 60_000, 50, 600_000);
  config.reminderRetrySchedule = retrySchedule(env, 'REMINDER_RETRY_SCHEDULE', [10, 60, 300]);
  config.outboxRetrySchedule = retrySchedule(env, 'OUTBOX_RETRY_SCHEDULE', [10, 60, 300]);
  config.logLevel = oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info');
  config.runWorkers = boolVar(env, 'RUN_WORKERS', true);
  config.retentionDays = intVar(env, 'RETENTION_DAYS', 30, 1, 3650);
  config.auditRetentionDays = intVar(env, 'AUDIT_RETENTION_DAYS', 365, 1, 36500);
  config.availabilityCacheBytes = intVar(env, 'AVAILABILITY_CACHE_MB', 64, 0, 65536) * 1024 * 1024;
  config.adminDir = resolve(env.ADMIN_DIR && env.ADMIN_DIR.trim() !== '' ? env.ADMIN_DIR : './dist/admin');
  config.bookerDir = resolve(env.BOOKER_DIR && env.BOOKER_DIR.trim() !== '' ? env.BOOKER_DIR : './dist/booker');
  config.dbStatementTimeoutMs = intVar(env, 'DB_STATEMENT_TIMEOUT_MS', 5000, 100, 600000);
  config.dbConnectTimeoutMs = intVar(env, 'DB_CONNECT_TIMEOUT_MS', 2000, 100, 60000);
  config.dbPoolSize = intVar(env, 'DB_POOL_SIZE', 20, 2, 500);
  config.databaseReplicaUrls = replicaUrlsVar(env);
  config.replicaMaxLagMs = intVar(env, 'REPLICA_MAX_LAG_MS', 1000, 0, 600_000);
  config.shutdownDrainMs = intVar(env, 'SHUTDOWN_DRAIN_MS', 3000, 0, 60_000);
  config.calendarSyncIntervalSeconds = intVar(env, 'CALENDAR_SYNC_INTERVAL', 300, 1, 86400);
  config.calendarTimeoutMs = intVar(env, 'CALENDAR_TIMEOUT_MS', 10000, 1, 600000);
  config.calendarAllowPrivateUrls = boolVar(env, 'CALENDAR_ALLOW_PRIVATE_URLS', config.nodeEnv !== 'production');
  config.ssoAllowPrivateUrls = boolVar(env, 'SSO_ALLOW_PRIVATE_URLS', config.nodeEnv !== 'production');
  config.calendarRetrySchedule = retrySchedule(env, 'CALENDAR_RETRY_SCHEDULE', [5, 60, 300, 1800, 7200]);
  config.encryptionKey = keyVar(env, 'ENCRYPTION_KEY');
  config.encryptionKeyPrevious = keyVar(env, 'ENCRYPTION_KEY_PREVIOUS');
  config.trustProxy = trustProxyVar(env);
  config.publicUrl = (urlVar(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${config.port}`).replace(/\/+$/, '');
  config.metricsToken = metricsTokenVar(env);
  config.metricsAllowLoopback = boolVar(env, 'METRICS_ALLOW_LOOPBACK', false);
  config.metricsPort = intVar(env, 'METRICS_PORT', 9464, 0, 65535);
  config.requestTimeoutMs = intVar(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000);
  config.maxConnectionsPerClient = intVar(env, 'MAX_CONNECTIONS_PER_CLIENT', 100, 1, 100_000);

  if (config.isProduction) {
    if (!config.databaseUrl) throw new ConfigError('DATABASE_URL', 'is required when NODE_ENV=production');
    if (!config.jwtSecret) throw new ConfigError('JWT_SECRET', 'is required when NODE_ENV=production (at least 32 characters)');
    if (!config.encryptionKey) throw new ConfigError('ENCRYPTION_KEY', 'is required when NODE_ENV=production (base64 of 32 bytes)');
  }
  return config;
}

function keyVar(env: Env, name: string): Buffer | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const key = Buffer.from(raw.trim(), 'base64');
  if (key.length !== 32) throw new ConfigError(name, 'must be the base64 of 32 random bytes (openssl rand -base64 32)');
  return key;
}

/** A Bearer token Prometheus is given: visible ASCII, long enough that guessing it is not a way in. */
function metricsTokenVar(env: Env): string | undefined {
  const raw = env.METRICS_TOKEN;
  if (raw === undefined || raw === '') return undefined;
  if (!/^[\x21-\x7E]{16,}$/.test(raw)) throw new ConfigError('METRICS_TOKEN', 'must be at least 16 visible ASCII characters, no spaces');
  return raw;
}

/** Outside production a missing ENCRYPTION_KEY is generated once and kept under DATA_DIR. */
export function ensureEncryptionKey(config: AppConfig): Buffer {
  if (config.encryptionKey) return config.encryptionKey;
  mkdirSync(config.dataDir, { recursive: true });
  const file = join(config.dataDir, 'encryption-key');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600 });
  config.encryptionKey = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  return config.encryptionKey;
}

/** Outside production a missing JWT_SECRET is generated once and kept under DATA_DIR, so sessions survive restarts. */
export function ensureJwtSecret(config: AppConfig): string {
  if (config.jwtSecret) return config.jwtSecret;
  mkdirSync(config.dataDir, { recursive: true });
  const file = join(config.dataDir, 'jwt-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(48).toString('base64url'), { mode: 0o600 });
  config.jwtSecret = readFileSync(file, 'utf8').trim();
  return config.jwtSecret;
}
