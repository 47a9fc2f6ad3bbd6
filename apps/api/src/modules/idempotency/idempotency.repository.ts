import { Injectable } from '@nestjs/common';
import { AppConfig, AppError, ErrorCode, SecretSealer, type TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';

export interface StoredRecord {
  fingerprint: string;
  status: number;
  body: unknown;
}

/**
 * What an erased booking's record keeps in place of its answer (contract § 18): the booking's id, to be read as it now
 * stands, and the rest of the answer (`series`: ids, times, statuses). Stored as it is, unsealed: it names no one.
 */
export interface ErasedReplay {
  bookingId: string;
  rest: Record<string, unknown>;
}

interface ErasedReplayBody {
  erasedReplay: ErasedReplay;
}

export function isErasedReplay(body: unknown): body is ErasedReplayBody {
  if (typeof body !== 'object' || body === null) return false;
  const replay = (body as Partial<ErasedReplayBody>).erasedReplay;
  return typeof replay === 'object' && replay !== null && typeof replay.bookingId === 'string';
}

/**
 * A 201 (a booking made: POST /bookings, POST /public/bookings) whose `booking` is one of the erased ids: its replay
 * marker; anything else (a reschedule's 200 among them: run again, it is refused, its booking being moved already): null.
 */
function erasedReplayOf(status: number, text: string, ids: readonly string[]): ErasedReplayBody | null {
  if (status !== 201) return null;
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const { booking, ...rest } = parsed as Record<string, unknown>;
  const bookingId = typeof booking === 'object' && booking !== null ? (booking as { id?: unknown }).id : undefined;
  if (typeof bookingId !== 'string' || !ids.includes(bookingId)) return null;
  // The rest may name the person only through a booking of the same answer (a series lists ids and times): kept only when it does not.
  const restText = JSON.stringify(rest);
  if (/"(attendee|email|firstName|lastName|phone|notes|answers|timezone|metadata|confirmationToken|holdToken)"/.test(restText)) return null;
  return { erasedReplay: { bookingId, rest } };
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
   * are sealed, so each of the scope's records (a day's worth at most, plus expired ones not yet swept) is opened here.
   * A success that made one of them (`booking.id` is one of the ids) keeps its record without its body: only the
   * booking's id (and the rest of the answer without the booking, which names no one: a series' ids and times) stays,
   * and a replay reads the booking as it now stands (ErasedReplay). Any other record naming them, or one that no
   * configured key opens (it may hold anything), goes.
   */
  async eraseNaming(scope: TenantScope, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const rows: { key: string; response_status: number; response_body: unknown }[] = await this.tx.transactional.query(
      `SELECT key, response_status, response_body FROM idempotency_keys WHERE organization_id = $1 AND livemode = $2`,
      [scope.organizationId, scope.livemode],
    );
    const quoted = ids.map((id) => JSON.stringify(id));
    const kept: { key: string; body: ErasedReplayBody }[] = [];
    const dropped: string[] = [];
    for (const row of rows) {
      if (isErasedReplay(row.response_body)) continue;
      const text = this.plainText(scope, row.key, row.response_body);
      if (text !== null && !quoted.some((id) => text.includes(id))) continue;
      const replay = text === null ? null : erasedReplayOf(row.response_status, text, ids);
      if (replay) kept.push({ key: row.key, body: replay });
      else dropped.push(row.key);
    }
    if (kept.length > 0) {
      await this.tx.transactional.query(
        `UPDATE idempotency_keys k SET response_body = v.body::jsonb
           FROM unnest($3::text[], $4::text[]) AS v(key, body)
          WHERE k.organization_id = $1 AND k.livemode = $2 AND k.key = v.key`,
        [scope.organizationId, scope.livemode, kept.map((row) => row.key), kept.map((row) => JSON.stringify(row.body))],
      );
    }
    if (dropped.length > 0) {
      await this.tx.transactional.query(
        `DELETE FROM idempotency_keys WHERE organization_id = $1 AND livemode = $2 AND key = ANY($3::text[])`,
        [scope.organizationId, scope.livemode, dropped],
      );
    }
    return kept.length + dropped.length;
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
