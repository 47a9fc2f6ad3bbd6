import { Body, Controller, Headers, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, Public, Audited } from '@app/common';
import { AcceptInvitationDto, AcceptInvitationResponse } from './dto/invitation.dto.js';
import { RegistrationService } from './registration.service.js';

/** Lives in the auth module: accepting creates a user and a session, which the team module cannot reach. */
@ApiTags('team')
@Controller('invitations')
export class InvitationsController {
  constructor(private readonly registration: RegistrationService) {}

  @Public()
  @Post('accept')
  @Audited('member.joined')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'acceptInvitation',
    summary: 'Accept an invitation: set a password, join the organization, get a session',
    description:
      'Public. 404 INVITATION_NOT_FOUND: unknown, used or cancelled token. 410 INVITATION_EXPIRED: older than 7 days. ' +
      '409 EMAIL_TAKEN: the email already belongs to an active member of an organization. A user of this email without ' +
      'any membership (a removed member) is re-attached and gets the new password.',
  })
  @ApiResponse({ status: 200, type: AcceptInvitationResponse })
  @ApiErrors(400, 404, 409, 410)
  accept(@Body() dto: AcceptInvitationDto, @Headers('user-agent') userAgent?: string): Promise<AcceptInvitationResponse> {
    return this.registration.acceptInvitation(dto, userAgent);
  }
}
