import { Injectable } from '@nestjs/common';
import { AppConfig, Clock, LIMIT_WINDOW_MS, type TenantScope, admitWithinHour } from '@app/common';
import { PeriodicJobs, RETENTION_INTERVAL_MS } from '../../jobs/index.js';
import { VisitorBookingsRepository } from './visitor-bookings.repository.js';

/** Who books through a publishable key: the key and the client address (an IPv4 address or an IPv6 /64). */
export interface BookingVisitor {
  apiKeyId: string;
  clientAddress: string;
}

/**
 * At most PUBLIC_BOOKINGS_PER_VISITOR_PER_HOUR bookings per publishable key and client address in any hour
 * (api-rules.md § Browser booking): each public booking mails an address the visitor chooses. Counted in the
 * database inside the booking's own transaction, under a lock of the visitor's, so concurrent bookings on any
 * number of instances cannot pass the count together, and a booking that fails counts for nothing.
 */
@Injectable()
export class VisitorBookingsService {
  constructor(
    private readonly repository: VisitorBookingsRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    jobs: PeriodicJobs,
  ) {
    jobs.register('visitor-bookings-cleanup', RETENTION_INTERVAL_MS, () =>
      this.repository.deleteBefore(new Date(this.clock.now().getTime() - LIMIT_WINDOW_MS)),
    );
  }

  /**
   * In the booking's transaction, before any host's lock (visitor locks always come first): 429 RATE_LIMITED with
   * Retry-After (seconds until the oldest counted booking leaves the hour) when the visitor is at the limit.
   */
  async admit(scope: TenantScope, visitor: BookingVisitor): Promise<void> {
    const limit = this.config.publicBookingsPerVisitorPerHour;
    const now = this.clock.now().getTime();
    await this.repository.lockVisitor(scope, visitor.apiKeyId, visitor.clientAddress);
    const made = await this.repository.madeSince(scope, visitor.apiKeyId, visitor.clientAddress, new Date(now - LIMIT_WINDOW_MS), limit);
    admitWithinHour(made, limit, now, `At most ${limit} bookings an hour from one visitor through this key`);
  }

  /**
   * Erasure (contract § 18): these bookings no longer say which client address made them; returns the visitors they
   * named, whose holds then keep no address either (HoldRows.forgetClientAddresses).
   */
  forget(scope: TenantScope, bookingIds: readonly string[]): Promise<BookingVisitor[]> {
    return this.repository.deleteOf(scope, bookingIds);
  }

  /** Counts the booking just made (written with its rows). */
  record(scope: TenantScope, visitor: BookingVisitor, bookingId: string): Promise<void> {
    return this.repository.insert(scope, { bookingId, ...visitor, createdAt: this.clock.now() });
  }
}
