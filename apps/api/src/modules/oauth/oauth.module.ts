import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../../jobs/index.js';
import { OAuthApp } from './entities/oauth-app.entity.js';
import { OAuthAuthorization } from './entities/oauth-authorization.entity.js';
import { OAuthGrant } from './entities/oauth-grant.entity.js';
import { OAuthToken } from './entities/oauth-token.entity.js';
import { OAuthAppsController } from './oauth-apps.controller.js';
import { OAuthAppsService } from './oauth-apps.service.js';
import { OAuthGrantsController, OAuthRequestsController } from './oauth-grants.controller.js';
import { OAuthGrantsService } from './oauth-grants.service.js';
import { OAuthProtocolRepository } from './oauth-protocol.repository.js';
import { OAuthProtocolService } from './oauth-protocol.service.js';
import { OAuthRepository } from './oauth.repository.js';

/** Partner apps (contract § 20): the authorization server, its grants, and the access tokens /v1 accepts. */
@Module({
  imports: [TypeOrmModule.forFeature([OAuthApp, OAuthGrant, OAuthAuthorization, OAuthToken]), JobsModule],
  controllers: [OAuthAppsController, OAuthGrantsController, OAuthRequestsController],
  providers: [OAuthRepository, OAuthProtocolRepository, OAuthAppsService, OAuthProtocolService, OAuthGrantsService],
  exports: [OAuthGrantsService, OAuthProtocolService],
})
export class OAuthModule {}
