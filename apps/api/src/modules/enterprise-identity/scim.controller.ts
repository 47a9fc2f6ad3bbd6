import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, Put, Query, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Audited, Public } from '@app/common';
import { ScimTokensService } from './scim-tokens.service.js';
import { ScimService } from './scim.service.js';
import { parsePatch, parseUser, SCIM_CONTENT_TYPE, SCIM_MAX_RESULTS, ScimExceptionFilter } from './scim-protocol.js';

const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';

function send(reply: FastifyReply, status: number, body: unknown): void {
  void reply.code(status).header('content-type', SCIM_CONTENT_TYPE).send(JSON.stringify(body));
}

/**
 * SCIM 2.0 (RFC 7643/7644) under /scim/v2, outside /v1 (contract § 21). Its routes are public to the access guard: the
 * organization's SCIM token (`Authorization: Bearer scim_…`) is checked here, in the request's audit context. Not in the
 * OpenAPI document: SCIM describes itself (ServiceProviderConfig, ResourceTypes, Schemas), and directories speak RFC 7644.
 */
@ApiExcludeController()
@UseFilters(ScimExceptionFilter)
@Controller('scim/v2')
export class ScimController {
  constructor(
    private readonly tokens: ScimTokensService,
    private readonly scim: ScimService,
  ) {}

  @Public()
  @Get('ServiceProviderConfig')
  async serviceProviderConfig(@Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    await this.tokens.scopeOf(authorization);
    send(reply, 200, {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      documentationUri: 'https://github.com/',
      patch: { supported: true },
      bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
      filter: { supported: true, maxResults: SCIM_MAX_RESULTS },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      authenticationSchemes: [
        { type: 'oauthbearertoken', name: 'Bearer token', description: 'The organization’s SCIM token (scim_…)', primary: true },
      ],
      meta: { resourceType: 'ServiceProviderConfig' },
    });
  }

  @Public()
  @Get('ResourceTypes')
  async resourceTypes(@Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    await this.tokens.scopeOf(authorization);
    const user = {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A member of the organization',
      schema: CORE,
      meta: { resourceType: 'ResourceType' },
    };
    send(reply, 200, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 1,
      startIndex: 1,
      itemsPerPage: 1,
      Resources: [user],
    });
  }

  @Public()
  @Get('Schemas')
  async schemas(@Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    await this.tokens.scopeOf(authorization);
    const attribute = (name: string, extra: Record<string, unknown> = {}) => ({
      name,
      type: 'string',
      multiValued: false,
      required: false,
      caseExact: false,
      mutability: 'readWrite',
      returned: 'default',
      uniqueness: 'none',
      ...extra,
    });
    const schema = {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
      id: CORE,
      name: 'User',
      description: 'A member of the organization',
      attributes: [
        attribute('userName', { required: true, uniqueness: 'server', mutability: 'immutable', description: 'The email address' }),
        attribute('name', {
          type: 'complex',
          subAttributes: [attribute('givenName'), attribute('familyName')],
        }),
        attribute('externalId', { caseExact: true }),
        attribute('active', { type: 'boolean' }),
        attribute('emails', { type: 'complex', multiValued: true, mutability: 'readOnly', subAttributes: [attribute('value')] }),
      ],
      meta: { resourceType: 'Schema', location: `/scim/v2/Schemas/${CORE}` },
    };
    send(reply, 200, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 1,
      startIndex: 1,
      itemsPerPage: 1,
      Resources: [schema],
    });
  }

  @Public()
  @Get('Users')
  async list(
    @Headers('authorization') authorization: string | undefined,
    @Query() query: Record<string, string | undefined>,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const scope = await this.tokens.scopeOf(authorization);
    send(reply, 200, await this.scim.list(scope, { filter: query.filter, startIndex: query.startIndex, count: query.count }));
  }

  @Public()
  @Get('Users/:id')
  async get(
    @Headers('authorization') authorization: string | undefined,
    @Param('id') id: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const scope = await this.tokens.scopeOf(authorization);
    send(reply, 200, await this.scim.get(scope, id));
  }

  @Public()
  @Post('Users')
  @Audited('member.provisioned', { resource: 'member' })
  async create(
    @Headers('authorization') authorization: string | undefined,
    @Body() body: unknown,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const scope = await this.tokens.scopeOf(authorization);
    const user = await this.scim.create(scope, parseUser(body));
    void reply.header('location', (user.meta as { location: string }).location);
    send(reply, 201, user);
  }

  @Public()
  @Put('Users/:id')
  @Audited('member.updated', { resource: 'member' })
  async replace(
    @Headers('authorization') authorization: string | undefined,
    @Param('id') id: string,
    @Body() body: unknown,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const scope = await this.tokens.scopeOf(authorization);
    send(reply, 200, await this.scim.replace(scope, id, parseUser(body)));
  }

  @Public()
  @Patch('Users/:id')
  @Audited('member.updated', { resource: 'member' })
  async patch(
    @Headers('authorization') authorization: string | undefined,
    @Param('id') id: string,
    @Body() body: unknown,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const scope = await this.tokens.scopeOf(authorization);
    send(reply, 200, await this.scim.change(scope, id, parsePatch(body)));
  }

  @Public()
  @Delete('Users/:id')
  @Audited('member.deprovisioned', { resource: 'member' })
  @HttpCode(204)
  async remove(@Headers('authorization') authorization: string | undefined, @Param('id') id: string): Promise<void> {
    const scope = await this.tokens.scopeOf(authorization);
    await this.scim.remove(scope, id);
  }
}
