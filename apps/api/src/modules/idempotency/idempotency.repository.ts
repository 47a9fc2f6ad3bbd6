import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { TenantScope } from '@app/common';
import type { IdempotencyState } from './entities/idempotency-key.entity.js';
import { TransactionHost } from '@app/database';

export interface IdempotencyRow {
  fingerprint: string;
  state: IdempotencyState;
  response_status: number | null;
  response_body: unknown;
}

@Injectable()
export class IdempotencyRepository {
  constructor(
    private readonly tx: TransactionHost,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * Claims the key for this request: a new key, an expired record or an abandoned run (lease over)
   * is taken; anything else returns null and the caller reads what is there.
   */
  async claim(scope: TenantScope, key: string, fingerprint: string, now: Date, leaseMs: number, ttlMs: number): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO idempotency_keys AS k (organization_id, livemode, key, fingerprint, state, locked_until, created_at, expires_at)
       VALUES ($1, $2, $3, $4, 'running', $5, $6, $7)
       ON CONFLICT (organization_id, livemode, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, state = 'running', response_status = NULL, response_body = NULL,
             locked_until = EXCLUDED.locked_until, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
       WHERE k.expires_at <= $6 OR (k.state = 'running' AND k.locked_until <= $6)
       RETURNING 1`,
      [scope.organizationId, scope.livemode, key, fingerprint, new Date(now.getTime() + leaseMs), now, new Date(now.getTime() + ttlMs)],
    );
    return rows.length > 0;
  }

  async find(scope: TenantScope, key: string): Promise<IdempotencyRow | null> {
    const rows: IdempotencyRow[] = await this.dataSource.query(
      `SELECT fingerprint, state, response_status, response_body FROM idempotency_keys WHERE organization_id = $1 AND livemode = $2 AND key = $3`,
      [scope.organizationId, scope.livemode, key],
    );
    return rows[0] ?? null;
  }

  /** Called with the booking's own transaction, so the stored response commits with the booking or not at all. */
  async complete(scope: TenantScope, key: string, status: number, body: unknown): Promise<void> {
    await this.tx.manager.query(
      `UPDATE idempotency_keys SET state = 'done', response_status = $4, response_body = $5
        WHERE organization_id = $1 AND livemode = $2 AND key = $3`,
      [scope.organizationId, scope.livemode, key, status, JSON.stringify(body)],
    );
  }

  async release(scope: TenantScope, key: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM idempotency_keys WHERE organization_id = $1 AND livemode = $2 AND key = $3 AND state = 'running'`,
      [scope.organizationId, scope.livemode, key],
    );
  }

  async deleteExpired(now: Date): Promise<number> {
    const result: [unknown[], number] = await this.dataSource.query(`DELETE FROM idempotency_keys WHERE expires_at <= $1`, [now]);
    return result[1] ?? 0;
  }
}
