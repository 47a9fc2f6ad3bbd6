import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SecretSealer } from '@app/common';
import { AuthModule } from '../auth/index.js';
import { SchedulesModule } from '../schedules/index.js';
import { TeamModule } from '../team/index.js';
import { ScimToken } from './entities/scim-token.entity.js';
import { ScimUser } from './entities/scim-user.entity.js';
import { SsoConnection } from './entities/sso-connection.entity.js';
import { SsoDomain } from './entities/sso-domain.entity.js';
import { SsoLogin } from './entities/sso-login.entity.js';
import { IdentityRepository } from './identity.repository.js';
import { ProvisioningService } from './provisioning.service.js';
import { ScimTokensService } from './scim-tokens.service.js';
import { ScimController } from './scim.controller.js';
import { ScimService } from './scim.service.js';
import { SsoController, SsoSignInController } from './sso.controller.js';
import { SsoService } from './sso.service.js';

/** Enterprise identity (contract § 21): single sign-on through the organization's OpenID Connect provider, and SCIM 2.0. */
@Module({
  imports: [TypeOrmModule.forFeature([SsoConnection, SsoDomain, SsoLogin, ScimToken, ScimUser]), AuthModule, TeamModule, SchedulesModule],
  controllers: [SsoController, SsoSignInController, ScimController],
  providers: [SecretSealer, IdentityRepository, ProvisioningService, SsoService, ScimTokensService, ScimService],
})
export class EnterpriseIdentityModule {}
