import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/index.js';
import { ConsoleSessionController } from './console-session.controller.js';

/** The admin console's sign-in routes (`/auth/console/*`): auth's logins and sessions, the refresh token in a cookie. */
@Module({
  imports: [AuthModule],
  controllers: [ConsoleSessionController],
})
export class ConsoleSessionModule {}
