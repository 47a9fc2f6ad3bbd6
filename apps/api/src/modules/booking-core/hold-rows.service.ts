import { Injectable } from '@nestjs/common';
import { Clock, type PageRequest, type TenantScope } from '@app/common';
import { PeriodicJobs } from '../../jobs/index.js';
import type { HoldRecord } from './booking-record.js';
import { seatGroupOf } from './bookings.repository.js';
import { HoldsRepository } from './holds.repository.js';

/** Well within the hour a hold may outlive its end (contract § 18). */
const HOLD_SWEEP_INTERVAL_MS = 10 * 60 * 1000;
const SWEEP_BATCH = 1000;

/**
 * A hold's rows (`holds`, and its occupancy: `booking_hosts` rows with status `held`). They are stored here, beside the
 * bookings', because a hold is decided and stored exactly like a booking and the statements that turn a hold into a
 * booking or clear expired ones are one statement over both. Every write runs under the hosts' locks.
 */
@Injectable()
export class HoldRows {
  constructor(
    private readonly repository: HoldsRepository,
    private readonly clock: Clock,
    jobs: PeriodicJobs,
  ) {
    // Keeping only what is needed (contract § 18): a hold and its client address go within an hour after it ends.
    jobs.register('hold-cleanup', HOLD_SWEEP_INTERVAL_MS, () => this.deleteEnded());
  }

  /** Holds that have expired (on the Clock), with their occupancy and client address; returns how many holds went. */
  async deleteEnded(): Promise<number> {
    let total = 0;
    for (;;) {
      const count = await this.repository.deleteEnded(this.clock.now(), SWEEP_BATCH);
      total += count;
      if (count < SWEEP_BATCH) return total;
    }
  }

  /** Erasure: the holds these visitors placed keep no client address; returns how many changed. */
  forgetClientAddresses(scope: TenantScope, visitors: readonly { apiKeyId: string; clientAddress: string }[]): Promise<number> {
    return this.repository.forgetClientAddresses(scope, visitors);
  }

  /**
   * Before inserting rows for a decision's hosts: their expired holds go (they block nothing any more, but the
   * exclusion constraint cannot tell), in the same batch, under the same locks; only when the decision saw one.
   */
  async clearExpired(scope: TenantScope, decision: { hostUserIds: readonly string[]; expiredHolds: boolean }): Promise<void> {
    if (decision.expiredHolds) await this.repository.clearExpired(scope, decision.hostUserIds, this.clock.now());
  }

  /** The hold and one occupancy row per host; `seated`: one seat of its start (api-rules.md § Seats and series). */
  insert(scope: TenantScope, hold: HoldRecord, hostUserIds: readonly string[], seated: boolean): Promise<void> {
    return this.repository.insert(scope, hold, hostUserIds, seated ? seatGroupOf(hold.eventTypeId, hold.startsAt) : null);
  }

  /** Deletes the hold and its occupancy (released, or given back to a series' own decision). */
  remove(scope: TenantScope, id: string): Promise<void> {
    return this.repository.remove(scope, id);
  }

  /** The hold and its hosts, the primary first, locked until the transaction ends. */
  findForUpdate(scope: TenantScope, id: string): Promise<{ hold: HoldRecord; hostUserIds: string[] } | null> {
    return this.repository.findForUpdate(scope, id);
  }

  /** Holds live at `now` placed by one publishable key from one client address. */
  countLiveForVisitor(scope: TenantScope, apiKeyId: string, clientIp: string, now: Date): Promise<number> {
    return this.repository.countLiveForVisitor(scope, apiKeyId, clientIp, now);
  }

  /**
   * The most distinct starts other than `start` that publishable keys' live holds cover of any one of these hosts
   * (`all`), and that `visitor`'s (one key and client address) cover of any one of them (`visitor`).
   */
  publicHeldStartsOf(
    scope: TenantScope,
    hostUserIds: readonly string[],
    start: Date,
    now: Date,
    visitor: { apiKeyId: string; clientIp: string },
  ): Promise<{ all: number; visitor: number }> {
    return this.repository.publicHeldStartsOf(scope, hostUserIds, start, now, visitor);
  }

  /** Serializes hold placement per key and client address until the transaction ends. */
  lockVisitor(scope: TenantScope, apiKeyId: string, clientIp: string): Promise<void> {
    return this.repository.lockVisitor(scope, apiKeyId, clientIp);
  }

  /** Live holds, soonest first; `hostedBy` limits them to one host's. */
  listLive(
    scope: TenantScope,
    filters: { eventTypeId?: string; hostedBy?: string },
    now: Date,
    page: PageRequest,
  ): Promise<[HoldRecord[], number]> {
    return this.repository.listLive(scope, filters, now, page);
  }
}
