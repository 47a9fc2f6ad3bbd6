import { Body, Controller, Delete, Get, Headers, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Access, ApiErrors, CurrentPrincipal, IdParam, Permission, type Principal, Scope, Audited } from '@app/common';
import { CreateHoldDto, HoldListResponse, HoldResponse, ListHoldsQueryDto } from './dto/hold.dto.js';
import { IDEMPOTENCY_HEADER, idempotencyKey, sendStored } from '../idempotency/index.js';
import { HoldsService } from './holds.service.js';

@ApiTags('holds')
@Controller('holds')
export class HoldsController {
  constructor(private readonly holds: HoldsService) {}

  @Post()
  @Audited('hold.created')
  @Access({ scope: Scope.BookingsWrite, permission: Permission.CreateBookings })
  @ApiOperation({
    operationId: 'createHold',
    summary: 'Keep a slot for a few minutes while the attendee fills in the form',
    description:
      'Granted exactly when a booking at that time would be, else 409 SLOT_UNAVAILABLE with the reason. Until `expiresAt` (now + ' +
      '`ttlSeconds`, or the event type’s `holdMinutes`) it blocks like a confirmed booking of the host the booking would get, on every ' +
      'instance; `POST /bookings` with `holdId` takes its place. From `expiresAt` on it blocks nothing. With an `Idempotency-Key` ' +
      'a retry gets the same hold, never a second one.',
  })
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiResponse({ status: 201, type: HoldResponse })
  @ApiErrors(400, 401, 403, 404, 409, 422)
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateHoldDto,
    @Headers('idempotency-key') key: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    return sendStored(reply, await this.holds.create(principal, dto, { key: idempotencyKey(key), requestId: String(request.id) }));
  }

  @Get()
  @Access({ scope: Scope.BookingsRead })
  @ApiOperation({
    operationId: 'listHolds',
    description:
      "The holds that have not expired, soonest first, paged; a member's session sees the holds on their own time (scope bookings:read).",
    summary: 'The live holds, soonest first (members see the holds of their own time)',
  })
  @ApiResponse({ status: 200, type: HoldListResponse })
  @ApiErrors(400, 401, 403)
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListHoldsQueryDto): Promise<HoldListResponse> {
    return this.holds.list(principal, query);
  }

  @Delete(':id')
  @Audited('hold.released')
  @HttpCode(204)
  @Access({ scope: Scope.BookingsWrite })
  @ApiOperation({
    operationId: 'deleteHold',
    description: 'Releases a hold before it expires: its time is bookable again at once (scope bookings:write).',
    summary: 'Release a hold: its time is free again at once',
  })
  @ApiResponse({ status: 204, description: 'Released' })
  @ApiErrors(400, 401, 403, 404)
  async remove(@CurrentPrincipal() principal: Principal, @IdParam('id', 'hld') id: string): Promise<void> {
    await this.holds.remove(principal, id);
  }
}
