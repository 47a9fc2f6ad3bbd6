import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Access, ApiErrors, CurrentPrincipal, type Principal, Audited } from '@app/common';
import { MeResponse, UpdateMeDto, UserResponse } from './dto/auth.dto.js';
import { UsersService } from './users.service.js';

@ApiTags('users')
@Controller('users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Access({ scope: 'any' })
  @Get('me')
  @ApiOperation({
    operationId: 'getCurrentUser',
    summary: 'The caller: user, organization and membership',
    description:
      'With an API key (any scope): the key’s creator, `member.role` null, plus `apiKey`. With a partner app’s access token: ' +
      '`user` and `member` null, plus `app` and `scopes`.',
  })
  @ApiResponse({ status: 200, type: MeResponse })
  @ApiErrors(401)
  me(@CurrentPrincipal() principal: Principal): Promise<MeResponse> {
    return this.users.me(principal);
  }

  @Access({})
  @Patch('me')
  @Audited('user.updated', { self: 'user' })
  @ApiOperation({
    operationId: 'updateCurrentUser',
    description: "Changes the signed-in user's own first and last name. JWT only: an API key or an app's token has no user to update.",
    summary: 'Update the caller’s profile (JWT only)',
  })
  @ApiResponse({ status: 200, type: UserResponse })
  @ApiErrors(400, 401, 403)
  updateMe(@CurrentPrincipal() principal: Principal, @Body() dto: UpdateMeDto): Promise<UserResponse> {
    return this.users.updateMe(principal, dto);
  }
}
