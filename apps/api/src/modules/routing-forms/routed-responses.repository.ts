import { Injectable } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { RoutingResponse } from './entities/routing-response.entity.js';

/** The routing_responses a booking is routed by (contract § 22): read, locked and claimed; scoped by organization and mode. */
@Injectable()
export class RoutedResponsesRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** The scope's response (its mode's only), without a lock: what GET /availability narrows by. */
  find(scope: TenantScope, id: string): Promise<RoutingResponse | null> {
    return this.tx.reads.findOne(RoutingResponse, {
      where: { organizationId: scope.organizationId, livemode: scope.livemode, id },
    });
  }

  /**
   * The scope's response, its row locked until the caller's transaction ends: a second booking through it waits here
   * for the first's COMMIT and then reads the booking id it set (READ COMMITTED re-reads a locked row's latest version).
   */
  findForUpdate(scope: TenantScope, id: string): Promise<RoutingResponse | null> {
    return this.tx.transactional.findOne(RoutingResponse, {
      where: { organizationId: scope.organizationId, livemode: scope.livemode, id },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** Links the (locked, unused) response to its booking, with the booking's writes (batched). */
  async claim(scope: TenantScope, id: string, bookingId: string): Promise<void> {
    await this.tx.write(
      `UPDATE routing_responses SET booking_id = $4
        WHERE organization_id = $1 AND livemode = $2 AND id = $3 AND booking_id IS NULL`,
      [scope.organizationId, scope.livemode, id, bookingId],
    );
  }
}
