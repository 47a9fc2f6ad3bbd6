import { Body, Controller, Delete, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Access, ApiErrors, CurrentPrincipal, Permission, type Principal, Scope, IdParam, Audited } from '@app/common';
import { CreateOverrideDto, ListOverridesQueryDto, OverrideListResponse, OverrideResponse } from './dto/override.dto.js';
import { PutScheduleDto, ScheduleResponse, UserQueryDto } from './dto/schedule.dto.js';
import { SchedulesService } from './schedules.service.js';

const OTHERS = 'A member may only name itself in `userId`; owners, admins and API keys may name any active member (else 404).';

@ApiTags('availability')
@Controller('availability')
export class SchedulesController {
  constructor(private readonly schedules: SchedulesService) {}

  @Get('schedules')
  @Access({ scope: Scope.AvailabilityRead })
  @ApiOperation({
    operationId: 'getSchedule',
    summary: 'A member’s weekly schedule (scope availability:read)',
    description: OTHERS,
  })
  @ApiResponse({ status: 200, type: ScheduleResponse })
  @ApiErrors(400, 401, 403, 404)
  get(@CurrentPrincipal() principal: Principal, @Query() query: UserQueryDto): Promise<ScheduleResponse> {
    return this.schedules.getSchedule(principal, query.userId);
  }

  @Put('schedules')
  @Audited('schedule.updated', { param: 'userId', self: 'user' })
  @Access({ scope: Scope.AvailabilityWrite, permission: Permission.ManageOwnAvailability })
  @ApiOperation({
    operationId: 'replaceSchedule',
    summary: 'Replace a member’s weekly schedule (scope availability:write)',
    description: `dayOfWeek 0 = Sunday … 6 = Saturday, each at most once; HH:MM with 24:00 allowed as endTime; slots of a day must not overlap. ${OTHERS}`,
  })
  @ApiResponse({ status: 200, type: ScheduleResponse })
  @ApiErrors(400, 401, 403, 404)
  put(@CurrentPrincipal() principal: Principal, @Query() query: UserQueryDto, @Body() dto: PutScheduleDto): Promise<ScheduleResponse> {
    return this.schedules.putSchedule(principal, query.userId, dto);
  }

  @Post('overrides')
  @Audited('override.created')
  @Access({ scope: Scope.AvailabilityWrite, permission: Permission.ManageOwnAvailability })
  @ApiOperation({
    operationId: 'createOverride',
    summary: 'Override one date of a member’s weekly hours (scope availability:write)',
    description: `\`custom\` needs at least one slot, \`unavailable\` takes none. 409 OVERRIDE_EXISTS for a second override of the same date. ${OTHERS}`,
  })
  @ApiResponse({ status: 201, type: OverrideResponse })
  @ApiErrors(400, 401, 403, 404, 409)
  create(
    @CurrentPrincipal() principal: Principal,
    @Query() query: UserQueryDto,
    @Body() dto: CreateOverrideDto,
  ): Promise<OverrideResponse> {
    return this.schedules.createOverride(principal, query.userId, dto);
  }

  @Get('overrides')
  @Access({ scope: Scope.AvailabilityRead })
  @ApiOperation({
    operationId: 'listOverrides',
    summary: 'A member’s overrides between two dates, inclusive, at most 366 dates (scope availability:read)',
    description: OTHERS,
  })
  @ApiResponse({ status: 200, type: OverrideListResponse })
  @ApiErrors(400, 401, 403, 404)
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListOverridesQueryDto): Promise<OverrideListResponse> {
    return this.schedules.listOverrides(principal, query);
  }

  @Delete('overrides/:id')
  @Audited('override.deleted')
  @HttpCode(204)
  @Access({ scope: Scope.AvailabilityWrite, permission: Permission.ManageOwnAvailability })
  @ApiOperation({
    operationId: 'deleteOverride',
    summary: 'Remove an override; the weekly hours apply again that date (scope availability:write)',
    description: OTHERS,
  })
  @ApiResponse({ status: 204 })
  @ApiErrors(400, 401, 403, 404)
  async remove(@CurrentPrincipal() principal: Principal, @IdParam('id', 'ovr') id: string): Promise<void> {
    await this.schedules.deleteOverride(principal, id);
  }
}
