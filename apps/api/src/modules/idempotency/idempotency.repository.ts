import { Injectable } from '@nestjs/common';
import { AppConfig, AppError, ErrorCode, SecretSealer, type TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';

export interface StoredRecord {
  fingerprint: string;
  status: number;
  body: unknown;
}

/** How a response body rests in `response_body`: sealed, since it may carry a confirmation or hold token in clear. */
interface SealedBody {
  sealed: string;
}

function isSealed(body: unknown): body is SealedBody {
  return typeof body === 'object' && body !== null && typeof (body as Partial<SealedBody>).sealed === 'string';
}

@Injectable()
export class IdempotencyRepository {
  private readonly sealer: SecretSealer;

  constructor(
    private readonly tx: TransactionHost,
    config: AppConfig,
  ) {
    this.sealer = new SecretSealer(config);
  }

  /** Bound to the record's row, so a sealed body copied onto another key does not open. */
  private context(scope: TenantScope, key: string): string {
    return `idempotency:${scope.organizationId}:${scope.livemode ? 'live' : 'test'}:${key}`;
  }

  private open(scope: TenantScope, key: string, body: unknown): unknown {
    if (!isSealed(body)) return body; // stored before bodies were sealed (gone within a day)
    try {
      return JSON.parse(this.sealer.open(body.sealed, this.context(scope, key)));
    } catch {
      // Never run the request again instead: that could book twice. The key's record expires within a day.
      throw new AppError(
        ErrorCode.SERVICE_UNAVAILABLE,
        'The response stored for this Idempotency-Key cannot be read with the configured keys',
        undefined,
        { 'Retry-After': '3600' },
      );
    }
  }

  /**
   * Holds the key for the rest of the transaction, or returns false at once when another transaction
   * holds it (a request with this key is running). The lock ends with the transaction however it ends,
   * a lost connection included, so no key is ever left claimed by a request that died.
   */
  async lock(scope: TenantScope, key: string): Promise<boolean> {
    const rows: { locked: boolean }[] = await this.tx.transactional.query(
      `SELECT pg_try_advisory_xact_lock(hashtext($1), hashtext($2)) AS locked`,
      [`idempotency:${scope.organizationId}:${scope.livemode ? 'live' : 'test'}`, key],
    );
    return rows[0]?.locked === true;
  }

  /** The response stored for the key, unless it has expired. Read after `lock`, so a finished run is seen. */
  async find(scope: TenantScope, key: string, now: Date): Promise<StoredRecord | null> {
    const rows: { fingerprint: string; response_status: number; response_body: unknown }[] = await this.tx.reads.query(
      `SELECT fingerprint, response_status, response_body FROM idempotency_keys
        WHERE organization_id = $1 AND livemode = $2 AND key = $3 AND expires_at > $4`,
      [scope.organizationId, scope.livemode, key, now],
    );
    const row = rows[0];
    return row ? { fingerprint: row.fingerprint, status: row.response_status, body: this.open(scope, key, row.response_body) } : null;
  }

  /**
   * Stores the key's response for `ttlMs`, sealed with ENCRYPTION_KEY (the text as it was, so a replay is the same bytes), in the request's transaction (and its batch, when one is open): it
   * commits with what the request wrote or not at all; an expired record is replaced, a live one is kept.
   */
  async store(scope: TenantScope, key: string, record: StoredRecord, now: Date, ttlMs: number): Promise<void> {
    await this.tx.write(
      `INSERT INTO idempotency_keys AS k (organization_id, livemode, key, fingerprint, response_status, response_body, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (organization_id, livemode, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body,
             created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
       WHERE k.expires_at <= EXCLUDED.created_at`,
      [
        scope.organizationId,
        scope.livemode,
        key,
        record.fingerprint,
        record.status,
        JSON.stringify({ sealed: this.sealer.seal(JSON.stringify(record.body), this.context(scope, key)) } satisfies SealedBody),
        now,
        new Date(now.getTime() + ttlMs),
      ],
    );
  }

  /**
   * Erasure: the stored responses that name any of these records (booking ids), in the caller's transaction. The bodies
   * are sealed, so each of the scope's records (a day's worth at most, plus expired ones not yet swept) is opened here;
   * one that no configured key opens may hold anything and goes too.
   */
  async deleteNaming(scope: TenantScope, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const rows: { key: string; response_body: unknown }[] = await this.tx.transactional.query(
      `SELECT key, response_body FROM idempotency_keys WHERE organization_id = $1 AND livemode = $2`,
      [scope.organizationId, scope.livemode],
    );
    const quoted = ids.map((id) => JSON.stringify(id));
    const naming = rows.filter((row) => {
      const text = this.plainText(scope, row.key, row.response_body);
      return text === null || quoted.some((id) => text.includes(id));
    });
    if (naming.length === 0) return 0;
    const [, count]: [unknown[], number] = await this.tx.transactional.query(
      `DELETE FROM idempotency_keys WHERE organization_id = $1 AND livemode = $2 AND key = ANY($3::text[])`,
      [scope.organizationId, scope.livemode, naming.map((row) => row.key)],
    );
    return count ?? 0;
  }

  /** A stored body's JSON text, or null when no configured key opens it. */
  private plainText(scope: TenantScope, key: string, body: unknown): string | null {
    if (!isSealed(body)) return JSON.stringify(body);
    try {
      return this.sealer.open(body.sealed, this.context(scope, key));
    } catch {
      return null;
    }
  }

  async deleteExpired(now: Date): Promise<number> {
    const result: [unknown[], number] = await this.tx
      .outside('retention runs as a job of its own, in autocommit')
      .query(`DELETE FROM idempotency_keys WHERE expires_at <= $1`, [now]);
    return result[1] ?? 0;
  }
}
