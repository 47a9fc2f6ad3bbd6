import { Body, Controller, Get, Headers, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiHeader, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Access, ApiErrors, CurrentPrincipal, OptionalPrincipal, Permission, type Principal, Scope, IdParam, Audited } from '@app/common';
import { CreateBookingDto } from '../booking-core/index.js';
import { BookingChangesService } from './booking-changes.service.js';
import { BookingCreateService } from './booking-create.service.js';
import { BookingQueriesService } from './booking-queries.service.js';
import { BookingReassignService } from './booking-reassign.service.js';
import { BookingRescheduleService } from './booking-reschedule.service.js';
import {
  BookingListResponse,
  BookingResponse,
  CancelBookingDto,
  CancelledBookingResponse,
  CreatedBookingResponse,
  DecisionDto,
  ListBookingsQueryDto,
  NoShowDto,
  PublicBookingResponse,
  ReassignBookingDto,
  RescheduleBookingDto,
  RescheduledBookingResponse,
} from './dto/booking.dto.js';
import { IDEMPOTENCY_HEADER, idempotencyKey, sendStored as send } from '../idempotency/index.js';

@ApiTags('bookings')
@Controller('bookings')
export class BookingsController {
  constructor(
    private readonly creating: BookingCreateService,
    private readonly changing: BookingChangesService,
    private readonly reading: BookingQueriesService,
    private readonly rescheduling: BookingRescheduleService,
    private readonly reassigning: BookingReassignService,
  ) {}

  @Post()
  @Audited('booking.created')
  @Access({ scope: Scope.BookingsWrite, permission: Permission.CreateBookings })
  @ApiOperation({
    operationId: 'createBooking',
    summary: 'Book a slot',
    description:
      '`status` is `pending` when the event type requires confirmation. A time that is not bookable → 409 SLOT_UNAVAILABLE with ' +
      '`details[0] = { field: "startTime", message: <reason> }`; deleted event type → 409 EVENT_TYPE_INACTIVE. With `recurrenceCount` ' +
      '(an event type with `recurrence`): every occurrence or none, the answer adding `series`; refused occurrences each get a ' +
      '`details` entry ("occurrence <n> at <start>: <reason>").',
  })
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiResponse({ status: 201, type: CreatedBookingResponse })
  @ApiErrors(400, 401, 403, 404, 409, 422)
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateBookingDto,
    @Headers('idempotency-key') key: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    return send(reply, await this.creating.create(principal, dto, idempotencyKey(key), String(request.id)));
  }

  @Get()
  @Access({ scope: Scope.BookingsRead })
  @ApiOperation({
    operationId: 'listBookings',
    description:
      "The bookings of the caller's organization and mode, ordered by start then id, paged, filtered by status, dates, event type, host, attendee, series or no-show. A member's session sees the bookings the member hosts (scope bookings:read).",
    summary: 'List bookings ordered by startsAt then id (members see the bookings they host)',
  })
  @ApiResponse({ status: 200, type: BookingListResponse })
  @ApiErrors(400, 401, 403)
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListBookingsQueryDto): Promise<BookingListResponse> {
    return this.reading.list(principal, query);
  }

  @Get(':id')
  @Access({ scope: Scope.BookingsRead })
  @ApiOperation({
    operationId: 'getBooking',
    description:
      "One booking with its attendee, event type, hosts and meeting link (scope bookings:read). A member's session sees only the bookings the member hosts.",
    summary: 'One booking with attendee, event type and meeting link',
  })
  @ApiResponse({ status: 200, type: BookingResponse })
  @ApiErrors(401, 403, 404)
  get(@CurrentPrincipal() principal: Principal, @IdParam('id', 'bkg') id: string): Promise<BookingResponse> {
    return this.reading.get(principal, id);
  }

  @Post(':id/cancel')
  @Audited('booking.cancelled')
  @HttpCode(200)
  @Access({ scope: Scope.BookingsWrite, attendeeToken: true })
  @ApiOperation({
    operationId: 'cancelBooking',
    summary: 'Cancel a booking: host credentials, or the attendee’s token in the body',
    description:
      'Neither → 401. Cancelled → 409 BOOKING_NOT_ACTIVE; started → 409 BOOKING_IN_PAST. The slot is free again at once. ' +
      '`scope: "following"` on an occurrence of a series also cancels every later active occurrence (one transaction, one mail).',
  })
  @ApiResponse({ status: 200, type: CancelledBookingResponse })
  @ApiErrors(400, 401, 403, 404, 409)
  cancel(
    @OptionalPrincipal() principal: Principal | undefined,
    @IdParam('id', 'bkg') id: string,
    @Body() dto: CancelBookingDto,
  ): Promise<CancelledBookingResponse> {
    return this.changing.cancel(principal, id, dto);
  }

  @Post(':id/reschedule')
  @Audited('booking.rescheduled')
  @HttpCode(200)
  @Access({ scope: Scope.BookingsWrite, attendeeToken: true })
  @ApiOperation({
    operationId: 'rescheduleBooking',
    summary: 'Move a booking: the original is cancelled and a new one created, atomically',
    description:
      'Host credentials or the attendee’s token. The new booking gets a new token; the old one stops working. ' +
      'Not bookable → 409 SLOT_UNAVAILABLE (`details[0].field` = newStartTime) and the original is unchanged.',
  })
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiResponse({ status: 200, type: RescheduledBookingResponse })
  @ApiErrors(400, 401, 403, 404, 409, 422)
  async reschedule(
    @OptionalPrincipal() principal: Principal | undefined,
    @IdParam('id', 'bkg') id: string,
    @Body() dto: RescheduleBookingDto,
    @Headers('idempotency-key') key: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    return send(reply, await this.rescheduling.reschedule(principal, id, dto, idempotencyKey(key), String(request.id)));
  }

  @Post(':id/reassign')
  @HttpCode(200)
  @Audited('booking.reassigned')
  @Access({ scope: Scope.BookingsWrite })
  @ApiOperation({
    operationId: 'reassignBooking',
    summary: 'Give an active future booking another host (host credentials; members only their own bookings)',
    description:
      'The new host (`hostUserId`: any active member; without it the next host of a round-robin event type by its rotation, ' +
      'else 409) must be free at the booking’s time by every rule of its availability, under the same locks as a booking; not ' +
      'free → 409 SLOT_UNAVAILABLE with `details[0] = { field: "hostUserId", message: <reason> }`. Id, token, times and attendee ' +
      'stay; a collective booking keeps its other hosts: the place handed over is `fromHostUserId` (default the first host; a member ' +
      'hands over only its own place, the default for it, and naming another host’s → 403 FORBIDDEN). The attendee and both hosts get a mail, the webhook `booking.reassigned` ' +
      'carries `data.booking` and `data.previousHostUserIds`, and the booking moves between the hosts’ written-back calendars. ' +
      'Cancelled → 409 BOOKING_NOT_ACTIVE; started → 409 BOOKING_IN_PAST.',
  })
  @ApiResponse({ status: 200, type: BookingResponse })
  @ApiErrors(400, 401, 403, 404, 409)
  reassign(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id', 'bkg') id: string,
    @Body() dto: ReassignBookingDto,
  ): Promise<BookingResponse> {
    return this.reassigning.reassign(principal, id, dto);
  }

  @Post(':id/confirm')
  @Audited('booking.confirmed')
  @HttpCode(200)
  @Access({ scope: Scope.BookingsWrite })
  @ApiOperation({
    operationId: 'confirmBooking',
    summary: 'Confirm a pending booking (host credentials)',
    description: 'Not pending → 409 BOOKING_NOT_PENDING.',
  })
  @ApiResponse({ status: 200, type: BookingResponse })
  @ApiErrors(400, 401, 403, 404, 409)
  confirm(@CurrentPrincipal() principal: Principal, @IdParam('id', 'bkg') id: string, @Body() dto: DecisionDto): Promise<BookingResponse> {
    return this.changing.confirm(principal, id, dto);
  }

  @Post(':id/no-show')
  @Audited('booking.no_show_marked')
  @HttpCode(200)
  // Not one of the browser routes (api-rules.md § Browser booking lists them): no CORS headers.
  @Access({ scope: Scope.BookingsWrite, attendeeToken: true, crossOrigin: false })
  @ApiOperation({
    operationId: 'markNoShow',
    summary: 'Mark who did not come (or take the mark back): host credentials for either party, the attendee’s token for the host',
    description:
      'Only a confirmed booking whose start has passed: before it → 409 BOOKING_NOT_STARTED; cancelled or pending → 409 ' +
      'BOOKING_NOT_ACTIVE. The attendee’s token marking the attendee → 403. A mark turning true sends `booking.no_show` ' +
      '(`data.booking`, `data.party`). Host credentials get the booking as GET /bookings/:id shows it; the attendee’s token ' +
      'gets it as GET /public/bookings/:id does (no notes, metadata or host ids).',
  })
  @ApiExtraModels(PublicBookingResponse)
  @ApiResponse({
    status: 200,
    description: 'With host credentials a BookingResponse; with the attendee’s token a PublicBookingResponse',
    schema: { anyOf: [{ $ref: getSchemaPath(BookingResponse) }, { $ref: getSchemaPath(PublicBookingResponse) }] },
  })
  @ApiErrors(400, 401, 403, 404, 409)
  markNoShow(
    @OptionalPrincipal() principal: Principal | undefined,
    @IdParam('id', 'bkg') id: string,
    @Body() dto: NoShowDto,
  ): Promise<BookingResponse | PublicBookingResponse> {
    return this.changing.markNoShow(principal, id, dto);
  }

  @Post(':id/decline')
  @Audited('booking.declined')
  @HttpCode(200)
  @Access({ scope: Scope.BookingsWrite })
  @ApiOperation({
    operationId: 'declineBooking',
    summary: 'Decline a pending booking (host credentials): it becomes cancelled',
    description: 'Not pending → 409 BOOKING_NOT_PENDING.',
  })
  @ApiResponse({ status: 200, type: BookingResponse })
  @ApiErrors(400, 401, 403, 404, 409)
  decline(@CurrentPrincipal() principal: Principal, @IdParam('id', 'bkg') id: string, @Body() dto: DecisionDto): Promise<BookingResponse> {
    return this.changing.decline(principal, id, dto);
  }
}
