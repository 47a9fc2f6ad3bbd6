import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { ThrottlerModule } from '@nestjs/throttler';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig, type RequestWithPrincipal } from '@app/common';
import { ApiKeysModule } from '../api-keys/index.js';
import { SchedulesModule } from '../schedules/index.js';
import { TeamModule } from '../team/index.js';
import { AuthController } from './auth.controller.js';
import { AuthHousekeepingModule } from './auth-housekeeping.js';
import { ConsoleSessionController } from './console-session.controller.js';
import { AuthService } from './auth.service.js';
import { MeReadModel } from './me.read-model.js';
import { LoginFailure } from './entities/login-failure.entity.js';
import { Session } from './entities/session.entity.js';
import { User } from './entities/user.entity.js';
import { AccessGuard } from './guards/access.guard.js';
import { PublishableKeyGate } from './guards/publishable-key.gate.js';
import { JwtAuthGuard } from './guards/jwt-auth.guard.js';
import { InvitationsController } from './invitations.controller.js';
import { JwtStrategy } from './jwt.strategy.js';
import { RATE_LIMIT_WINDOW_MS, RateLimitGuard, rateLimitSubject } from './rate-limit/rate-limit.guard.js';
import { RateLimitStorage } from './rate-limit/rate-limit.storage.js';
import { UsersController } from './users.controller.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([User, Session, LoginFailure]),
    PassportModule,
    JwtModule.register({}),
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
    TeamModule,
    // The repository and the periodic sweeps (also loaded by the worker).
    AuthHousekeepingModule,
    ApiKeysModule,
    SchedulesModule,
  ],
  controllers: [AuthController, ConsoleSessionController, UsersController, InvitationsController],
  providers: [
    MeReadModel,
    AuthService,
    JwtStrategy,
    JwtAuthGuard,
    PublishableKeyGate,
    // Order matters: the access guard establishes the caller the rate limiter counts.
    { provide: APP_GUARD, useClass: AccessGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
  ],
  exports: [AuthService, PublishableKeyGate],
})
export class AuthModule {}
