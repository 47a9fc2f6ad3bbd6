import { Body, Controller, Get, Headers, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Access, ApiErrors, AppError, ClientAddress, CurrentPrincipal, IdParam, type Principal, Audited } from '@app/common';
import { FINGERPRINT_WITH_KEY, fingerprintFromKey, SlotsQueryDto } from '../availability/index.js';
import { sendSlots } from '../availability/index.js';
import { SlotRequestDto } from '../booking-core/index.js';
import { PublicBookingResponse } from '../bookings/index.js';
import { BookingQueriesService } from '../bookings/index.js';
import { IDEMPOTENCY_HEADER, idempotencyKey, sendStored } from '../idempotency/index.js';
import {
  PublicBookingDto,
  PublicEventTypeListResponse,
  PublicEventTypeResponse,
  PublicHoldResponse,
  PublicSlotsResponse,
  ReleaseHoldDto,
} from './dto/public-booking.dto.js';
import { PublicBookingService } from './public-booking.service.js';

const PUBLISHABLE =
  ' With `Authorization: ApiKey pk_…` and an `Origin` listed in the key’s allowedOrigins (else 403 ORIGIN_NOT_ALLOWED); ' +
  'CORS answers that origin only.';

/** `Authorization: Token <confirmationToken>`: the attendee's credential for its own booking. */
const ATTENDEE_TOKEN = /^Token ([\x21-\x7E]{1,200})$/;

@ApiTags('public')
@Controller('public')
export class PublicBookingController {
  constructor(
    private readonly publicBooking: PublicBookingService,
    private readonly bookings: BookingQueriesService,
  ) {}

  @Get('event-types')
  @Access({ publishable: true })
  @ApiOperation({
    operationId: 'listPublicEventTypes',
    summary: 'The event types a publishable key may book, as an attendee sees them',
    description: 'Active event types in the key’s `eventTypeIds` (all active ones when null), oldest first, at most 100.' + PUBLISHABLE,
  })
  @ApiResponse({ status: 200, type: PublicEventTypeListResponse })
  @ApiErrors(401, 403)
  listEventTypes(@CurrentPrincipal() principal: Principal): Promise<PublicEventTypeListResponse> {
    return this.publicBooking.listEventTypes(principal);
  }

  @Get('event-types/:id')
  @Access({ publishable: true })
  @ApiOperation({
    operationId: 'getPublicEventType',
    summary: 'One event type as an attendee sees it',
    description: 'An event type the key may not book (another organization’s, deleted, not in its list) → 404.' + PUBLISHABLE,
  })
  @ApiResponse({ status: 200, type: PublicEventTypeResponse })
  @ApiErrors(400, 401, 403, 404)
  getEventType(@CurrentPrincipal() principal: Principal, @IdParam('id', 'evt') id: string): Promise<PublicEventTypeResponse> {
    return this.publicBooking.getEventType(principal, id);
  }

  @Get('availability')
  @Access({ publishable: true, withKey: FINGERPRINT_WITH_KEY })
  @ApiOperation({
    operationId: 'listPublicSlots',
    summary: 'Bookable slots between two local dates, without host ids',
    description: 'The slots of GET /availability (same engine, same cache, holds included), without `hostUserId`.' + PUBLISHABLE,
  })
  @ApiResponse({ status: 200, type: PublicSlotsResponse })
  @ApiErrors(400, 401, 403, 404, 409)
  async slots(
    @CurrentPrincipal() principal: Principal,
    @Query() query: SlotsQueryDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    return sendSlots(request, reply, await this.publicBooking.slots(principal, query, fingerprintFromKey(request, query)));
  }

  @Post('holds')
  @Audited('hold.created')
  @Access({ publishable: true })
  @ApiOperation({
    operationId: 'createPublicHold',
    summary: 'Keep a time for the attendee while the form is filled in',
    description:
      'Granted exactly when a booking would be (else 409 SLOT_UNAVAILABLE with the reason). For the event type’s `holdMinutes` it ' +
      'blocks like a confirmed booking. At most 5 live holds per client address (an IPv4 address or an IPv6 /64) and key: ' +
      'the 6th → 429 HOLD_LIMIT_REACHED; and the holds of publishable keys cover at most 10 start times of one host at once ' +
      '(seats of one start count once), of which one key and client address cover at most 2 (its fair share): a hold on an 11th, ' +
      'or a visitor’s 3rd, → 429 HOLD_LIMIT_REACHED (a booking page then goes on without a hold). With an `Idempotency-Key` a ' +
      'retry gets the same hold and holdToken, never a second hold.' +
      PUBLISHABLE,
  })
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiResponse({ status: 201, type: PublicHoldResponse })
  @ApiErrors(400, 401, 403, 404, 409, 422)
  async hold(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: SlotRequestDto,
    @Headers('idempotency-key') key: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @ClientAddress() client: string,
  ): Promise<unknown> {
    return sendStored(
      reply,
      await this.publicBooking.hold(principal, dto, { key: idempotencyKey(key), requestId: String(request.id) }, client),
    );
  }

  @Post('holds/:id/release')
  @Audited('hold.released')
  @HttpCode(204)
  @Access({ publishable: true })
  @ApiOperation({
    operationId: 'releasePublicHold',
    summary: 'Release a hold (the attendee went back): its time is free again at once',
    description: 'A wrong holdToken → 401; a hold that is gone or expired → 404.' + PUBLISHABLE,
  })
  @ApiResponse({ status: 204, description: 'Released' })
  @ApiErrors(400, 401, 403, 404)
  async release(@CurrentPrincipal() principal: Principal, @IdParam('id', 'hld') id: string, @Body() dto: ReleaseHoldDto): Promise<void> {
    await this.publicBooking.release(principal, id, dto.holdToken);
  }

  @Post('bookings')
  @Audited('booking.created')
  @Access({ publishable: true })
  @ApiOperation({
    operationId: 'createPublicBooking',
    summary: 'Book a slot from the attendee’s page',
    description:
      'Everything as POST /bookings: the same slot rules and 409s, mail and webhooks; test keys make test bookings. With `holdId` ' +
      'and its `holdToken` the booking takes the hold’s place (a wrong token → 401; an expired hold is ignored). At most ' +
      'PUBLIC_BOOKINGS_PER_VISITOR_PER_HOUR (default 10) bookings per key and client address in any hour (a series counts once): ' +
      'then 429 RATE_LIMITED with Retry-After, the seconds until one of them leaves the hour.' +
      PUBLISHABLE,
  })
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiResponse({ status: 201, type: PublicBookingResponse })
  @ApiErrors(400, 401, 403, 404, 409, 422)
  async book(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: PublicBookingDto,
    @Headers('idempotency-key') key: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @ClientAddress() client: string,
  ): Promise<unknown> {
    return sendStored(reply, await this.publicBooking.book(principal, dto, idempotencyKey(key), String(request.id), client));
  }

  @Get('bookings/:id')
  @Access({ public: true, browser: true })
  @ApiOperation({
    operationId: 'getPublicBooking',
    summary: 'The attendee’s own booking, by its token: what a “manage your booking” page shows',
    description: 'With `Authorization: Token <confirmationToken>`; a wrong or dead token → 401. Any origin may call it (CORS).',
  })
  @ApiHeader({ name: 'Authorization', required: true, description: 'Token <confirmationToken>', schema: { type: 'string' } })
  @ApiResponse({ status: 200, type: PublicBookingResponse })
  @ApiErrors(400, 401)
  getBooking(
    @IdParam('id', 'bkg') id: string,
    @Headers('authorization') authorization: string | undefined,
  ): Promise<PublicBookingResponse> {
    const token = ATTENDEE_TOKEN.exec(authorization ?? '')?.[1];
    if (token === undefined) throw AppError.unauthorized('Send Authorization: Token <confirmationToken>');
    return this.bookings.getForAttendee(id, token);
  }
}
