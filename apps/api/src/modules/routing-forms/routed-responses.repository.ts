import { Injectable } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import type { RouteTarget } from './entities/routing-form.entity.js';
import { RoutingResponse } from './entities/routing-response.entity.js';

/** What deciding on a response reads of it. */
export type RoutedResponse = Pick<RoutingResponse, 'id' | 'route' | 'expiresAt' | 'bookingId' | 'answers'>;

/** The routing_responses a booking is routed by (contract § 22): read, locked and claimed; scoped by organization and mode. */
@Injectable()
export class RoutedResponsesRepository {
  constructor(private readonly tx: TransactionHost) {}

  /**
   * The scope's response (its mode's only), without a lock and without its answers: what GET /availability narrows by.
   * A prepared statement of the columns it needs (an entity read through TypeORM doubled a warm availability's CPU).
   */
  async findRoute(scope: TenantScope, id: string): Promise<RoutedResponse | null> {
    const [row] = await this.tx.prepared<{ id: string; route: RouteTarget; expires_at: Date; booking_id: string | null }>(
      'routing-response-route',
      `SELECT id, route, expires_at, booking_id FROM routing_responses WHERE organization_id = $1 AND livemode = $2 AND id = $3`,
      [scope.organizationId, scope.livemode, id],
    );
    return row === undefined ? null : { id: row.id, route: row.route, expiresAt: row.expires_at, bookingId: row.booking_id, answers: [] };
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
