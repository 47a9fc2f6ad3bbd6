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
    // a transaction's first statement it travels with its START TRANSACTION and, when the next statement is a prepared
    // read (the event type's, in a booking's or a hold's decision), with that read too, in one round trip; before any
    // other statement (a hold's row read for update, a booking's for a change) it leaves with START TRANSACTION in a
    // message of its own, just before that one. Either way the server takes the locks before what comes after them.
    await this.tx.lock(LOCK_HOSTS_SQL, [keys], { withNext: true });
  }
}
