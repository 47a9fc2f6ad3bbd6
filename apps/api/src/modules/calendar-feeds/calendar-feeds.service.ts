import { createHmac } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@app/database';
import ical, { ICalEventStatus } from 'ical-generator';
import { AppConfig, AppError, Clock, ensureEncryptionKey, type Principal, sha256, tenantScope } from '@app/common';
import { GlobalLookups } from '../global-lookups/index.js';
import { EventTypesService } from '../event-types/index.js';
import { attendeeNameOf } from '../booking-effects/index.js';
import { BookingRows } from '../booking-core/index.js';
import { CalendarFeedsRepository } from './calendar-feeds.repository.js';

const DAY_MS = 86_400_000;
export const FEED_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface RenderedFeed {
  ics: string;
  etag: string;
}

/** The outbound feed of api-rules.md § Calendars: a member subscribes to the bookings it hosts from any calendar app. */
@Injectable()
export class CalendarFeedsService {
  private readonly key: Buffer;

  constructor(
    private readonly repository: CalendarFeedsRepository,
    private readonly rows: BookingRows,
    private readonly lookups: GlobalLookups,
    private readonly eventTypes: EventTypesService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly tx: TransactionHost,
  ) {
    this.key = ensureEncryptionKey(config);
  }

  /** The member's feed URL, creating the feed on first use. */
  async url(principal: Principal): Promise<{ url: string }> {
    const scope = tenantScope(principal);
    const memberId = this.memberOf(principal);
    const existing = await this.repository.findFeed(scope, memberId);
    const version = existing?.version ?? 1;
    if (!existing) await this.save(principal, version);
    return { url: this.urlOf(memberId, version) };
  }

  /** A new token; the old URL answers 404 from now on. */
  async rotate(principal: Principal): Promise<{ url: string }> {
    const memberId = this.memberOf(principal);
    const existing = await this.repository.findFeed(tenantScope(principal), memberId);
    const version = (existing?.version ?? 0) + 1;
    await this.save(principal, version);
    return { url: this.urlOf(memberId, version) };
  }

  /** The feed for a token, or null when no feed has it (unknown or rotated away). */
  async render(token: string): Promise<RenderedFeed | null> {
    if (!FEED_TOKEN_PATTERN.test(token)) return null;
    const feed = await this.lookups.bookingFeedByTokenHash(sha256(token));
    if (!feed) return null;
    const now = this.clock.now().getTime();
    const bookings = await this.rows.hostedBy(feed.scope, feed.userId, new Date(now - 30 * DAY_MS), new Date(now + 365 * DAY_MS));
    const titles = await this.eventTypes.summaries(
      feed.scope,
      bookings.map((b) => b.eventTypeId),
    );
    const calendar = ical({ prodId: { company: 'scheduling-api', product: 'feed' }, name: 'Bookings' });
    for (const booking of bookings) {
      const attendee = attendeeNameOf(booking) ?? booking.attendeeEmail;
      calendar.createEvent({
        id: booking.id,
        start: booking.startsAt,
        end: booking.endsAt,
        stamp: booking.updatedAt,
        summary: `${titles.get(booking.eventTypeId)?.title ?? 'Booking'} with ${attendee}`,
        location: booking.location ?? undefined,
        status: booking.status === 'confirmed' ? ICalEventStatus.CONFIRMED : ICalEventStatus.TENTATIVE,
      });
    }
    const ics = calendar.toString();
    return { ics, etag: `"${sha256(ics).slice(0, 32)}"` };
  }

  private memberOf(principal: Principal): string {
    if (!principal.memberId) throw AppError.unauthorized('The session has ended');
    return principal.memberId;
  }

  private async save(principal: Principal, version: number): Promise<void> {
    const memberId = this.memberOf(principal);
    const feed = {
      memberId,
      organizationId: principal.organizationId,
      userId: principal.userId,
      version,
      tokenHash: sha256(this.tokenOf(memberId, version)),
      createdAt: this.clock.now(),
      updatedAt: this.clock.now(),
    };
    await this.tx.transaction(() => this.repository.saveFeed(tenantScope(principal), feed));
  }

  /** 256 bits that only this service can compute: HMAC of the member and version under ENCRYPTION_KEY. */
  private tokenOf(memberId: string, version: number): string {
    return createHmac('sha256', this.key).update(`booking-feed:${memberId}:${version}`).digest('base64url');
  }

  private urlOf(memberId: string, version: number): string {
    return `${this.config.publicUrl}/v1/calendar-feeds/${this.tokenOf(memberId, version)}.ics`;
  }
}
