import { Injectable } from '@nestjs/common';
import { type Role, type TenantScope } from '@app/common';
import { type DirectoryUser } from '../auth/index.js';
import { SchedulesService } from '../schedules/index.js';
import { TeamService } from '../team/index.js';

/** Making a user an active member without an invitation (single sign-on's first sign-in, SCIM), in the caller's transaction. */
@Injectable()
export class ProvisioningService {
  constructor(
    private readonly team: TeamService,
    private readonly schedules: SchedulesService,
  ) {}

  /** The membership, and the default schedule as at registration (contract § 6). Returns the member's id. */
  async provision(scope: TenantScope, user: DirectoryUser, role: Role): Promise<string> {
    const member = await this.team.provisionMember(scope, {
      userId: user.id,
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      role,
    });
    await this.schedules.createDefaultSchedule(
      { type: 'user', organizationId: scope.organizationId, userId: user.id, memberId: member.id, role, livemode: true },
      user.timezone,
    );
    return member.id;
  }
}
