import { Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Access, ApiErrors, Audited, CurrentPrincipal, IdParam, Permission, type Principal } from '@app/common';
import { OAuthGrantListResponse, OAuthRedirectResponse, OAuthRequestResponse } from './dto/oauth.dto.js';
import { OAuthGrantsService } from './oauth-grants.service.js';

@ApiTags('oauth')
@Controller('oauth-grants')
@Access({ permission: Permission.ManageApiKeys })
export class OAuthGrantsController {
  constructor(private readonly grants: OAuthGrantsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listOAuthGrants',
    description:
      'The partner apps connected to the organization: each app with the scopes it was granted, who granted them and when (owner or admin).',
    summary: 'The apps connected to the organization (owner or admin)',
  })
  @ApiResponse({ status: 200, type: OAuthGrantListResponse })
  @ApiErrors(401, 403)
  list(@CurrentPrincipal() principal: Principal): Promise<OAuthGrantListResponse> {
    return this.grants.list(principal);
  }

  @Delete(':id')
  @Audited('oauth_grant.revoked')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'revokeOAuthGrant',
    description:
      'Disconnects an app from the organization: every access and refresh token of the grant stops working at once; the app must ask for consent again.',
    summary: 'Disconnect an app: every token of the grant stops at once',
  })
  @ApiResponse({ status: 204 })
  @ApiErrors(401, 403, 404)
  async revoke(@CurrentPrincipal() principal: Principal, @IdParam('id', 'grt') id: string): Promise<void> {
    await this.grants.revoke(principal, id);
  }
}

/** The consent page's calls: any signed-in member sees and may deny a request; owners and admins approve. */
@ApiTags('oauth')
@Controller('oauth/requests')
export class OAuthRequestsController {
  constructor(private readonly grants: OAuthGrantsService) {}

  @Get(':id')
  @Access({})
  @ApiOperation({
    operationId: 'getOAuthRequest',
    description:
      'What the consent page shows: the app (name, homepage, logo), the scopes it asks for and the redirect URI. A request lives 10 minutes and is 404 once approved or denied.',
    summary: 'An authorization request waiting for consent (10 minutes; 404 once decided)',
  })
  @ApiResponse({ status: 200, type: OAuthRequestResponse })
  @ApiErrors(401, 403, 404)
  get(@IdParam('id', 'oar') id: string): Promise<OAuthRequestResponse> {
    return this.grants.request(id);
  }

  @Post(':id/approve')
  @Access({ permission: Permission.ManageApiKeys })
  @HttpCode(200)
  @Audited('oauth_grant.created', { resource: 'oauth_grant' })
  @ApiOperation({
    operationId: 'approveOAuthRequest',
    description:
      "The signed-in owner or admin connects the app: the grant is created, or widened to the requested scopes. The answer's `redirectTo` is the app's redirect URI with the code, state and iss; the console sends the browser there.",
    summary: 'Connect the app (owner or admin): the grant is created or widened; redirectTo carries the code, state and iss',
  })
  @ApiResponse({ status: 200, type: OAuthRedirectResponse })
  @ApiErrors(401, 403, 404)
  approve(@CurrentPrincipal() principal: Principal, @IdParam('id', 'oar') id: string): Promise<OAuthRedirectResponse> {
    return this.grants.approve(principal, id);
  }

  @Post(':id/deny')
  @Access({})
  @HttpCode(200)
  @Audited('oauth_request.denied')
  @ApiOperation({
    operationId: 'denyOAuthRequest',
    description:
      "The signed-in user refuses the app: no grant is made. The answer's `redirectTo` is the app's redirect URI with `error=access_denied`, state and iss.",
    summary: 'Refuse the app: redirectTo carries error=access_denied, state and iss',
  })
  @ApiResponse({ status: 200, type: OAuthRedirectResponse })
  @ApiErrors(401, 403, 404)
  deny(@IdParam('id', 'oar') id: string): Promise<OAuthRedirectResponse> {
    return this.grants.deny(id);
  }
}
