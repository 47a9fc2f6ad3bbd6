import { Body, Controller, Delete, Get, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Access, ApiErrors, clientAddress, CurrentPrincipal, Public, type Principal, IdParam, Audited } from '@app/common';
import { LoginDto, RefreshDto, RegisterDto, RegisterResponse, SessionListResponse, TokensResponse } from './dto/auth.dto.js';
import { LoginService } from './login.service.js';
import { RegistrationService } from './registration.service.js';
import { SessionsService } from './sessions.service.js';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly registration: RegistrationService,
    private readonly logins: LoginService,
    private readonly sessionsService: SessionsService,
  ) {}

  @Public()
  @Post('register')
  @Audited('user.registered')
  @ApiOperation({
    operationId: 'register',
    description:
      'Creates the user, an organization with the user as its owner, and a session: the answer carries the access token (JWT) and the refresh token. An email already registered → 409 EMAIL_TAKEN.',
    summary: 'Create a user, a new organization with the user as its owner, and a session',
  })
  @ApiResponse({ status: 201, type: RegisterResponse })
  @ApiErrors(400, 409)
  register(@Body() dto: RegisterDto, @Headers('user-agent') userAgent?: string): Promise<RegisterResponse> {
    return this.registration.register(dto, userAgent);
  }

  @Public()
  @Post('login')
  @Audited('session.created', { failure: 'session.failed' })
  @HttpCode(200)
  @ApiOperation({
    operationId: 'login',
    summary: 'Exchange email and password for tokens',
    description:
      'Wrong email and wrong password both give 401 INVALID_CREDENTIALS. 10 failures for one email from one client address within ' +
      '15 minutes → 429 for that email from that address; 100 from all addresses → 429 for it from every address. ' +
      'An email of a domain whose organization enforces single sign-on → 403 SSO_REQUIRED (its owners excepted).',
  })
  @ApiResponse({ status: 200, type: TokensResponse })
  @ApiErrors(400, 401, 403)
  login(@Body() dto: LoginDto, @Req() request: FastifyRequest, @Headers('user-agent') userAgent?: string): Promise<TokensResponse> {
    return this.logins.login(dto, userAgent, clientAddress(request));
  }

  @Public()
  @Post('refresh')
  @Audited('session.refreshed')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'refreshSession',
    summary: 'Rotate a refresh token into a new token pair',
    description: 'The presented token dies. Presenting an already-rotated token revokes the whole session.',
  })
  @ApiResponse({ status: 200, type: TokensResponse })
  @ApiErrors(400, 401)
  refresh(@Body() dto: RefreshDto): Promise<TokensResponse> {
    return this.sessionsService.refresh(dto.refreshToken);
  }

  @Access({})
  @Post('logout')
  @Audited('session.ended')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'logout',
    description:
      'Ends the session the access token belongs to: its refresh token is refused from now on, and its access token too (every instance checks the session). Other sessions of the user are untouched.',
    summary: 'End the current session: its refresh and access tokens stop working at once',
  })
  @ApiResponse({ status: 204 })
  @ApiErrors(401, 403)
  async logout(@CurrentPrincipal() principal: Principal): Promise<void> {
    await this.sessionsService.logout(principal);
  }

  @Access({})
  @Get('sessions')
  @ApiOperation({
    operationId: 'listSessions',
    description:
      'Each session the caller has signed in with and not ended: when it was created and last used, and from which client, so a user can spot and end one they do not recognize.',
    summary: 'The caller’s active sessions',
  })
  @ApiResponse({ status: 200, type: SessionListResponse })
  @ApiErrors(401, 403)
  sessions(@CurrentPrincipal() principal: Principal): Promise<SessionListResponse> {
    return this.sessionsService.listSessions(principal);
  }

  @Access({})
  @Delete('sessions/:id')
  @Audited('session.revoked')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteSession',
    description:
      "Ends one of the caller's own sessions (from `GET /v1/auth/sessions`): its tokens stop working at once. Another user's session is 404.",
    summary: 'End one of the caller’s sessions',
  })
  @ApiResponse({ status: 204 })
  @ApiErrors(401, 403, 404)
  async deleteSession(@CurrentPrincipal() principal: Principal, @IdParam('id', 'ses') id: string): Promise<void> {
    await this.sessionsService.deleteSession(principal, id);
  }
}
