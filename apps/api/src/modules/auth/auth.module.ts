import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeysModule } from '../api-keys/index.js';
import { OAuthModule } from '../oauth/index.js';
import { RateLimitGuard, RateLimitModule } from '../rate-limit/index.js';
import { SchedulesModule } from '../schedules/index.js';
import { TeamModule } from '../team/index.js';
import { AuthController } from './auth.controller.js';
import { AuthHousekeepingModule } from './auth-housekeeping.js';
import { DirectoryUsers } from './directory-users.service.js';
import { LoginService } from './login.service.js';
import { MeReadModel } from './me.read-model.js';
import { LoginFailure } from './entities/login-failure.entity.js';
import { Session } from './entities/session.entity.js';
import { User } from './entities/user.entity.js';
import { AccessGuard } from './guards/access.guard.js';
import { PublishableKeyGate } from './guards/publishable-key.gate.js';
import { JwtAuthGuard } from './guards/jwt-auth.guard.js';
import { InvitationsController } from './invitations.controller.js';
import { JwtStrategy } from './jwt.strategy.js';
import { RegistrationService } from './registration.service.js';
import { SessionsService } from './sessions.service.js';
import { UsersController } from './users.controller.js';
import { UsersService } from './users.service.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([User, Session, LoginFailure]),
    PassportModule,
    JwtModule.register({}),
    // The throttler's options and counters (global), for the rate-limit guard below.
    RateLimitModule,
    TeamModule,
    // The repository and the periodic sweeps (also loaded by the worker).
    AuthHousekeepingModule,
    ApiKeysModule,
    OAuthModule,
    SchedulesModule,
  ],
  controllers: [AuthController, UsersController, InvitationsController],
  providers: [
    MeReadModel,
    SessionsService,
    LoginService,
    RegistrationService,
    UsersService,
    DirectoryUsers,
    JwtStrategy,
    JwtAuthGuard,
    PublishableKeyGate,
    // Order matters: the access guard establishes the caller the rate limiter counts.
    { provide: APP_GUARD, useClass: AccessGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
  ],
  // The console's sign-in routes (console-session) use the logins and sessions.
  exports: [PublishableKeyGate, LoginService, SessionsService, DirectoryUsers],
})
export class AuthModule {}
