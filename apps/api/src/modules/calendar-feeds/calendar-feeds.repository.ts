import { Injectable } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { BookingFeed } from './entities/booking-feed.entity.js';

/** Members' outbound calendar feeds (booking_feeds). */
@Injectable()
export class CalendarFeedsRepository {
  constructor(private readonly tx: TransactionHost) {}

  async findFeed(scope: TenantScope, memberId: string): Promise<BookingFeed | null> {
    return this.tx.reads.findOne(BookingFeed, { where: { organizationId: scope.organizationId, memberId } });
  }

  /** Creates the member's feed or moves it to a new version (token), in one statement. */
  async saveFeed(scope: TenantScope, feed: BookingFeed): Promise<void> {
    await this.tx.transactional.query(
      `INSERT INTO booking_feeds (member_id, organization_id, user_id, version, token_hash, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6)
       ON CONFLICT (member_id) DO UPDATE SET version = EXCLUDED.version, token_hash = EXCLUDED.token_hash, updated_at = EXCLUDED.updated_at`,
      [feed.memberId, scope.organizationId, feed.userId, feed.version, feed.tokenHash, feed.updatedAt],
    );
  }
}
