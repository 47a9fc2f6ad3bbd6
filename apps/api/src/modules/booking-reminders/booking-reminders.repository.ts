import { Injectable } from '@nestjs/common';
import { AppConfig, type TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { lockedReminderListSql } from '../event-types/index.js';

/** A booking's reminder as `GET /bookings/:id` shows it. */
export interface BookingReminderState {
  minutesBefore: number;
  dueAt: Date;
  sentAt: Date | null;
}

export const BOOKING_REMINDERS_CHANNEL = 'booking_reminders';

/**
 * Wakes the senders (on commit) when a row of `inserted` is due before their next look anyway: they sleep until the
 * next due reminder they know of, or REMINDERS_POLL_MS at most, so a row due later is found by a look.
 */
function notifyIfSoon(now: string, pollMs: string): string {
  return `SELECT pg_notify('${BOOKING_REMINDERS_CHANNEL}', '') FROM inserted
    WHERE due_at <= ${now}::timestamptz + make_interval(secs => ${pollMs}::double precision / 1000) LIMIT 1`;
}

/** `starts_at` minus the reminder's minutes. */
const DUE_AT_SQL = `b.starts_at - make_interval(mins => r.minutes_before)`;

/**
 * The due reminders of bookings (api-rules.md § Reminders), written and moved in the transactions that change the
 * bookings; the sender's side is ReminderQueueRepository. Writes go through `tx.write`, so inside `batched()` they
 * leave with the booking's other writes.
 */
@Injectable()
export class BookingRemindersRepository {
  /** How far ahead a new row wakes the senders: their longest sleep. */
  private readonly soonMs: number;

  constructor(
    private readonly tx: TransactionHost,
    config: AppConfig,
  ) {
    this.soonMs = config.remindersPollMs;
  }

  /**
   * One row per reminder of the event type's list (read and held FOR KEY SHARE in this statement, lockedReminderListSql)
   * whose time is still ahead of `now`, for those of `bookingIds` that are confirmed; rows already there stay. The list's
   * row is locked whatever the bookings and the list hold (the `held` column reads it in full).
   */
  async scheduleFor(scope: TenantScope, eventTypeId: string, bookingIds: readonly string[], now: Date): Promise<void> {
    if (bookingIds.length === 0) return;
    await this.tx.write(
      `WITH list AS (${lockedReminderListSql('$1', '$6')}),
       inserted AS (
         INSERT INTO booking_reminders (organization_id, booking_id, minutes_before, due_at)
         SELECT b.organization_id, b.id, r.minutes_before, ${DUE_AT_SQL}
           FROM bookings b CROSS JOIN list
                CROSS JOIN LATERAL (SELECT (e->>'minutesBefore')::integer AS minutes_before FROM jsonb_array_elements(list.reminders) AS e) r
          WHERE b.organization_id = $1 AND b.livemode = $3 AND b.id = ANY($2::text[]) AND b.status = 'confirmed'
            AND ${DUE_AT_SQL} > $4
         ON CONFLICT DO NOTHING
         RETURNING due_at
       )
       SELECT (SELECT count(*) FROM list) AS held, (${notifyIfSoon('$4', '$5')}) AS notified`,
      [scope.organizationId, [...bookingIds], scope.livemode, now, this.soonMs, eventTypeId],
    );
  }

  /** The bookings are no longer confirmed (cancelled, declined, rescheduled away): their unsent reminders go. */
  async dropUnsent(scope: TenantScope, bookingIds: readonly string[]): Promise<void> {
    if (bookingIds.length === 0) return;
    await this.tx.write(`DELETE FROM booking_reminders WHERE organization_id = $1 AND booking_id = ANY($2::text[]) AND sent_at IS NULL`, [
      scope.organizationId,
      [...bookingIds],
    ]);
  }

  /**
   * The event type's reminders are now `minutesBefore` (in the transaction that changed them, its row locked): its
   * bookings' unsent rows of removed reminders go; confirmed bookings get rows of added ones whose time is still
   * ahead. Both modes: event types are shared by them.
   */
  async followEventType(scope: TenantScope, eventTypeId: string, minutesBefore: readonly number[], now: Date): Promise<void> {
    await this.tx.transactional.query(
      `DELETE FROM booking_reminders r USING bookings b
        WHERE r.organization_id = $1 AND b.organization_id = $1 AND b.id = r.booking_id AND b.event_type_id = $2
          AND r.sent_at IS NULL AND NOT r.missed AND r.minutes_before <> ALL($3::integer[])`,
      [scope.organizationId, eventTypeId, [...minutesBefore]],
    );
    if (minutesBefore.length === 0) return;
    await this.tx.transactional.query(
      `WITH inserted AS (
         INSERT INTO booking_reminders (organization_id, booking_id, minutes_before, due_at)
         SELECT b.organization_id, b.id, r.minutes_before, ${DUE_AT_SQL}
           FROM bookings b CROSS JOIN unnest($3::integer[]) AS r(minutes_before)
          WHERE b.organization_id = $1 AND b.event_type_id = $2 AND b.status = 'confirmed' AND ${DUE_AT_SQL} > $4
         ON CONFLICT DO NOTHING
         RETURNING due_at
       )
       ${notifyIfSoon('$4', '$5')}`,
      [scope.organizationId, eventTypeId, [...minutesBefore], now, this.soonMs],
    );
  }

  /** The booking's reminders, earliest due first. */
  async of(scope: TenantScope, bookingId: string): Promise<BookingReminderState[]> {
    const rows: { minutes_before: number; due_at: Date; sent_at: Date | null }[] = await this.tx.reads.query(
      `SELECT minutes_before, due_at, sent_at FROM booking_reminders
        WHERE organization_id = $1 AND booking_id = $2 ORDER BY due_at, minutes_before`,
      [scope.organizationId, bookingId],
    );
    return rows.map((row) => ({ minutesBefore: row.minutes_before, dueAt: row.due_at, sentAt: row.sent_at }));
  }
}
