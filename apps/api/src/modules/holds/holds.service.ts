import { Injectable } from '@nestjs/common';
import { parseInputTimestamp } from '@app/availability';
import {
  AppError,
  Clock,
  ErrorCode,
  looksLikeId,
  newId,
  pageMeta,
  type Principal,
  randomBase62,
  sha256,
  tenantScope,
  type TenantScope,
} from '@app/common';
import { TransactionHost } from '@app/database';
import { type HoldRecord, HoldRows, mayActOnBooking, seesAllBookings } from '../booking-core/index.js';
import { fingerprintOf, type StoredResponse } from '../idempotency/index.js';
import { RoutedBookingsService } from '../routing-forms/index.js';
import { SlotDecisionService } from '../slot-decision/index.js';
import { CreateHoldDto, HoldListResponse, HoldResponse, HoldView, ListHoldsQueryDto } from './dto/hold.dto.js';

const MINUTE_MS = 60_000;

/** At most this many live holds per publishable key and client address (api-rules.md § Browser booking). */
export const HOLDS_PER_VISITOR = 5;

/**
 * Publishable keys' live holds cover at most this many distinct start times of one host (seats of one start count
 * once), whatever key or address placed them: no visitor, however many addresses it uses, holds a host's whole day.
 */
export const HELD_STARTS_PER_HOST = 10;

/**
 * The fair share of those 10 one key and client address may cover (api-rules.md § Browser booking): at most this many
 * distinct starts of one host at once, so that filling a host's 10 takes at least 5 visitors, and a visitor holds one
 * time while it fills in the form (and one more while a release is on its way).
 */
export const HELD_STARTS_PER_VISITOR_PER_HOST = 2;

/** A hold request's Idempotency-Key (section 8's rules) and the request's id. */
export interface HoldRequest {
  key: string | undefined;
  requestId: string;
}

/** Who placed a hold through a publishable key: the per-visitor limit counts by these. */
export interface HoldVisitor {
  apiKeyId: string;
  /** The client address (an IPv4 address or an IPv6 /64: clientAddressOf), stored in `holds.client_ip`. */
  clientIp: string;
}

/** A live hold a booking takes the place of, with the hosts it occupies (the primary first). */
export interface TakenHold {
  hold: HoldRecord;
  hostUserIds: string[];
}

export interface CreatedHold extends HoldResponse {
  /** Only for a publishable key's hold: what the page must show to book through it or release it. */
  holdToken?: string;
}

function holdView(hold: HoldRecord): HoldView {
  return {
    id: hold.id,
    eventTypeId: hold.eventTypeId,
    startsAt: hold.startsAt.toISOString(),
    endsAt: hold.endsAt.toISOString(),
    expiresAt: hold.expiresAt.toISOString(),
  };
}

/**
 * Holds: a time kept for an attendee while the form is filled in. Granted exactly when a booking would
 * be (the same SlotDecisionService), they occupy the host(s) the booking would get under the same
 * exclusion constraint, so concurrent holds and bookings of one time have exactly one winner.
 */
@Injectable()
export class HoldsService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly holdRows: HoldRows,
    private readonly slots: SlotDecisionService,
    private readonly clock: Clock,
    private readonly routed: RoutedBookingsService,
  ) {}

  /**
   * Places a hold; under an Idempotency-Key a retry gets the stored answer (the same hold and, for a publishable key, the
   * same holdToken: the record's body is sealed at rest) and never places a second hold. A publishable key's retry must
   * come from the same key and client address (`visitor`), else 422 IDEMPOTENCY_KEY_REUSED.
   */
  async create(principal: Principal, dto: CreateHoldDto, request: HoldRequest, visitor?: HoldVisitor): Promise<StoredResponse> {
    const start = parseInputTimestamp(dto.startTime, dto.timezone);
    if (start === null) throw AppError.validation('startTime', 'startTime must be a valid ISO 8601 timestamp');
    const scope = tenantScope(principal);
    const write = {
      hosts: await this.slots.hostsOf(scope, dto.eventTypeId),
      field: 'startTime' as const,
      key: request.key,
      // A public hold's key is answered only to the visitor who sent it, through the same key: the namespace is the
      // organization and mode, and a publishable key is public, so anyone else sending its key and body gets 422.
      fingerprint: visitor
        ? fingerprintOf('POST /v1/public/holds', { body: dto, apiKeyId: visitor.apiKeyId, clientIp: visitor.clientIp })
        : fingerprintOf('POST /v1/holds', dto),
      requestId: request.requestId,
    };
    return this.slots.writeOnce(scope, write, async (locked) => ({
      status: 201,
      body: await this.place(scope, dto, start, locked, visitor),
    }));
  }

  /** The hold itself, under the `locked` hosts. */
  private async place(
    scope: TenantScope,
    dto: CreateHoldDto,
    start: number,
    locked: readonly string[],
    visitor: HoldVisitor | undefined,
  ): Promise<CreatedHold> {
    // The visitor's lock comes before the hosts'.
    if (visitor) await this.assertVisitorBelowLimit(scope, visitor);
    await this.slots.lock(scope, locked);
    // A routed hold (contract § 22) keeps to the response's hosts; the response stays unused until a booking takes it.
    const routing =
      dto.routingResponseId === undefined ? null : await this.routed.forBooking(scope, dto.routingResponseId, dto.eventTypeId);
    const decided = await this.slots.decide(scope, dto.eventTypeId, start, locked, {
      field: 'startTime',
      routedHosts: routing?.hostUserIds,
    });
    const { eventType, hostUserIds } = decided;
    if (visitor) await this.assertHostsHaveFreeHeldStarts(scope, hostUserIds, start, visitor);
    const now = this.clock.now();
    const token = visitor ? randomBase62(32) : undefined;
    const hold = {
      id: newId('hld'),
      organizationId: scope.organizationId,
      eventTypeId: eventType.id,
      livemode: scope.livemode,
      startsAt: new Date(start),
      endsAt: new Date(start + eventType.durationMinutes * MINUTE_MS),
      expiresAt: new Date(now.getTime() + (dto.ttlSeconds !== undefined ? dto.ttlSeconds * 1000 : eventType.holdMinutes * MINUTE_MS)),
      hostUserId: hostUserIds[0],
      bufferBeforeMinutes: eventType.bufferBeforeMinutes,
      bufferAfterMinutes: eventType.bufferAfterMinutes,
      tokenHash: token === undefined ? null : sha256(token),
      apiKeyId: visitor?.apiKeyId ?? null,
      clientIp: visitor?.clientIp ?? null,
      createdAt: now,
    } satisfies HoldRecord;
    await this.holdRows.clearExpired(scope, decided);
    // A hold of a seated start takes one of its seats (api-rules.md § Seats and series).
    await this.holdRows.insert(scope, hold, hostUserIds, eventType.seatsPerSlot !== null);
    return token === undefined ? { hold: holdView(hold) } : { hold: holdView(hold), holdToken: token };
  }

  async list(principal: Principal, query: ListHoldsQueryDto): Promise<HoldListResponse> {
    const page = { page: query.page, limit: query.limit };
    const filters = { eventTypeId: query.eventTypeId, hostedBy: seesAllBookings(principal) ? undefined : principal.userId };
    const [holds, total] = await this.holdRows.listLive(tenantScope(principal), filters, this.clock.now(), page);
    return { holds: holds.map(holdView), ...pageMeta(page, total) };
  }

  /** Releases a live hold (DELETE /holds/:id): 404 when there is none by that id that the caller may see. */
  async remove(principal: Principal, id: string): Promise<void> {
    const scope = tenantScope(principal);
    await this.tx.transaction(async () => {
      const taken = await this.liveHold(scope, id);
      if (!taken || !mayActOnBooking(principal, taken.hostUserIds)) throw AppError.notFound('Hold');
      await this.holdRows.remove(scope, id);
    });
  }

  /** Releases a publishable key's hold with its token (POST /public/holds/:id/release). */
  async release(principal: Principal, id: string, token: string): Promise<void> {
    const scope = tenantScope(principal);
    await this.tx.transaction(async () => {
      const hold = (await this.liveHold(scope, id))?.hold;
      if (!hold) throw AppError.notFound('Hold');
      if (hold.tokenHash === null || hold.tokenHash !== sha256(token)) throw AppError.unauthorized('Invalid holdToken for this hold');
      await this.holdRows.remove(scope, id);
    });
  }

  /**
   * Inside a booking's transaction, under its hosts' locks: the live hold it comes through, which the booking's
   * write then turns into the booking's own rows (BookingsRepository.insertFromHold). An expired or released hold
   * is ignored (null); one of another event type or start → 400 naming holdId; `token` undefined means a secret
   * key's booking (no token needed), otherwise it must open the hold (401).
   */
  async takeForBooking(
    scope: TenantScope,
    id: string,
    eventTypeId: string,
    start: number,
    token: string | null | undefined,
  ): Promise<TakenHold | null> {
    const taken = await this.liveHold(scope, id);
    if (!taken) return null;
    const { hold } = taken;
    if (hold.eventTypeId !== eventTypeId || hold.startsAt.getTime() !== start) {
      throw AppError.validation('holdId', 'The hold is for another event type or start time');
    }
    if (token !== undefined && (hold.tokenHash === null || token === null || hold.tokenHash !== sha256(token))) {
      throw AppError.unauthorized('Invalid holdToken for this hold');
    }
    return taken;
  }

  /** Deletes a hold taken by takeForBooking whose time goes back to the caller's own decision (a series). */
  async giveBack(scope: TenantScope, id: string): Promise<void> {
    await this.holdRows.remove(scope, id);
  }

  /** The hold with its hosts if it exists in the scope and has not expired, locked. */
  private async liveHold(scope: TenantScope, id: string): Promise<TakenHold | null> {
    if (!looksLikeId(id, 'hld')) return null;
    const found = await this.holdRows.findForUpdate(scope, id);
    return found && found.hold.expiresAt.getTime() > this.clock.now().getTime() ? found : null;
  }

  /**
   * Under the hosts' locks (taken by lockAndLoad, held by every writer of their rows), so two instances cannot both
   * place a publishable key's hold on a host's 11th start: the second reads the first's committed hold.
   */
  private async assertHostsHaveFreeHeldStarts(
    scope: TenantScope,
    hostUserIds: readonly string[],
    start: number,
    visitor: HoldVisitor,
  ): Promise<void> {
    const held = await this.holdRows.publicHeldStartsOf(scope, hostUserIds, new Date(start), this.clock.now(), visitor);
    if (held.visitor >= HELD_STARTS_PER_VISITOR_PER_HOST) {
      throw new AppError(
        ErrorCode.HOLD_LIMIT_REACHED,
        `A visitor holds at most ${HELD_STARTS_PER_VISITOR_PER_HOST} start times of one host at once; book or release one first`,
      );
    }
    if (held.all >= HELD_STARTS_PER_HOST) {
      throw new AppError(
        ErrorCode.HOLD_LIMIT_REACHED,
        `Booking pages already hold ${HELD_STARTS_PER_HOST} start times of this host; try again when one is booked or released`,
      );
    }
  }

  /** Under a per-visitor lock, so that concurrent holds of one visitor cannot pass the count together. */
  private async assertVisitorBelowLimit(scope: TenantScope, visitor: HoldVisitor): Promise<void> {
    await this.holdRows.lockVisitor(scope, visitor.apiKeyId, visitor.clientIp);
    const live = await this.holdRows.countLiveForVisitor(scope, visitor.apiKeyId, visitor.clientIp, this.clock.now());
    if (live >= HOLDS_PER_VISITOR) {
      throw new AppError(ErrorCode.HOLD_LIMIT_REACHED, `At most ${HOLDS_PER_VISITOR} holds at once per visitor; book or release one first`);
    }
  }
}
