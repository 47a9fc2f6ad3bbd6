import { Body, Controller, Headers, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiExtension, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import '@fastify/cookie';
import { ApiErrors, AppError, clientAddress, Public, Audited } from '@app/common';
import { LoginDto, LoginService, REFRESH_TTL_MS, SessionsService, type TokensResponse } from '../auth/index.js';
import { ConsoleTokenResponse } from './dto/console-session.dto.js';

/** The refresh token of a console login lives in this cookie, which script cannot read. */
export const CONSOLE_REFRESH_COOKIE = 'sched_console_refresh';
const COOKIE_PATH = '/v1/auth/console';

/**
 * Sessions for the admin console (api-rules.md § Console): the same logins and rotating refresh tokens as
 * `/auth/login` and `/auth/refresh`, but the refresh token travels only in an `HttpOnly`, `Secure`,
 * `SameSite=Strict` cookie scoped to these routes, and the body carries the access token alone.
 */
@ApiTags('auth')
@Controller('auth/console')
export class ConsoleSessionController {
  constructor(
    private readonly logins: LoginService,
    private readonly sessions: SessionsService,
  ) {}

  @Public()
  @Post('login')
  @Audited('session.created', { failure: 'session.failed' })
  @HttpCode(200)
  @ApiOperation({
    operationId: 'consoleLogin',
    summary: 'Sign in to the admin console: the access token in the body, the refresh token in an HttpOnly cookie',
    description: 'The same credentials, failures, lockout and single sign-on enforcement (403 SSO_REQUIRED) as `POST /auth/login`.',
  })
  @ApiResponse({ status: 200, type: ConsoleTokenResponse })
  @ApiErrors(400, 401, 403)
  async login(
    @Body() dto: LoginDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Headers('user-agent') userAgent?: string,
  ): Promise<ConsoleTokenResponse> {
    return withCookie(reply, await this.logins.login(dto, userAgent, clientAddress(request)));
  }

  @Public()
  @Post('refresh')
  @Audited('session.refreshed')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'consoleRefresh',
    summary: 'Rotate the console’s refresh cookie into a new access token',
    description: 'Reuse of a rotated cookie value revokes the whole session, as with `POST /auth/refresh`.',
  })
  @ApiResponse({ status: 200, type: ConsoleTokenResponse })
  // Not `required`: the browser sends the HttpOnly cookie by itself, and a generated client must not have to name it.
  @ApiExtension('x-cookie', {
    name: CONSOLE_REFRESH_COOKIE,
    required: false,
    description: 'The refresh token POST /auth/console/login set; without it 401',
  })
  @ApiErrors(400, 401)
  async refresh(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<ConsoleTokenResponse> {
    const token = request.cookies[CONSOLE_REFRESH_COOKIE];
    if (!token) throw AppError.unauthorized('No console session');
    return withCookie(reply, await this.sessions.refresh(token));
  }

  @Public()
  @Post('logout')
  @Audited('session.ended')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'consoleLogout',
    description:
      "The console's own sign-out: the session its cookie holds ends and the cookie is cleared. For the admin console in a browser; API clients use `POST /v1/auth/logout`.",
    summary: 'Sign out of the console: the cookie’s session ends and the cookie is cleared',
  })
  @ApiResponse({ status: 204 })
  @ApiExtension('x-cookie', { name: CONSOLE_REFRESH_COOKIE, required: false, description: 'The session to end; 204 without one too' })
  @ApiErrors(400)
  async logout(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    const token = request.cookies[CONSOLE_REFRESH_COOKIE];
    if (token) await this.sessions.endSessionOf(token);
    void reply.clearCookie(CONSOLE_REFRESH_COOKIE, { path: COOKIE_PATH, httpOnly: true, secure: true, sameSite: 'strict' });
  }
}

/** Sets the console's refresh cookie (also single sign-on's callback, contract § 21) and returns the body's part. */
export function withCookie(reply: FastifyReply, tokens: TokensResponse): ConsoleTokenResponse {
  void reply.setCookie(CONSOLE_REFRESH_COOKIE, tokens.refreshToken, {
    path: COOKIE_PATH,
    httpOnly: true,
    secure: true,
    sameSite: 'strict',
    maxAge: REFRESH_TTL_MS / 1000,
  });
  return { accessToken: tokens.accessToken, tokenType: tokens.tokenType, expiresIn: tokens.expiresIn };
}
