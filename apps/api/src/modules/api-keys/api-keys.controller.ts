import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Access, ApiErrors, CurrentPrincipal, PaginationQueryDto, Permission, type Principal, IdParam, Audited } from '@app/common';
import { ApiKeysService } from './api-keys.service.js';
import { ApiKeyListResponse, ApiKeyResponse, CreateApiKeyDto, CreatedApiKeyResponse, UpdateApiKeyDto } from './dto/api-key.dto.js';

@ApiTags('api-keys')
@Access({ permission: Permission.ManageApiKeys })
@Controller('api-keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Post()
  @Audited('api_key.created')
  @ApiOperation({
    operationId: 'createApiKey',
    description:
      'Creates a secret (`mk_live_…`, `mk_test_…`) or publishable (`pk_…`) key with its scopes, rate limit and optional expiry. The full key is in this answer only: store it, it cannot be shown again. JWT only (owner or admin).',
    summary: 'Create an API key (JWT only; owner or admin). The full key is returned once.',
  })
  @ApiResponse({ status: 201, type: CreatedApiKeyResponse })
  @ApiErrors(400, 401, 403)
  create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateApiKeyDto): Promise<CreatedApiKeyResponse> {
    return this.apiKeys.create(principal, dto);
  }

  @Get()
  @ApiOperation({
    operationId: 'listApiKeys',
    description:
      "The organization's keys that are not revoked: secret keys by their prefix only, publishable keys in full (they are not secrets), each with its scopes, mode, limits and when it was last used.",
    summary: 'List the organization’s keys that are not revoked (secret keys by prefix; publishable keys in full)',
  })
  @ApiResponse({ status: 200, type: ApiKeyListResponse })
  @ApiErrors(400, 401, 403)
  list(@CurrentPrincipal() principal: Principal, @Query() page: PaginationQueryDto): Promise<ApiKeyListResponse> {
    return this.apiKeys.list(principal, page);
  }

  @Patch(':id')
  @Audited('api_key.updated')
  @ApiOperation({
    operationId: 'updateApiKey',
    description:
      "Renames a key, or changes a publishable key's allowed origins or event types; the change is in force at once on every instance.",
    summary: 'Rename a key; change a publishable key’s allowed origins or event types (in force at once on every instance)',
  })
  @ApiResponse({ status: 200, type: ApiKeyResponse })
  @ApiErrors(400, 401, 403, 404)
  update(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id', 'key') id: string,
    @Body() dto: UpdateApiKeyDto,
  ): Promise<ApiKeyResponse> {
    return this.apiKeys.update(principal, id, dto);
  }

  @Delete(':id')
  @Audited('api_key.revoked')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'revokeApiKey',
    description: 'Revokes the key at once on every instance: requests with it get 401 KEY_REVOKED. Revoking is final and repeatable.',
    summary: 'Revoke a key immediately; later requests with it get 401 KEY_REVOKED',
  })
  @ApiResponse({ status: 204 })
  @ApiErrors(401, 403, 404)
  async revoke(@CurrentPrincipal() principal: Principal, @IdParam('id', 'key') id: string): Promise<void> {
    await this.apiKeys.revoke(principal, id);
  }
}
