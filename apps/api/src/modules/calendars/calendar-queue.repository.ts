import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@app/database';
import { type Claim, LeaseQueue } from '../../jobs/index.js';
import { CalendarConnection } from './entities/calendar-connection.entity.js';

/** A connection leased for a sync, with the claim its release names. */
export type ClaimedConnection = CalendarConnection & { claim: Claim };

/**
 * The sync queue of the calendars module, across organizations (the jobs framework claims every organization's due
 * rows at once): connections due for a sync. Like WebhookQueueRepository beside WebhooksRepository; the write-backs'
 * queue is modules/calendar-writes.
 */
@Injectable()
export class CalendarQueueRepository {
  private readonly syncs: LeaseQueue<{ id: string }>;

  constructor(private readonly tx: TransactionHost) {
    this.syncs = new LeaseQueue(tx, {
      table: 'calendar_connections',
      waiting: 'true',
      dueColumn: 'next_sync_at',
      order: 'c.next_sync_at',
      countsAttempts: false,
      returning: 'q.id',
    });
  }

  /** Job queue: leases up to `limit` connections due for a sync, one worker per connection at a time. */
  async claimDue(limit: number, leaseSeconds: number): Promise<ClaimedConnection[]> {
    const claims = await this.syncs.claim(limit, leaseSeconds);
    if (claims.length === 0) return [];
    return withClaims(await this.tx.reads.find(CalendarConnection, { where: claims.map(({ id }) => ({ id })) }), claims);
  }

  /** Job queue: the lease ends with the sync (which wrote its own next time). */
  async release(claim: Claim): Promise<void> {
    await this.syncs.release(claim);
  }

  /** Job queue: milliseconds until the next connection is due, or null when there is none. */
  async msUntilNextDue(): Promise<number | null> {
    return this.syncs.msUntilNextDue();
  }
}

/** Each found row with the claim that leased it (a row deleted since its claim is simply not found). */
function withClaims<T extends { id: string }>(rows: T[], claims: readonly Claim[]): (T & { claim: Claim })[] {
  const leases = new Map(claims.map((claim) => [claim.id, claim.lease]));
  return rows.map((row) => Object.assign(row, { claim: { id: row.id, lease: leases.get(row.id)! } }));
}
