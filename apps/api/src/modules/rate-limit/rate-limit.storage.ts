import { Logger, OnModuleDestroy } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { Redis } from 'ioredis';

interface StorageRecord {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
}

/** One fixed window per key, started by its first hit: INCR and the expiry in one atomic step. */
const INCREMENT_SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return { hits, ttl }`;

/** The script as a command of its own: sent by its SHA1 (EVALSHA), its text only when Redis does not have it yet. */
type WithIncrement = Redis & { rateLimitIncrement(key: string, ttlMs: string): Promise<[number, number]> };

function record(hits: number, ttlMs: number, limit: number): StorageRecord {
  const seconds = Math.max(1, Math.ceil(ttlMs / 1000));
  return { totalHits: hits, timeToExpire: seconds, isBlocked: hits > limit, timeToBlockExpire: seconds };
}

class MemoryWindows {
  private readonly windows = new Map<string, { hits: number; expiresAt: number }>();

  increment(key: string, ttlMs: number, limit: number): StorageRecord {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.expiresAt <= now) {
      if (this.windows.size > 100_000) this.sweep(now);
      window = { hits: 0, expiresAt: now + ttlMs };
      this.windows.set(key, window);
    }
    window.hits += 1;
    return record(window.hits, window.expiresAt - now, limit);
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.expiresAt <= now) this.windows.delete(key);
  }
}

/**
 * Counters in Redis when REDIS_URL is set, so every instance shares one limit; in process memory
 * otherwise, and whenever Redis does not answer (the service keeps serving; the fallback is logged).
 */
export class RateLimitStorage implements ThrottlerStorage, OnModuleDestroy {
  private readonly logger = new Logger('RateLimit');
  private readonly memory = new MemoryWindows();
  private readonly redis: WithIncrement | undefined;
  private usingFallback = false;

  constructor(
    redisUrl: string | undefined,
    private readonly namespace: string,
  ) {
    if (redisUrl) {
      const redis = new Redis(redisUrl, {
        lazyConnect: false,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        connectTimeout: 2000,
        commandTimeout: 500,
        retryStrategy: () => 1000,
        // On shutdown ioredis waits this long for the socket's 'close'; a socket Redis already refused never sends
        // one, and the timer kept the process (and a Jest worker) alive for ioredis' default 2 s.
        disconnectTimeout: 100,
      });
      redis.defineCommand('rateLimitIncrement', { numberOfKeys: 1, lua: INCREMENT_SCRIPT });
      this.redis = redis as WithIncrement;
      this.redis.on('error', () => this.fallBack('Redis is unreachable'));
      this.redis.on('ready', () => {
        if (this.usingFallback) this.logger.warn('Redis is back: rate-limit counters are shared again');
        this.usingFallback = false;
      });
    }
  }

  async increment(key: string, ttl: number, limit: number): Promise<StorageRecord> {
    const namespaced = `${this.namespace}:${key}`;
    if (this.redis && this.redis.status === 'ready') {
      try {
        const [hits, ttlMs] = await this.redis.rateLimitIncrement(namespaced, String(ttl));
        return record(hits, ttlMs, limit);
      } catch {
        this.fallBack('a Redis command failed');
      }
    } else if (this.redis) {
      this.fallBack('Redis is not connected');
    }
    return this.memory.increment(namespaced, ttl, limit);
  }

  private fallBack(reason: string): void {
    if (this.usingFallback) return;
    this.usingFallback = true;
    this.logger.warn(`${reason}: rate limits fall back to per-instance counters`);
  }

  async onModuleDestroy(): Promise<void> {
    this.redis?.disconnect();
  }
}
