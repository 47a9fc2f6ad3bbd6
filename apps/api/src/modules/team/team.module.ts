import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Member } from './entities/member.entity.js';
import { Organization } from './entities/organization.entity.js';
import { TeamRepository } from './team.repository.js';
import { TeamService } from './team.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([Organization, Member])],
  providers: [TeamRepository, TeamService],
  exports: [TeamService],
})
export class TeamModule {}
