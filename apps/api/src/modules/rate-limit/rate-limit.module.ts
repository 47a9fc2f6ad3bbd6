import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { AppConfig, type RequestWithPrincipal } from '@app/common';
import { RATE_LIMIT_WINDOW_MS, rateLimitSubject } from './rate-limit.guard.js';
import { RateLimitStorage } from './rate-limit.storage.js';

/**
 * The rate limiter's counters and limits (api-rules.md § Rate limits). The throttler's options and storage are global;
 * the guard itself is registered as a global guard by AuthModule, right after the access guard that finds the caller it
 * counts, so that the order of the two stays written in one place.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        storage: new RateLimitStorage(config.redisUrl, config.rateLimitNamespace),
        throttlers: [
          {
            name: 'default',
            ttl: RATE_LIMIT_WINDOW_MS,
            limit: (context) => rateLimitSubject(context.switchToHttp().getRequest<RequestWithPrincipal>(), config).limit,
            getTracker: (request) => rateLimitSubject(request as RequestWithPrincipal, config).tracker,
            generateKey: (_context, tracker) => tracker,
          },
        ],
      }),
    }),
  ],
})
export class RateLimitModule {}
