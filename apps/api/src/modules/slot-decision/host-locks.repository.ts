import { Injectable } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { hostLockKeys, LOCK_HOSTS_SQL } from '../booking-occupancy/index.js';

/** The hosts' advisory locks: the one statement of the slot decision, which owns no table. */
@Injectable()
export class HostLocksRepository {
  constructor(private readonly tx: TransactionHost) {}

  /**
   * Serializes writes per host (and mode) until the transaction ends, in a fixed order so two
   * transactions locking overlapping host sets cannot deadlock. Rules the exclusion constraint
   * cannot express (buffers, daily cap) are then checked on data no one else is changing.
   */
  async lockHosts(scope: TenantScope, hostUserIds: readonly string[]): Promise<void> {
    const keys = hostLockKeys(scope.livemode, hostUserIds);
    if (keys.length === 0) return;
    // One statement, the locks taken in the order given (sorted: no two bookings wait for each other in a cycle); as
    // a transaction's first statement it travels with its START TRANSACTION and the read that follows (the event type's
    // or a hold's), in one round trip: what the decision reads is read under the locks.
    await this.tx.lock(LOCK_HOSTS_SQL, [keys], { withNext: true });
  }
}
