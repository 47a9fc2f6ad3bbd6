import type { SlotRequestDto } from '../booking-core/index.js';
import { Injectable } from '@nestjs/common';
import { AppError, type Principal, tenantScope } from '@app/common';
import { AvailabilityService, type KeyFingerprint, type SlotsAnswer } from '../availability/index.js';
import type { SlotsQueryDto } from '../availability/index.js';
import { BookingCreateService } from '../bookings/index.js';
import { type HoldRequest, HoldsService } from '../holds/index.js';
import type { StoredResponse } from '../idempotency/index.js';
import { type EventTypeDetails, EventTypesService } from '../event-types/index.js';
import { TeamService } from '../team/index.js';
import type {
  PublicBookingDto,
  PublicEventTypeListResponse,
  PublicEventTypeResponse,
  PublicEventTypeView,
} from './dto/public-booking.dto.js';

/** How many event types GET /public/event-types lists at most (a booking page shows a handful). */
const MAX_PUBLIC_EVENT_TYPES = 100;

/** The event types a publishable key may book: its list, or every active one (null). */
function keyEventTypes(principal: Principal): string[] | null {
  return principal.apiKey?.publishable?.eventTypeIds ?? null;
}

/**
 * The public routes of api-rules.md § Browser booking: what an attendee's page may see and do with a publishable key,
 * nothing more. Each answer is built here from the owning modules' services; the slot rules, holds and
 * bookings are theirs, unchanged.
 */
@Injectable()
export class PublicBookingService {
  constructor(
    private readonly eventTypes: EventTypesService,
    private readonly availability: AvailabilityService,
    private readonly holds: HoldsService,
    private readonly bookings: BookingCreateService,
    private readonly team: TeamService,
  ) {}

  async listEventTypes(principal: Principal): Promise<PublicEventTypeListResponse> {
    const found = await this.eventTypes.active(tenantScope(principal), keyEventTypes(principal), MAX_PUBLIC_EVENT_TYPES);
    const eventTypes = await this.views(principal, found);
    return { eventTypes, totalCount: eventTypes.length };
  }

  async getEventType(principal: Principal, id: string): Promise<PublicEventTypeResponse> {
    this.assertMayBook(principal, id);
    const [found] = await this.eventTypes.active(tenantScope(principal), [id], 1);
    if (!found) throw AppError.notFound('Event type');
    const [eventType] = await this.views(principal, [found]);
    return { eventType };
  }

  /** `withKey`: the fingerprint as the publishable key's lookup read it (AvailabilityService.slots). */
  slots(principal: Principal, query: SlotsQueryDto, withKey?: KeyFingerprint): Promise<SlotsAnswer> {
    this.assertMayBook(principal, query.eventTypeId);
    return this.availability.slots(principal, query, 'attendee', withKey);
  }

  /** The answer is `{ hold, holdToken }` (PublicHoldResponse), stored under the request's Idempotency-Key. */
  hold(principal: Principal, dto: SlotRequestDto, request: HoldRequest, clientAddress: string): Promise<StoredResponse> {
    this.assertMayBook(principal, dto.eventTypeId);
    return this.holds.create(principal, dto, request, { apiKeyId: principal.apiKey!.id, clientIp: clientAddress });
  }

  release(principal: Principal, id: string, holdToken: string): Promise<void> {
    return this.holds.release(principal, id, holdToken);
  }

  book(
    principal: Principal,
    dto: PublicBookingDto,
    idempotencyKey: string | undefined,
    requestId: string,
    clientAddress: string,
  ): Promise<StoredResponse> {
    this.assertMayBook(principal, dto.eventTypeId);
    const { holdToken, ...booking } = dto;
    const visitor = { apiKeyId: principal.apiKey!.id, clientAddress };
    return this.bookings.create(principal, booking, idempotencyKey, requestId, { holdToken: holdToken ?? null, visitor });
  }

  /** An event type outside the key's list is, for the key, no event type at all (404). */
  private assertMayBook(principal: Principal, eventTypeId: string): void {
    const allowed = keyEventTypes(principal);
    if (allowed !== null && !allowed.includes(eventTypeId)) throw AppError.notFound('Event type');
  }

  private async views(principal: Principal, eventTypes: readonly EventTypeDetails[]): Promise<PublicEventTypeView[]> {
    const contacts = await this.team.contactsOf(tenantScope(principal), [...new Set(eventTypes.flatMap((e) => e.hostUserIds))]);
    return eventTypes.map((eventType) => ({
      id: eventType.id,
      title: eventType.title,
      slug: eventType.slug,
      description: eventType.description,
      durationMinutes: eventType.durationMinutes,
      locationType: eventType.locationType,
      schedulingType: eventType.schedulingType,
      requiresConfirmation: eventType.requiresConfirmation,
      minimumNoticeHours: eventType.minimumNoticeHours,
      bookingWindowDays: eventType.bookingWindowDays,
      holdMinutes: eventType.holdMinutes,
      questions: eventType.questions,
      hosts: eventType.hostUserIds.map((userId) => ({ name: contacts.get(userId)?.name ?? null })),
      seatsPerSlot: eventType.seatsPerSlot,
      recurrence: eventType.recurrence,
      attendeeCancellation: eventType.attendeeCancellation,
      attendeeRescheduling: eventType.attendeeRescheduling,
    }));
  }
}
