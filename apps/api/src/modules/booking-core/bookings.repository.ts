import { Injectable } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import type { BookingRecord } from './booking-record.js';
import { BookingHost } from './entities/booking-host.entity.js';
import { Booking, type BookingStatus, type CancelledBy } from './entities/booking.entity.js';
import { Parameters } from './sql-parameters.js';

/** A booking's columns, each with its value: the one list every insert of a booking row shares. */
const BOOKING_COLUMNS: readonly (readonly [string, (booking: BookingRecord, scope: TenantScope) => unknown])[] = [
  ['id', (booking) => booking.id],
  ['organization_id', (_, scope) => scope.organizationId],
  ['event_type_id', (booking) => booking.eventTypeId],
  ['livemode', (_, scope) => scope.livemode],
  ['status', (booking) => booking.status],
  ['starts_at', (booking) => booking.startsAt],
  ['ends_at', (booking) => booking.endsAt],
  ['host_user_id', (booking) => booking.hostUserId],
  ['attendee_email', (booking) => booking.attendeeEmail],
  ['attendee_first_name', (booking) => booking.attendeeFirstName],
  ['attendee_last_name', (booking) => booking.attendeeLastName],
  ['attendee_phone', (booking) => booking.attendeePhone],
  ['attendee_locale', (booking) => booking.attendeeLocale],
  ['timezone', (booking) => booking.timezone],
  ['location_type', (booking) => booking.locationType],
  ['location', (booking) => booking.location],
  ['notes', (booking) => booking.notes],
  ['metadata', (booking) => JSON.stringify(booking.metadata ?? {})],
  ['buffer_before_minutes', (booking) => booking.bufferBeforeMinutes],
  ['buffer_after_minutes', (booking) => booking.bufferAfterMinutes],
  ['confirmation_token_hash', (booking) => booking.confirmationTokenHash],
  ['cancelled_at', (booking) => booking.cancelledAt],
  ['cancellation_reason', (booking) => booking.cancellationReason],
  ['cancelled_by', (booking) => booking.cancelledBy],
  ['previous_booking_id', (booking) => booking.previousBookingId],
  ['rescheduled_to_booking_id', (booking) => booking.rescheduledToBookingId],
  ['created_at', (booking) => booking.createdAt],
  ['updated_at', (booking) => booking.updatedAt],
  ['answers', (booking) => JSON.stringify(booking.answers ?? [])],
  ['series_id', (booking) => booking.seriesId],
  ['occurrence', (booking) => booking.occurrence],
];

const INSERT_INTO_BOOKINGS = `INSERT INTO bookings (${BOOKING_COLUMNS.map(([column]) => column).join(', ')})`;

/** One booking's row for `VALUES`, its values added to `parameters`. */
function bookingRow(parameters: Parameters, scope: TenantScope, booking: BookingRecord): string {
  return `(${BOOKING_COLUMNS.map(([, value]) => parameters.add(value(booking, scope))).join(', ')})`;
}

/** The seat group of a seated start (booking_hosts.seat_group): its bookings and holds share one occupancy. */
export function seatGroupOf(eventTypeId: string, start: Date): string {
  return `seat:${eventTypeId}:${start.toISOString()}`;
}

@Injectable()
/**
 * The writes of the booking rows (`bookings` and each host's occupancy in `booking_hosts`); the reads are in
 * BookingReadsRepository. Every write joins the caller's transaction, under the hosts' locks (SlotDecisionService.lock).
 */
@Injectable()
export class BookingsRepository {
  constructor(private readonly tx: TransactionHost) {}

  /**
   * The booking and one row per host, in one statement: it runs while the hosts' locks are held.
   * `hostUserIds` in order, the primary first; the order is kept (position). `seated`: a seat of its start
   * (api-rules.md § Seats and series), sharing the start's occupancy with the other seats.
   */
  async insert(scope: TenantScope, booking: BookingRecord, hostUserIds: readonly string[], seated = false): Promise<void> {
    const parameters = new Parameters();
    const row = bookingRow(parameters, scope, booking);
    const hosts = parameters.add([...hostUserIds]);
    const seatGroup = parameters.add(seated ? seatGroupOf(booking.eventTypeId, booking.startsAt) : null);
    await this.tx.write(
      `WITH inserted AS (
         ${INSERT_INTO_BOOKINGS} VALUES ${row}
         RETURNING id, organization_id, event_type_id, livemode, status, starts_at, ends_at, created_at)
       INSERT INTO booking_hosts (booking_id, host_user_id, organization_id, event_type_id, livemode, status, during, created_at, position,
                                  seat_group)
       SELECT i.id, h.host_user_id, i.organization_id, i.event_type_id, i.livemode, i.status, tstzrange(i.starts_at, i.ends_at, '[)'),
              i.created_at, h.position, ${seatGroup}
         FROM inserted i CROSS JOIN unnest(${hosts}::text[]) WITH ORDINALITY AS h(host_user_id, position)`,
      parameters.values,
    );
  }

  /**
   * Several bookings with the same hosts (the occurrences of a series; never seated), and one row per booking
   * and host, in one statement.
   */
  async insertMany(scope: TenantScope, bookings: readonly BookingRecord[], hostUserIds: readonly string[]): Promise<void> {
    const parameters = new Parameters();
    const rows = bookings.map((booking) => bookingRow(parameters, scope, booking));
    const hosts = parameters.add([...hostUserIds]);
    await this.tx.write(
      `WITH inserted AS (
         ${INSERT_INTO_BOOKINGS} VALUES ${rows.join(', ')}
         RETURNING id, organization_id, event_type_id, livemode, status, starts_at, ends_at, created_at)
       INSERT INTO booking_hosts (booking_id, host_user_id, organization_id, event_type_id, livemode, status, during, created_at, position)
       SELECT i.id, h.host_user_id, i.organization_id, i.event_type_id, i.livemode, i.status, tstzrange(i.starts_at, i.ends_at, '[)'),
              i.created_at, h.position
         FROM inserted i CROSS JOIN unnest(${hosts}::text[]) WITH ORDINALITY AS h(host_user_id, position)`,
      parameters.values,
    );
  }

  /**
   * A booking taking its hold's place: the booking's row, and the hold's occupancy rows turned into the booking's
   * (same hosts, same time, never free in between, so nothing can slip into it), the hold gone; one statement.
   */
  async insertFromHold(scope: TenantScope, booking: BookingRecord, holdId: string): Promise<void> {
    const parameters = new Parameters();
    const row = bookingRow(parameters, scope, booking);
    const hold = parameters.add(holdId);
    const organization = parameters.add(scope.organizationId);
    await this.tx.write(
      `WITH inserted AS (
         ${INSERT_INTO_BOOKINGS} VALUES ${row}
         RETURNING id, status, created_at),
       occupancy AS (
         UPDATE booking_hosts bh SET booking_id = i.id, status = i.status, expires_at = NULL, created_at = i.created_at
           FROM inserted i
          WHERE bh.booking_id = ${hold} AND bh.organization_id = ${organization} AND bh.status = 'held')
       DELETE FROM holds WHERE id = ${hold} AND organization_id = ${organization}`,
      parameters.values,
    );
  }

  /**
   * Gives the booking other hosts (a reassignment): the primary on the booking's row, and its occupancy moved from the
   * old hosts' rows to the new ones' (same status, time and seat group), in one statement; the exclusion constraint then
   * refuses a new host who holds the time already. Hosts who stay keep their rows (only their position changes): a row
   * deleted and inserted again in one statement could meet its own old version in the constraint (the order of a
   * statement's parts is not defined), which a collective booking's other hosts did.
   */
  async replaceHosts(scope: TenantScope, id: string, hostUserIds: readonly string[], at: Date): Promise<void> {
    await this.tx.write(
      `WITH updated AS (
         UPDATE bookings SET host_user_id = $4, updated_at = $5
          WHERE id = $1 AND organization_id = $2 AND livemode = $3
         RETURNING id),
       source AS (
         SELECT * FROM booking_hosts WHERE booking_id = (SELECT id FROM updated) AND organization_id = $2 LIMIT 1),
       added AS (
         INSERT INTO booking_hosts (booking_id, host_user_id, organization_id, event_type_id, livemode, status, during, created_at, position,
                                    seat_group, expires_at)
         SELECT s.booking_id, h.host_user_id, s.organization_id, s.event_type_id, s.livemode, s.status, s.during, $5, h.position,
                s.seat_group, s.expires_at
           FROM source s CROSS JOIN unnest($6::text[]) WITH ORDINALITY AS h(host_user_id, position)
          WHERE NOT EXISTS (SELECT 1 FROM booking_hosts b WHERE b.booking_id = s.booking_id AND b.organization_id = $2
                                                           AND b.host_user_id = h.host_user_id)
         RETURNING booking_id),
       removed AS (
         DELETE FROM booking_hosts WHERE booking_id = (SELECT id FROM updated) AND organization_id = $2 AND NOT (host_user_id = ANY($6::text[]))
         RETURNING booking_id)
       UPDATE booking_hosts b SET position = h.position
         FROM unnest($6::text[]) WITH ORDINALITY AS h(host_user_id, position)
        WHERE b.booking_id = (SELECT id FROM updated) AND b.organization_id = $2 AND b.host_user_id = h.host_user_id`,
      [id, scope.organizationId, scope.livemode, hostUserIds[0], at, [...hostUserIds]],
    );
  }

  /** Changes a booking's status and its host rows together, so the exclusion constraint sees it at once. */
  async setStatus(
    scope: TenantScope,
    id: string,
    status: BookingStatus,
    changes: Partial<Pick<Booking, 'cancelledAt' | 'cancellationReason' | 'rescheduledToBookingId' | 'updatedAt'>> & {
      cancelledBy?: CancelledBy | null;
    },
  ): Promise<void> {
    await this.tx.transactional.update(
      Booking,
      { id, organizationId: scope.organizationId, livemode: scope.livemode },
      { status, ...changes },
    );
    await this.tx.transactional.update(BookingHost, { bookingId: id, organizationId: scope.organizationId }, { status });
  }

  /**
   * Cancels bookings (one, or a series' occurrence and the following ones) and their host rows, two writes in all
   * whatever their number; inside `batched()` they leave with the rest of the transaction's writes.
   */
  async cancelMany(
    scope: TenantScope,
    ids: readonly string[],
    changes: Pick<Booking, 'cancelledAt' | 'cancellationReason' | 'updatedAt'> & { cancelledBy: CancelledBy },
  ): Promise<void> {
    const parameters = new Parameters();
    await this.tx.write(
      `UPDATE bookings SET status = 'cancelled', cancelled_at = ${parameters.add(changes.cancelledAt)},
              cancellation_reason = ${parameters.add(changes.cancellationReason)}, cancelled_by = ${parameters.add(changes.cancelledBy)},
              updated_at = ${parameters.add(changes.updatedAt)}
        WHERE organization_id = ${parameters.add(scope.organizationId)} AND livemode = ${parameters.add(scope.livemode)}
          AND id = ANY(${parameters.add([...ids])}::text[])`,
      parameters.values,
    );
    await this.tx.write(`UPDATE booking_hosts SET status = 'cancelled' WHERE organization_id = $1 AND booking_id = ANY($2::text[])`, [
      scope.organizationId,
      [...ids],
    ]);
  }

  /**
   * Erasure (contract § 18): the attendee's bookings of this scope, found by email whatever its case, keep their ids,
   * times, statuses and hosts; the person goes (name, email, phone, zone, notes, answers, the reason a cancellation
   * gave: a reschedule's fixed `rescheduled` stays), and so does each `metadata` value that contains the erased email or
   * the booking's attendee name (first, last or both; case-insensitive): its key stays with the value `[erased]`.
   * Returns their ids. Rows already erased are not matched again, so a repeat erases nothing.
   *
   * The rows are locked in (starts_at, id) order, the order a series' "cancel following" locks its later occurrences
   * in: the two never wait for each other in a cycle (a deadlock, 40P01).
   */
  async eraseAttendee(scope: TenantScope, email: string, erased: { name: string; email: string }, at: Date): Promise<string[]> {
    // An UPDATE … RETURNING answers [rows, count] through TypeORM's pg driver. The SET expressions read the row as it was.
    const [rows]: [{ id: string }[], number] = await this.tx.transactional.query(
      `WITH locked AS (
         SELECT id FROM bookings
          WHERE organization_id = $1 AND lower(attendee_email) = lower($2) AND attendee_email <> $4 AND livemode = $6
          ORDER BY starts_at, id FOR UPDATE)
       UPDATE bookings b SET attendee_first_name = $3, attendee_last_name = NULL, attendee_email = $4, attendee_phone = NULL,
              attendee_locale = NULL, timezone = NULL, notes = NULL, answers = '[]', updated_at = $5,
              cancellation_reason = CASE WHEN b.rescheduled_to_booking_id IS NOT NULL AND b.cancellation_reason = 'rescheduled'
                                         THEN b.cancellation_reason END,
              metadata = (SELECT COALESCE(jsonb_object_agg(m.key, CASE WHEN EXISTS (
                                   SELECT 1 FROM unnest(ARRAY[b.attendee_email, $2, b.attendee_first_name, b.attendee_last_name,
                                                              concat_ws(' ', b.attendee_first_name, b.attendee_last_name)]) AS p(part)
                                    WHERE length(btrim(p.part)) > 1 AND strpos(lower(m.value #>> '{}'), lower(btrim(p.part))) > 0)
                                 THEN to_jsonb('[erased]'::text) ELSE m.value END), '{}'::jsonb)
                            FROM jsonb_each(b.metadata) AS m)
         FROM locked WHERE b.id = locked.id
       RETURNING b.id`,
      [scope.organizationId, email, erased.name, erased.email, at, scope.livemode],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Erasure (contract § 18) of an address given as an answer: the scope's other bookings with an email-type answer equal
   * to `email` (case ignored; a routed booking's answers are prefilled from its response) keep their attendee, and that
   * answer's value becomes `erased`. Returns their ids; locked in (starts_at, id) order as eraseAttendee does. Found
   * through bookings_answer_emails_idx (booking_answer_emails: the answers' email values in lower case), not by reading
   * every booking of the organization.
   */
  async eraseEmailAnswers(scope: TenantScope, email: string, erased: string, at: Date): Promise<string[]> {
    const [rows]: [{ id: string }[], number] = await this.tx.transactional.query(
      `WITH locked AS (
         SELECT id FROM bookings
          WHERE organization_id = $1 AND livemode = $4
            AND answers <> '[]'::jsonb AND booking_answer_emails(answers) @> ARRAY[lower($2)]
          ORDER BY starts_at, id FOR UPDATE)
       UPDATE bookings b SET updated_at = $5,
              answers = (SELECT jsonb_agg(CASE WHEN e.answer->>'type' = 'email' AND lower(e.answer->>'value') = lower($2)
                                               THEN jsonb_set(e.answer, '{value}', to_jsonb($3::text)) ELSE e.answer END ORDER BY e.n)
                           FROM jsonb_array_elements(b.answers) WITH ORDINALITY AS e(answer, n))
         FROM locked WHERE b.id = locked.id
       RETURNING b.id`,
      [scope.organizationId, email, erased, scope.livemode, at],
    );
    return rows.map((row) => row.id);
  }

  /** Sets one no-show mark; says whether it changed (a mark set twice is one change). */
  async markNoShow(scope: TenantScope, id: string, party: 'attendee' | 'host', noShow: boolean, at: Date): Promise<boolean> {
    const column = party === 'attendee' ? 'no_show_attendee' : 'no_show_host';
    const parameters = new Parameters();
    const mark = parameters.add(noShow);
    const [, changed]: [unknown[], number] = await this.tx.transactional.query(
      `UPDATE bookings SET ${column} = ${mark}, updated_at = ${parameters.add(at)}
        WHERE id = ${parameters.add(id)} AND organization_id = ${parameters.add(scope.organizationId)}
          AND livemode = ${parameters.add(scope.livemode)} AND ${column} IS DISTINCT FROM ${mark}`,
      parameters.values,
    );
    return changed > 0;
  }
}
