import { Injectable } from '@nestjs/common';
import { AppError, isForeignKeyViolation, Principal, tenantScope } from '@app/common';
import { TeamService } from '../team/index.js';
import { EventTypesRepository } from './event-types.repository.js';

/** An event type's hosts: active members of its organization, stored in order in their own table. */
@Injectable()
export class EventTypeHostsService {
  constructor(
    private readonly repository: EventTypesRepository,
    private readonly team: TeamService,
  ) {}

  /**
   * Replaces the event type's hosts, in the caller's transaction; 400 when one is not an active member. `defaulted`:
   * the acting user was taken as the host because the request named none.
   */
  async replace(principal: Principal, eventTypeId: string, hostUserIds: readonly string[], defaulted: boolean): Promise<void> {
    const scope = tenantScope(principal);
    const memberIds = await this.team.activeMemberIdsOf(scope, hostUserIds);
    const missing = hostUserIds.filter((userId) => !memberIds.has(userId));
    if (missing.length === 0) {
      try {
        return await this.repository.replaceHosts(
          scope,
          eventTypeId,
          hostUserIds.map((userId) => ({ userId, memberId: memberIds.get(userId)! })),
        );
      } catch (error) {
        // A host removed from the organization since it was read: as if it had not been found.
        if (!isForeignKeyViolation(error)) throw error;
      }
    }
    throw AppError.validation(
      'hostUserIds',
      defaulted
        ? 'The acting user is not an active member of this organization; give hostUserIds'
        : `Not active members of this organization: ${(missing.length > 0 ? missing : hostUserIds).join(', ')}`,
    );
  }
}
