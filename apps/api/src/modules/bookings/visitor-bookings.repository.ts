import { Injectable } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';

/** The bookings visitors made through publishable keys (visitor_bookings), for the per-visitor hourly limit. */
@Injectable()
export class VisitorBookingsRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** Serializes one visitor's public bookings (key and client address) until the transaction ends, on every instance. */
  async lockVisitor(scope: TenantScope, apiKeyId: string, clientAddress: string): Promise<void> {
    await this.tx.transactional.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [
      `visitor-bookings:${scope.organizationId}:${apiKeyId}:${clientAddress}`,
    ]);
  }

  /** When the visitor's bookings made after `since` were made, newest first, at most `limit` of them. */
  async madeSince(scope: TenantScope, apiKeyId: string, clientAddress: string, since: Date, limit: number): Promise<Date[]> {
    const rows: { created_at: Date }[] = await this.tx.transactional.query(
      `SELECT created_at FROM visitor_bookings
        WHERE organization_id = $1 AND api_key_id = $2 AND client_address = $3 AND created_at > $4
        ORDER BY created_at DESC LIMIT $5`,
      [scope.organizationId, apiKeyId, clientAddress, since, limit],
    );
    return rows.map((row) => row.created_at);
  }

  /** Written with the booking's other rows (deferred in the booking's batch). */
  async insert(scope: TenantScope, row: { bookingId: string; apiKeyId: string; clientAddress: string; createdAt: Date }): Promise<void> {
    await this.tx.write(
      `INSERT INTO visitor_bookings (booking_id, organization_id, api_key_id, client_address, created_at) VALUES ($1, $2, $3, $4, $5)`,
      [row.bookingId, scope.organizationId, row.apiKeyId, row.clientAddress, row.createdAt],
    );
  }

  /** Erasure: these bookings' rows go; returns the visitors (key and client address) they named. */
  async deleteOf(scope: TenantScope, bookingIds: readonly string[]): Promise<{ apiKeyId: string; clientAddress: string }[]> {
    if (bookingIds.length === 0) return [];
    const [rows]: [{ api_key_id: string; client_address: string }[], number] = await this.tx.transactional.query(
      `DELETE FROM visitor_bookings WHERE organization_id = $1 AND booking_id = ANY($2::text[]) RETURNING api_key_id, client_address`,
      [scope.organizationId, [...bookingIds]],
    );
    return rows.map((row) => ({ apiKeyId: row.api_key_id, clientAddress: row.client_address }));
  }

  /** Cleanup: rows made before `before` count toward no limit any more. */
  async deleteBefore(before: Date): Promise<number> {
    const result: [unknown[], number] = await this.tx
      .outside('the sweep runs as a job of its own, in autocommit')
      .query(`DELETE FROM visitor_bookings WHERE created_at < $1`, [before]);
    return result[1] ?? 0;
  }
}
