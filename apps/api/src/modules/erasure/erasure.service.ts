import { Injectable } from '@nestjs/common';
import { type Principal, tenantScope, type TenantScope, modesOf } from '@app/common';
import { TransactionHost } from '@app/database';
import { ApiKeysService } from '../api-keys/index.js';
import { AuditTrail } from '../audit/index.js';
import { BookingRows, HoldRows } from '../booking-core/index.js';
import { BookingEffectsService } from '../booking-effects/index.js';
import { BookingSeriesService } from '../booking-series/index.js';
import { VisitorBookingsService } from '../bookings/index.js';
import { IdempotencyService } from '../idempotency/index.js';
import { MailOutbox } from '../mail/index.js';
import { DomainEvents } from '../outbox/index.js';
import { RoutingFormsService } from '../routing-forms/index.js';
import type { ErasedCountsView } from './dto/erasure.dto.js';

/** What one erasure did: the counts the answer (and the `attendee.erased` audit entry) carry, and the bookings, by mode. */
export interface AttendeeErasure {
  counts: ErasedCountsView;
  /** The erased bookings' ids per mode (live first); what each mode's `attendee.erased` webhook names. */
  bookingIds: { livemode: boolean; ids: string[] }[];
}

/**
 * Erasing an attendee (contract § 18, the right to be forgotten): every booking of the organization, both modes, whose
 * attendee email matches keeps its ids, times, statuses and hosts and loses the person; every copy of the person goes
 * with it, each deleted by the module that owns it, in one transaction for the organization:
 * - bookings (name, email, phone, zone, notes, answers) and their series' zone: booking-core, booking-series; other
 *   people's bookings keep their attendee and lose the email-type answers that give the address (with the copies below);
 * - the client addresses the bookings were made from, and the holds placed from them: bookings (visitor rows), booking-core (holds);
 * - mails about the bookings, sent or not, and older mail to the address: mail;
 * - the bookings' domain events and their webhook deliveries with attempts: outbox, and webhooks through its listener;
 * - the cancellation reasons and the `metadata` values naming the person: booking-core (with the bookings);
 * - stored Idempotency-Key responses naming the bookings (a key that made one keeps its record, without the body, and
 *   replays the booking as it now stands): idempotency;
 * - the client address and user agent of the audit entries the attendee's own requests wrote: audit;
 * - write-back bodies still queued (replaced by the erased booking) and finished ones' bodies: calendars, via booking-effects;
 * - reminders: their rows hold no person; a reminder that goes later mails no erased address (booking-effects) and its
 *   event shows the erased booking.
 * The availability cache holds slots, host ids and versions only, never an attendee, so it has nothing to erase (and
 * the bookings' occupancy does not change, so no version moves). The request log writes paths with ids, never bodies.
 *
 * Everything but the bookings is found by the erased bookings' ids, never by the address, so a booking made for the same
 * address while this runs (on any instance) is erased whole, when a pass of BookingRows.eraseAttendee sees it, or left
 * whole, made after the erasure: never half.
 */
@Injectable()
export class ErasureService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly rows: BookingRows,
    private readonly holdRows: HoldRows,
    private readonly series: BookingSeriesService,
    private readonly visitors: VisitorBookingsService,
    private readonly effects: BookingEffectsService,
    private readonly idempotency: IdempotencyService,
    private readonly mail: MailOutbox,
    private readonly events: DomainEvents,
    private readonly audit: AuditTrail,
    private readonly apiKeys: ApiKeysService,
    private readonly routingForms: RoutingFormsService,
  ) {}

  async eraseAttendee(principal: Principal, email: string): Promise<AttendeeErasure> {
    return this.tx.transaction(async () => {
      const counts: ErasedCountsView = { bookings: 0, holds: 0, mails: 0, deliveries: 0 };
      const bookingIds: AttendeeErasure['bookingIds'] = [];
      for (const scope of modesOf(tenantScope(principal))) {
        const ids = await this.eraseInMode(scope, email, counts);
        bookingIds.push({ livemode: scope.livemode, ids });
      }
      // The request's `attendee.erased` entry, written as this transaction commits: the counts, never the email.
      this.audit.describe({ details: { ...counts } });
      return { counts, bookingIds };
    });
  }

  private async eraseInMode(scope: TenantScope, email: string, counts: ErasedCountsView): Promise<string[]> {
    const erased = (await this.rows.eraseAttendee(scope, email)).map(({ booking }) => booking);
    const ids = erased.map((booking) => booking.id);
    counts.bookings += ids.length;
    // Other people's bookings that give the address as an answer (a routed booking's answers come from its response):
    // they keep their attendee; the answer, and every copy of the booking that carries it, goes as the erased ones' do.
    const answered = (await this.rows.eraseEmailAnswers(scope, email)).map(({ booking }) => booking);
    const about = [...ids, ...answered.map((booking) => booking.id)];
    // Mail has no mode: the first pass also takes older mail to the address that names no booking.
    counts.mails += await this.mail.eraseAbout(scope, about, email);
    // Routing responses name no booking until one is made from them: found by their email-type answers (with their
    // `routing_form.submitted` events and deliveries, which carry the answers).
    const routed = await this.routingForms.eraseAnswersOf(scope, email);
    counts.deliveries += routed.deliveries;
    if (about.length === 0 && routed.responseIds.length === 0) return about;
    if (ids.length > 0) {
      await this.series.attendeeErased(
        scope,
        erased.flatMap((booking) => (booking.seriesId ? [booking.seriesId] : [])),
      );
      const visitors = await this.visitors.forget(scope, ids);
      counts.holds += await this.holdRows.forgetClientAddresses(scope, visitors);
    }
    if (about.length > 0) {
      counts.deliveries += await this.events.eraseAboutBookings(scope, about);
      await this.idempotency.eraseNaming(scope, about);
    }
    // The audit entries the attendee's own requests wrote (its token, its browser's publishable key: its bookings and
    // its routing responses) keep no address.
    await this.audit.forgetAttendeeClients(scope, [...ids, ...routed.responseIds], await this.apiKeys.publishableIds(scope));
    if (about.length > 0) await this.effects.attendeeErased(scope, [...erased, ...answered]);
    // So that customers erase their own copies: the bookings (the attendee's and those that named it in an answer), and
    // the routing responses when any were erased.
    const data = routed.responseIds.length > 0 ? { bookingIds: about, routingResponseIds: routed.responseIds } : { bookingIds: about };
    await this.events.record(scope, { type: 'attendee.erased', data });
    return about;
  }
}
