import { applyDecorators, Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Access, ApiErrors, CurrentPrincipal, Permission, Scope, type Principal, IdParam, Audited } from '@app/common';
import {
  InvitedMemberResponse,
  InviteMemberDto,
  ListMembersQueryDto,
  MemberListResponse,
  MemberRoleResponse,
  OrganizationResponse,
  UpdateMemberDto,
  UpdateOrganizationDto,
} from './dto/team.dto.js';
import { InvitationsService } from './invitations.service.js';
import { TeamService } from './team.service.js';

/** The access rule (which also documents security, scope and roles) and the operation's summary. */
function TeamRoute(
  operationId: string,
  scope: Scope | null,
  permission: Permission,
  summary: string,
  description: string,
): MethodDecorator {
  return applyDecorators(Access(scope ? { scope, permission } : { permission }), ApiOperation({ operationId, summary, description }));
}

@ApiTags('team')
@Controller('organizations/:orgId')
export class TeamController {
  constructor(
    private readonly team: TeamService,
    private readonly invitations: InvitationsService,
  ) {}

  @Get()
  @TeamRoute(
    'getOrganization',
    Scope.TeamRead,
    Permission.ReadOrganization,
    'The caller’s organization',
    'Every role. Another organization’s id → 404.',
  )
  @ApiResponse({ status: 200, type: OrganizationResponse })
  @ApiErrors(400, 401, 403, 404)
  show(@CurrentPrincipal() principal: Principal, @IdParam('orgId', 'org') id: string): Promise<OrganizationResponse> {
    return this.team.showOrganization(principal, id);
  }

  @Patch()
  @Audited('organization.updated', { self: 'organization' })
  @TeamRoute(
    'updateOrganization',
    Scope.TeamWrite,
    Permission.UpdateOrganization,
    'Rename the organization',
    'Owner or admin. The slug stays as it is.',
  )
  @ApiResponse({ status: 200, type: OrganizationResponse })
  @ApiErrors(400, 401, 403, 404)
  update(
    @CurrentPrincipal() principal: Principal,
    @IdParam('orgId', 'org') id: string,
    @Body() dto: UpdateOrganizationDto,
  ): Promise<OrganizationResponse> {
    return this.team.updateOrganization(principal, id, dto);
  }

  @Delete()
  @Audited('organization.deleted', { self: 'organization', goesWithOrganization: true })
  @HttpCode(204)
  @TeamRoute(
    'deleteOrganization',
    null,
    Permission.DeleteOrganization,
    'Delete the organization and everything of it',
    'Owner only, JWT only (API keys get 403 FORBIDDEN). Members, invitations, API keys, users of its members, and all other data of the organization go in one transaction.',
  )
  @ApiResponse({ status: 204 })
  @ApiErrors(400, 401, 403, 404)
  async remove(@CurrentPrincipal() principal: Principal, @IdParam('orgId', 'org') id: string): Promise<void> {
    await this.team.deleteOrganization(principal, id);
  }

  @Get('members')
  @TeamRoute(
    'listMembers',
    Scope.TeamRead,
    Permission.ReadOrganization,
    'Members and pending invitations',
    'Every role. Ordered by creation.',
  )
  @ApiResponse({ status: 200, type: MemberListResponse })
  @ApiErrors(400, 401, 403, 404)
  members(
    @CurrentPrincipal() principal: Principal,
    @IdParam('orgId', 'org') id: string,
    @Query() query: ListMembersQueryDto,
  ): Promise<MemberListResponse> {
    return this.team.listMembers(principal, id, query);
  }

  @Post('members')
  @Audited('member.invited')
  @TeamRoute(
    'inviteMember',
    Scope.TeamWrite,
    Permission.ManageMembers,
    'Invite a member by email',
    'Owner or admin; only an owner may invite an owner (API keys act as admins). Sends an email with a single-use accept link ' +
      'valid 7 days. 409 MEMBER_EXISTS: the email is already a member or invited here. 409 EMAIL_TAKEN: the email belongs to ' +
      'an active member of another organization.',
  )
  @ApiResponse({ status: 201, type: InvitedMemberResponse })
  @ApiErrors(400, 401, 403, 404, 409)
  invite(
    @CurrentPrincipal() principal: Principal,
    @IdParam('orgId', 'org') id: string,
    @Body() dto: InviteMemberDto,
  ): Promise<InvitedMemberResponse> {
    return this.invitations.invite(principal, id, dto);
  }

  @Patch('members/:id')
  @Audited('member.role_changed')
  @TeamRoute(
    'updateMember',
    Scope.TeamWrite,
    Permission.ManageMembers,
    'Change a member’s role or booking limits',
    'Owner or admin; `role` and `bookingLimits` each optional, at least one. Admins and API keys cannot grant owner nor change ' +
      'an owner’s role. 409 LAST_OWNER: demoting the last active owner. `bookingLimits` (contract § 17): the most starts the ' +
      'member hosts per local day and per Monday-to-Sunday week of its schedule zone, across every event type.',
  )
  @ApiResponse({ status: 200, type: MemberRoleResponse })
  @ApiErrors(400, 401, 403, 404, 409)
  changeRole(
    @CurrentPrincipal() principal: Principal,
    @IdParam('orgId', 'org') id: string,
    @IdParam('id', 'mem') member: string,
    @Body() dto: UpdateMemberDto,
  ): Promise<MemberRoleResponse> {
    return this.team.updateMember(principal, id, member, dto);
  }

  @Delete('members/:id')
  @Audited('member.removed')
  @HttpCode(204)
  @TeamRoute(
    'removeMember',
    Scope.TeamWrite,
    Permission.ManageMembers,
    'Remove a member or cancel an invitation',
    'Owner or admin; admins and API keys cannot remove an owner. An invitation’s token stops working; an active member’s ' +
      'sessions end at once and its bookings stay. 409 LAST_OWNER: removing the last active owner.',
  )
  @ApiResponse({ status: 204 })
  @ApiErrors(400, 401, 403, 404, 409)
  async removeMember(
    @CurrentPrincipal() principal: Principal,
    @IdParam('orgId', 'org') id: string,
    @IdParam('id', 'mem') member: string,
  ): Promise<void> {
    await this.team.removeMember(principal, id, member);
  }
}
