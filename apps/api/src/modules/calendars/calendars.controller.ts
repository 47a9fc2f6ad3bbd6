import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Access, ApiErrors, CurrentPrincipal, IdParam, Permission, type Principal, Scope, Audited } from '@app/common';
import { UserQueryDto } from '../schedules/index.js';
import { CalendarsService } from './calendars.service.js';
import {
  BusyQueryDto,
  BusyResponse,
  CalendarListResponse,
  CalendarResponse,
  CreateCalendarDto,
  ListCalendarsQueryDto,
  UpdateCalendarDto,
} from './dto/calendar.dto.js';

const WHO =
  'Access as for schedules: every role manages its own calendars; owners, admins and API keys also another member’s with `userId`.';

@ApiTags('calendars')
@Controller('calendars')
export class CalendarsController {
  constructor(private readonly calendars: CalendarsService) {}

  @Post()
  @Audited('calendar.connected')
  @Access({ scope: Scope.AvailabilityWrite, permission: Permission.ManageOwnAvailability })
  @ApiOperation({
    operationId: 'createCalendar',
    summary: 'Connect an ICS feed or a CalDAV account (scope availability:write)',
    description: `The source is read once before the answer, so its busy times block from the 201. 422 CALENDAR_UNREACHABLE when it cannot be read; 409 CALENDAR_EXISTS for the same source twice; 409 CALENDAR_LIMIT_REACHED past 20 per member. ${WHO}`,
  })
  @ApiResponse({ status: 201, type: CalendarResponse })
  @ApiErrors(400, 401, 403, 404, 409, 422)
  create(
    @CurrentPrincipal() principal: Principal,
    @Query() query: UserQueryDto,
    @Body() dto: CreateCalendarDto,
  ): Promise<CalendarResponse> {
    return this.calendars.create(principal, query.userId, dto);
  }

  @Get()
  @Access({ scope: Scope.AvailabilityRead })
  @ApiOperation({ operationId: 'listCalendars', summary: 'A member’s connected calendars (scope availability:read)', description: WHO })
  @ApiResponse({ status: 200, type: CalendarListResponse })
  @ApiErrors(400, 401, 403, 404)
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListCalendarsQueryDto): Promise<CalendarListResponse> {
    return this.calendars.list(principal, query);
  }

  @Get('busy')
  @Access({ scope: Scope.AvailabilityRead })
  @ApiOperation({
    operationId: 'listCalendarBusyTimes',
    summary: 'The stored busy times of a member’s blocking calendars, at most 93 dates (scope availability:read)',
    description: `Times only, never titles or other details. ${WHO}`,
  })
  @ApiResponse({ status: 200, type: BusyResponse })
  @ApiErrors(400, 401, 403, 404)
  busy(@CurrentPrincipal() principal: Principal, @Query() query: BusyQueryDto): Promise<BusyResponse> {
    return this.calendars.busy(principal, query);
  }

  @Get(':id')
  @Access({ scope: Scope.AvailabilityRead })
  @ApiOperation({ operationId: 'getCalendar', summary: 'One connected calendar (scope availability:read)', description: WHO })
  @ApiResponse({ status: 200, type: CalendarResponse })
  @ApiErrors(400, 401, 403, 404)
  get(@CurrentPrincipal() principal: Principal, @IdParam('id', 'cal') id: string): Promise<CalendarResponse> {
    return this.calendars.get(principal, id);
  }

  @Patch(':id')
  @Audited('calendar.updated')
  @Access({ scope: Scope.AvailabilityWrite, permission: Permission.ManageOwnAvailability })
  @ApiOperation({
    operationId: 'updateCalendar',
    summary: 'Rename a calendar or stop it blocking (scope availability:write)',
    description: WHO,
  })
  @ApiResponse({ status: 200, type: CalendarResponse })
  @ApiErrors(400, 401, 403, 404)
  update(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id', 'cal') id: string,
    @Body() dto: UpdateCalendarDto,
  ): Promise<CalendarResponse> {
    return this.calendars.update(principal, id, dto);
  }

  @Delete(':id')
  @Audited('calendar.disconnected')
  @HttpCode(204)
  @Access({ scope: Scope.AvailabilityWrite, permission: Permission.ManageOwnAvailability })
  @ApiOperation({
    operationId: 'deleteCalendar',
    summary: 'Disconnect a calendar; its busy times stop blocking at once (scope availability:write)',
    description: WHO,
  })
  @ApiResponse({ status: 204, description: 'Disconnected' })
  @ApiErrors(400, 401, 403, 404)
  async remove(@CurrentPrincipal() principal: Principal, @IdParam('id', 'cal') id: string): Promise<void> {
    await this.calendars.remove(principal, id);
  }

  @Post(':id/sync')
  @Audited('calendar.synced')
  @HttpCode(202)
  @Access({ scope: Scope.AvailabilityWrite, permission: Permission.ManageOwnAvailability })
  @ApiOperation({
    operationId: 'syncCalendar',
    summary: 'Sync a calendar now, in the background (scope availability:write)',
    description: WHO,
  })
  @ApiResponse({ status: 202, type: CalendarResponse })
  @ApiErrors(400, 401, 403, 404)
  sync(@CurrentPrincipal() principal: Principal, @IdParam('id', 'cal') id: string): Promise<CalendarResponse> {
    return this.calendars.requestSync(principal, id);
  }
}
