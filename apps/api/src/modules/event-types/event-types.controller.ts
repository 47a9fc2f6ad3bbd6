import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Access, ApiErrors, CurrentPrincipal, Permission, type Principal, Scope, IdParam, Audited } from '@app/common';
import {
  CreateEventTypeDto,
  EventTypeListResponse,
  EventTypeResponse,
  ListEventTypesQueryDto,
  UpdateEventTypeDto,
} from './dto/event-type.dto.js';
import { EventTypesService } from './event-types.service.js';

@ApiTags('event-types')
@Controller('event-types')
export class EventTypesController {
  constructor(private readonly eventTypes: EventTypesService) {}

  @Post()
  @Audited('event_type.created')
  @Access({ scope: Scope.EventTypesWrite, permission: Permission.ManageEventTypes })
  @ApiOperation({
    operationId: 'createEventType',
    summary: 'Create an event type (scope event_types:write; owner or admin)',
    description: '409 SLUG_TAKEN when an active event type of the organization uses the slug.',
  })
  @ApiResponse({ status: 201, type: EventTypeResponse })
  @ApiErrors(400, 401, 403, 409)
  create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateEventTypeDto): Promise<EventTypeResponse> {
    return this.eventTypes.create(principal, dto);
  }

  @Get()
  @Access({ scope: Scope.EventTypesRead })
  @ApiOperation({
    operationId: 'listEventTypes',
    description:
      "The organization's event types, paged, active ones by default; `?isActive=false` lists the deleted ones (scope event_types:read).",
    summary: 'List active event types, or deleted ones with ?isActive=false (scope event_types:read)',
  })
  @ApiResponse({ status: 200, type: EventTypeListResponse })
  @ApiErrors(400, 401, 403)
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListEventTypesQueryDto): Promise<EventTypeListResponse> {
    return this.eventTypes.list(principal, query);
  }

  @Get(':id')
  @Access({ scope: Scope.EventTypesRead })
  @ApiOperation({
    operationId: 'getEventType',
    description:
      'One event type with every field (duration, buffers, limits, hosts, questions, policies), deleted ones included (scope event_types:read).',
    summary: 'One event type with every field, deleted ones included (scope event_types:read)',
  })
  @ApiResponse({ status: 200, type: EventTypeResponse })
  @ApiErrors(400, 401, 403, 404)
  get(@CurrentPrincipal() principal: Principal, @IdParam('id', 'evt') id: string): Promise<EventTypeResponse> {
    return this.eventTypes.get(principal, id);
  }

  @Patch(':id')
  @Audited('event_type.updated')
  @Access({ scope: Scope.EventTypesWrite, permission: Permission.ManageEventTypes })
  @ApiOperation({
    operationId: 'updateEventType',
    summary: 'Change the supplied fields (scope event_types:write; owner or admin)',
    description: '`hostUserIds` replaces the host list. 409 SLUG_TAKEN, or 409 EVENT_TYPE_INACTIVE for a deleted event type.',
  })
  @ApiResponse({ status: 200, type: EventTypeResponse })
  @ApiErrors(400, 401, 403, 404, 409)
  update(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id', 'evt') id: string,
    @Body() dto: UpdateEventTypeDto,
  ): Promise<EventTypeResponse> {
    return this.eventTypes.update(principal, id, dto);
  }

  @Delete(':id')
  @Audited('event_type.deleted')
  @HttpCode(204)
  @Access({ scope: Scope.EventTypesWrite, permission: Permission.ManageEventTypes })
  @ApiOperation({
    operationId: 'deleteEventType',
    description:
      'Soft delete: `isActive` becomes false, no new booking is accepted, existing bookings are kept and still shown. Deleting again answers the same (scope event_types:write; owner or admin).',
    summary: 'Soft delete (isActive becomes false); bookings are kept. Repeatable (scope event_types:write; owner or admin)',
  })
  @ApiResponse({ status: 204 })
  @ApiErrors(400, 401, 403, 404)
  async remove(@CurrentPrincipal() principal: Principal, @IdParam('id', 'evt') id: string): Promise<void> {
    await this.eventTypes.remove(principal, id);
  }
}
