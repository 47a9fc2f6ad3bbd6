import { Body, Controller, Delete, Get, Headers, HttpCode, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Access, ApiErrors, Audited, CurrentPrincipal, IdParam, Permission, Public, type Principal } from '@app/common';
import { AuditTrail } from '../audit/index.js';
import { withConsoleRefreshCookie } from '../console-session/index.js';
import { PutSsoDto, ScimTokenResponse, SsoResponse, SsoStartQueryDto } from './dto/identity.dto.js';
import { ScimTokensService } from './scim-tokens.service.js';
import { SsoService } from './sso.service.js';

const OWNER = Access({ permission: Permission.ManageIdentity });

/** An organization's single sign-on configuration and SCIM token (contract § 21): owners, JWT only. */
@ApiTags('team')
@Controller('organizations/:orgId')
export class SsoController {
  constructor(
    private readonly sso: SsoService,
    private readonly scimTokens: ScimTokensService,
  ) {}

  @Get('sso')
  @OWNER
  @ApiOperation({
    operationId: 'getSso',
    summary: 'The organization’s single sign-on configuration',
    description: 'Owner only, JWT only. None → 404.',
  })
  @ApiResponse({ status: 200, type: SsoResponse })
  @ApiErrors(400, 401, 403, 404)
  show(@CurrentPrincipal() principal: Principal, @IdParam('orgId', 'org') id: string): Promise<SsoResponse> {
    return this.sso.show(principal, id);
  }

  @Put('sso')
  @Audited('sso.updated', { resource: 'organization', self: 'organization' })
  @OWNER
  @ApiOperation({
    operationId: 'putSso',
    summary: 'Configure single sign-on through an OpenID Connect provider',
    description:
      'Owner only, JWT only. The issuer’s discovery document is read and checked now (400 naming `issuer` when it cannot be read ' +
      'or names another issuer). The secret is stored encrypted and never returned. A domain another organization claims → 409 DOMAIN_TAKEN.',
  })
  @ApiResponse({ status: 200, type: SsoResponse })
  @ApiErrors(400, 401, 403, 404, 409)
  save(@CurrentPrincipal() principal: Principal, @IdParam('orgId', 'org') id: string, @Body() dto: PutSsoDto): Promise<SsoResponse> {
    return this.sso.save(principal, id, dto);
  }

  @Delete('sso')
  @Audited('sso.deleted', { resource: 'organization', self: 'organization' })
  @HttpCode(204)
  @OWNER
  @ApiOperation({
    operationId: 'deleteSso',
    summary: 'Remove single sign-on',
    description: 'Owner only, JWT only. Password sign-in works again for its domains.',
  })
  @ApiResponse({ status: 204 })
  @ApiErrors(400, 401, 403, 404)
  async remove(@CurrentPrincipal() principal: Principal, @IdParam('orgId', 'org') id: string): Promise<void> {
    await this.sso.remove(principal, id);
  }

  @Post('scim-token')
  @Audited('scim_token.created', { resource: 'organization', self: 'organization' })
  @OWNER
  @ApiOperation({
    operationId: 'createScimToken',
    summary: 'A new SCIM token, shown once',
    description:
      'Owner only, JWT only. The previous token stops working at once. The directory sends it as `Authorization: Bearer scim_…` to /scim/v2.',
  })
  @ApiResponse({ status: 201, type: ScimTokenResponse })
  @ApiErrors(400, 401, 403, 404)
  createToken(@CurrentPrincipal() principal: Principal, @IdParam('orgId', 'org') id: string): Promise<ScimTokenResponse> {
    return this.scimTokens.create(principal, id);
  }

  @Delete('scim-token')
  @Audited('scim_token.revoked', { resource: 'organization', self: 'organization' })
  @HttpCode(204)
  @OWNER
  @ApiOperation({ operationId: 'revokeScimToken', summary: 'Revoke the SCIM token', description: 'Owner only, JWT only. None → 404.' })
  @ApiResponse({ status: 204 })
  @ApiErrors(400, 401, 403, 404)
  async revokeToken(@CurrentPrincipal() principal: Principal, @IdParam('orgId', 'org') id: string): Promise<void> {
    await this.scimTokens.revoke(principal, id);
  }
}

/**
 * Signing in through the organization's provider (contract § 21): public browser navigations that answer with
 * redirects, which no API client calls; not in the OpenAPI document (whose operations answer 2xx).
 */
@ApiExcludeController()
@ApiTags('auth')
@Controller('auth/sso')
export class SsoSignInController {
  constructor(
    private readonly sso: SsoService,
    private readonly audit: AuditTrail,
  ) {}

  @Public()
  @Get('start')
  @ApiOperation({
    operationId: 'startSso',
    summary: 'Start single sign-on: 302 to the identity provider of the email’s organization',
    description: 'Code flow with PKCE (S256), state, nonce and login_hint. A domain no organization claims → 404 SSO_NOT_CONFIGURED.',
  })
  @ApiResponse({ status: 302, description: 'To the provider’s authorization endpoint' })
  @ApiErrors(400, 404)
  async start(@Query() query: SsoStartQueryDto, @Res() reply: FastifyReply): Promise<void> {
    const location = await this.sso.start(query.email);
    await reply.header('Cache-Control', 'no-store').redirect(location, 302);
  }

  @Public()
  @Get('callback')
  @ApiOperation({
    operationId: 'ssoCallback',
    summary: 'The provider’s answer (the redirect URI): a console session, then 302 to /admin',
    description:
      'The code is exchanged and the ID token checked (signature from the provider’s JWKS, iss, aud, exp, nonce, email_verified, the ' +
      'email’s domain); an unknown email is provisioned as an active member. The console’s refresh cookie is set. Any failure → 302 to ' +
      '/admin/sign-in?error=sso_failed, audited as session.failed with its reason, nothing created.',
  })
  @ApiResponse({ status: 302, description: 'To /admin, or to /admin/sign-in?error=sso_failed' })
  @ApiErrors(400)
  async callback(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Headers('user-agent') userAgent?: string): Promise<void> {
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    const client = {
      requestId: typeof request.id === 'string' ? request.id : null,
      ip: request.ip ?? null,
      userAgent: userAgent ? userAgent.slice(0, 512) : null,
    };
    let location = '/admin';
    try {
      const tokens = await this.audit.recordAround('session.created', 'session.failed', client, () => this.sso.callback(query, userAgent));
      withConsoleRefreshCookie(reply, tokens);
    } catch {
      location = '/admin/sign-in?error=sso_failed';
    }
    await reply.header('Cache-Control', 'no-store').redirect(location, 302);
  }
}
