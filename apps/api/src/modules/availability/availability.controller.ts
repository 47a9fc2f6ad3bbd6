import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Access, ApiErrors, CurrentPrincipal, type Principal, Scope } from '@app/common';
import { AvailabilityService, FINGERPRINT_WITH_KEY, fingerprintFromKey } from './availability.service.js';
import { sendSlots } from './slots-reply.js';
import { CheckQueryDto, CheckResponse, SlotsQueryDto, SlotsResponse } from './dto/slots.dto.js';

@ApiTags('availability')
@Controller('availability')
export class AvailabilityController {
  constructor(private readonly availability: AvailabilityService) {}

  @Get()
  @Access({ scope: Scope.AvailabilityRead, withKey: FINGERPRINT_WITH_KEY })
  @ApiOperation({
    operationId: 'listAvailableSlots',
    summary: 'Bookable slots of an event type between two local dates (scope availability:read)',
    description:
      '`start` and `end` are inclusive dates in `timezone` (default UTC), at most 93 dates. Slots are sorted and rendered in ' +
      '`timezone` with its offset. 409 EVENT_TYPE_INACTIVE for a deleted event type. Test-mode keys see test bookings only. ' +
      'Answers may come from a cache that every committed change invalidates at once on every instance (`Cache-Status`). ' +
      'With `routingResponseId` (contract § 22) only the hosts the response routes to are offered.',
  })
  @ApiResponse({
    status: 200,
    type: SlotsResponse,
    headers: {
      'Cache-Status': {
        description: 'RFC 9211: `availability; hit` when the answer was computed before and nothing it depends on changed since',
        schema: { type: 'string' },
      },
    },
  })
  @ApiErrors(400, 401, 403, 404, 409)
  async slots(
    @CurrentPrincipal() principal: Principal,
    @Query() query: SlotsQueryDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    return sendSlots(request, reply, await this.availability.slots(principal, query, 'hosts', fingerprintFromKey(request, query)));
  }

  @Get('check')
  @Access({ scope: Scope.AvailabilityRead })
  @ApiOperation({
    operationId: 'checkAvailability',
    summary: 'Whether one start time is bookable, and why not (scope availability:read)',
    description:
      'True exactly when `startTime` starts a slot GET /availability lists. `reason`: in_the_past, minimum_notice, ' +
      'outside_booking_window, outside_availability, already_booked, held (someone holds that time: POST /holds), calendar_conflict (busy in one of the host’s connected ' +
      'calendars), daily_limit_reached (the event type’s cap) or host_limit_reached (the host’s own booking limits across event ' +
      'types, PATCH /organizations/:orgId/members/:id); with `routingResponseId` also not_routed (only a host the response ' +
      'does not route to could take it). 409 EVENT_TYPE_INACTIVE for a deleted event type.',
  })
  @ApiResponse({ status: 200, type: CheckResponse })
  @ApiErrors(400, 401, 403, 404, 409)
  check(@CurrentPrincipal() principal: Principal, @Query() query: CheckQueryDto): Promise<CheckResponse> {
    return this.availability.check(principal, query);
  }
}
