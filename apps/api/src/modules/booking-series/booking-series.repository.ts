import { Injectable } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { BookingSeries } from './entities/booking-series.entity.js';

/** Recurring series' own rows (booking_series); their occurrences are bookings. */
@Injectable()
export class BookingSeriesRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** Erasure: the series keep their rule and occurrences, not the attendee's zone. */
  async forgetTimezones(scope: TenantScope, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.tx.transactional.query(
      `UPDATE booking_series SET timezone = NULL WHERE organization_id = $1 AND livemode = $2 AND id = ANY($3::text[])`,
      [scope.organizationId, scope.livemode, [...ids]],
    );
  }

  /** A recurring series' own row (its occurrences are inserted beside it, in the same batch). */
  async insertSeries(scope: TenantScope, series: BookingSeries): Promise<void> {
    await this.tx.write(
      `INSERT INTO booking_series (id, organization_id, livemode, event_type_id, frequency, interval, count, token_hash, timezone, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        series.id,
        scope.organizationId,
        scope.livemode,
        series.eventTypeId,
        series.frequency,
        series.interval,
        series.count,
        series.tokenHash,
        series.timezone,
        series.createdAt,
      ],
    );
  }

  async findSeries(scope: TenantScope, id: string): Promise<BookingSeries | null> {
    return this.tx.reads.findOne(BookingSeries, { where: { id, organizationId: scope.organizationId, livemode: scope.livemode } });
  }
}
