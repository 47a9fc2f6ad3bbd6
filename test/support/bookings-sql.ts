import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { newId } from '@app/common';
import type { TestApp } from './app.js';

export interface SqlBooking {
  organizationId: string;
  eventTypeId: string;
  /** The first is the primary host; each gets a booking_hosts row (collective bookings occupy every host). */
  hostUserIds: string[];
  startsAt: string | Date;
  endsAt: string | Date;
  status?: 'confirmed' | 'pending' | 'cancelled';
  livemode?: boolean;
  bufferBeforeMinutes?: number;
  bufferAfterMinutes?: number;
  createdAt?: string | Date;
}

/**
 * Writes a booking straight into the bookings tables, as the Bookings module will: busy time for
 * availability tests before the booking endpoints exist. Returns the booking id.
 */
export async function insertBooking(t: TestApp, booking: SqlBooking): Promise<string> {
  const id = newId('bkg');
  const status = booking.status ?? 'confirmed';
  const livemode = booking.livemode ?? true;
  const startsAt = new Date(booking.startsAt);
  const endsAt = new Date(booking.endsAt);
  const createdAt = new Date(booking.createdAt ?? t.clock.now());
  await t.app.get(DataSource).transaction(async (manager) => {
    await manager.query(
      `INSERT INTO bookings (id, organization_id, event_type_id, livemode, status, starts_at, ends_at, host_user_id, attendee_email,
                             timezone, buffer_before_minutes, buffer_after_minutes, confirmation_token_hash, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'UTC', $10, $11, $12, $13, $13)`,
      [
        id,
        booking.organizationId,
        booking.eventTypeId,
        livemode,
        status,
        startsAt,
        endsAt,
        booking.hostUserIds[0],
        `attendee-${randomBytes(4).toString('hex')}@example.com`,
        booking.bufferBeforeMinutes ?? 0,
        booking.bufferAfterMinutes ?? 0,
        randomBytes(16).toString('hex'),
        createdAt,
      ],
    );
    for (const hostUserId of booking.hostUserIds) {
      await manager.query(
        `INSERT INTO booking_hosts (booking_id, host_user_id, organization_id, event_type_id, livemode, status, during, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, tstzrange($7, $8, '[)'), $9)`,
        [id, hostUserId, booking.organizationId, booking.eventTypeId, livemode, status, startsAt, endsAt, createdAt],
      );
    }
  });
  return id;
}

export async function setBookingStatus(t: TestApp, bookingId: string, status: 'confirmed' | 'pending' | 'cancelled'): Promise<void> {
  await t.app.get(DataSource).transaction(async (manager) => {
    await manager.query(`UPDATE bookings SET status = $2 WHERE id = $1`, [bookingId, status]);
    await manager.query(`UPDATE booking_hosts SET status = $2 WHERE booking_id = $1`, [bookingId, status]);
  });
}
