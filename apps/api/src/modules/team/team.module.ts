import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailModule } from '../mail/index.js';
import { Member } from './entities/member.entity.js';
import { Organization } from './entities/organization.entity.js';
import { InvitationsService } from './invitations.service.js';
import { TeamController } from './team.controller.js';
import { TeamPolicy } from './team-policy.service.js';
import { TeamRepository } from './team.repository.js';
import { TeamService } from './team.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([Organization, Member]), MailModule],
  controllers: [TeamController],
  providers: [TeamRepository, TeamPolicy, TeamService, InvitationsService],
  exports: [TeamService, InvitationsService],
})
export class TeamModule {}
