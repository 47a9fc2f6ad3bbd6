import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Access, ApiErrors, Audited, CurrentPrincipal, IdParam, Permission, type Principal } from '@app/common';
import {
  CreatedOAuthAppResponse,
  CreateOAuthAppDto,
  OAuthAppListResponse,
  OAuthAppResponse,
  OAuthSecretResponse,
  UpdateOAuthAppDto,
} from './dto/oauth.dto.js';
import { OAuthAppsService } from './oauth-apps.service.js';

@ApiTags('oauth')
@Access({ permission: Permission.ManageApiKeys })
@Controller('oauth-apps')
export class OAuthAppsController {
  constructor(private readonly apps: OAuthAppsService) {}

  @Post()
  @Audited('oauth_app.created')
  @ApiOperation({
    operationId: 'createOAuthApp',
    description:
      "Registers a partner app of the organization: its name, type (confidential or public), redirect URIs and the scopes it may ask for. A confidential app's clientSecret is in this answer only. JWT only (owner or admin).",
    summary: 'Register a partner app (JWT only; owner or admin). A confidential app’s clientSecret is returned once.',
  })
  @ApiResponse({ status: 201, type: CreatedOAuthAppResponse })
  @ApiErrors(400, 401, 403)
  create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateOAuthAppDto): Promise<CreatedOAuthAppResponse> {
    return this.apps.create(principal, dto);
  }

  @Get()
  @ApiOperation({
    operationId: 'listOAuthApps',
    description:
      'The partner apps the organization has registered (not the apps connected to it: `GET /v1/oauth-grants`). Secrets are not shown.',
    summary: 'The organization’s own partner apps',
  })
  @ApiResponse({ status: 200, type: OAuthAppListResponse })
  @ApiErrors(401, 403)
  list(@CurrentPrincipal() principal: Principal): Promise<OAuthAppListResponse> {
    return this.apps.list(principal);
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'getOAuthApp',
    description: "One of the organization's own partner apps, with its client id, redirect URIs and scopes. Secrets are not shown.",
    summary: 'One of the organization’s partner apps',
  })
  @ApiResponse({ status: 200, type: OAuthAppResponse })
  @ApiErrors(401, 403, 404)
  get(@CurrentPrincipal() principal: Principal, @IdParam('id', 'app') id: string): Promise<OAuthAppResponse> {
    return this.apps.get(principal, id);
  }

  @Patch(':id')
  @Audited('oauth_app.updated')
  @ApiOperation({
    operationId: 'updateOAuthApp',
    description:
      "Changes the app's name, redirect URIs, scopes, homepage or logo. New authorization requests may only ask for the app's current scopes.",
    summary: 'Change an app’s name, redirect URIs, scopes, homepage or logo',
  })
  @ApiResponse({ status: 200, type: OAuthAppResponse })
  @ApiErrors(400, 401, 403, 404)
  update(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id', 'app') id: string,
    @Body() dto: UpdateOAuthAppDto,
  ): Promise<OAuthAppResponse> {
    return this.apps.update(principal, id, dto);
  }

  @Delete(':id')
  @Audited('oauth_app.deleted')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteOAuthApp',
    description: 'Deletes the app: every grant and token of it, in every organization it was connected to, is revoked at once.',
    summary: 'Delete an app: every grant and token of it is revoked at once',
  })
  @ApiResponse({ status: 204 })
  @ApiErrors(401, 403, 404)
  async remove(@CurrentPrincipal() principal: Principal, @IdParam('id', 'app') id: string): Promise<void> {
    await this.apps.remove(principal, id);
  }

  @Post(':id/secret')
  @Audited('oauth_app.secret_rotated')
  @ApiOperation({
    operationId: 'rotateOAuthAppSecret',
    description:
      'Issues a new client secret for a confidential app, shown in this answer only. The previous secret keeps working for 24 hours, so the app can be redeployed without downtime.',
    summary: 'A new client secret, shown once; the previous one keeps working 24 hours',
  })
  @ApiResponse({ status: 201, type: OAuthSecretResponse })
  @ApiErrors(400, 401, 403, 404)
  rotateSecret(@CurrentPrincipal() principal: Principal, @IdParam('id', 'app') id: string): Promise<OAuthSecretResponse> {
    return this.apps.rotateSecret(principal, id);
  }
}
