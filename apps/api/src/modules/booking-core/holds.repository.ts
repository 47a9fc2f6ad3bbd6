import { Injectable } from '@nestjs/common';
import { pageOffset, type PageRequest, type TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import type { HoldRecord } from './booking-record.js';
import { Parameters } from './sql-parameters.js';
import { Hold } from './entities/hold.entity.js';

interface HoldRow {
  id: string;
  organization_id: string;
  event_type_id: string;
  livemode: boolean;
  starts_at: Date;
  ends_at: Date;
  expires_at: Date;
  host_user_id: string;
  buffer_before_minutes: number;
  buffer_after_minutes: number;
  token_hash: string | null;
  api_key_id: string | null;
  client_ip: string | null;
  created_at: Date;
}

function holdFromRow(row: HoldRow): HoldRecord {
  return Object.assign(new Hold(), {
    id: row.id,
    organizationId: row.organization_id,
    eventTypeId: row.event_type_id,
    livemode: row.livemode,
    startsAt: row.starts_at,
    endsAt: row.ends_at,
    expiresAt: row.expires_at,
    hostUserId: row.host_user_id,
    bufferBeforeMinutes: row.buffer_before_minutes,
    bufferAfterMinutes: row.buffer_after_minutes,
    tokenHash: row.token_hash,
    apiKeyId: row.api_key_id,
    clientIp: row.client_ip,
    createdAt: row.created_at,
  } satisfies Hold);
}

/**
 * Holds and their occupancy (booking_hosts rows with status `held`). Every write here runs under the
 * hosts' advisory locks (SlotDecisionService.lock, slot-decision), like bookings.
 */
@Injectable()
export class HoldsRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** The hold and one occupancy row per host, in one statement (deferred with the transaction's other writes). */
  /** `seatGroup`: the seated start's group (api-rules.md § Seats and series), or null. */
  async insert(scope: TenantScope, hold: HoldRecord, hostUserIds: readonly string[], seatGroup: string | null): Promise<void> {
    const parameters = new Parameters();
    const row = [
      hold.id,
      scope.organizationId,
      hold.eventTypeId,
      scope.livemode,
      hold.startsAt,
      hold.endsAt,
      hold.expiresAt,
      hold.hostUserId,
      hold.bufferBeforeMinutes,
      hold.bufferAfterMinutes,
      hold.tokenHash,
      hold.apiKeyId,
      hold.clientIp,
      hold.createdAt,
    ].map((value) => parameters.add(value));
    const hosts = parameters.add([...hostUserIds]);
    const group = parameters.add(seatGroup);
    await this.tx.write(
      `WITH inserted AS (
         INSERT INTO holds (id, organization_id, event_type_id, livemode, starts_at, ends_at, expires_at, host_user_id,
           buffer_before_minutes, buffer_after_minutes, token_hash, api_key_id, client_ip, created_at)
         VALUES (${row.join(', ')})
         RETURNING id, organization_id, event_type_id, livemode, starts_at, ends_at, expires_at, created_at)
       INSERT INTO booking_hosts (booking_id, host_user_id, organization_id, event_type_id, livemode, status, during, created_at, position,
                                  expires_at, seat_group)
       SELECT i.id, h.host_user_id, i.organization_id, i.event_type_id, i.livemode, 'held', tstzrange(i.starts_at, i.ends_at, '[)'),
              i.created_at, h.position, i.expires_at, ${group}
         FROM inserted i CROSS JOIN unnest(${hosts}::text[]) WITH ORDINALITY AS h(host_user_id, position)`,
      parameters.values,
    );
  }

  /**
   * Deletes the holds of these hosts (in the scope's mode) that expired by `now`, with all their rows, so
   * that the exclusion constraint lets the caller's insert through where an expired hold stood. Runs
   * under the hosts' locks, before the insert. A host's expired holds are deleted whatever organization
   * they belong to: the constraint spans organizations, and an expired hold is nobody's any more.
   */
  async clearExpired(scope: TenantScope, hostUserIds: readonly string[], now: Date): Promise<void> {
    await this.tx.write(
      `WITH expired AS (
         SELECT DISTINCT booking_id FROM booking_hosts
          WHERE status = 'held' AND host_user_id = ANY($1::text[]) AND livemode = $2 AND expires_at <= $3),
       occupancy AS (DELETE FROM booking_hosts WHERE booking_id IN (SELECT booking_id FROM expired))
       DELETE FROM holds WHERE id IN (SELECT booking_id FROM expired)`,
      [[...hostUserIds], scope.livemode, now],
    );
  }

  /**
   * The sweep (contract § 18, keeping only what is needed): holds that expired by `now`, with their occupancy and their
   * client address, at most `limit` of each per call. Autocommit, one table per statement, and rows a writer has locked
   * are skipped (a booking through its hold, a writer's own clearExpired), so the sweep never waits for a writer and
   * no writer can deadlock with it; what it skips goes with the writer or in the next round.
   */
  async deleteEnded(now: Date, limit: number): Promise<number> {
    const db = this.tx.outside('the hold sweep runs as a job of its own, in autocommit, and never holds a writer up');
    await db.query(
      `WITH ended AS (SELECT booking_id, host_user_id FROM booking_hosts
                       WHERE status = 'held' AND expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
       DELETE FROM booking_hosts bh USING ended e WHERE bh.booking_id = e.booking_id AND bh.host_user_id = e.host_user_id`,
      [now, limit],
    );
    const [, count]: [unknown[], number] = await db.query(
      `WITH ended AS (SELECT id FROM holds WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
       DELETE FROM holds h USING ended e WHERE h.id = e.id`,
      [now, limit],
    );
    return count ?? 0;
  }

  /**
   * Erasure: the holds these visitors (a publishable key and a client address) placed keep no client address. Returns
   * how many changed.
   */
  async forgetClientAddresses(scope: TenantScope, visitors: readonly { apiKeyId: string; clientAddress: string }[]): Promise<number> {
    if (visitors.length === 0) return 0;
    const [, count]: [unknown[], number] = await this.tx.transactional.query(
      `UPDATE holds h SET client_ip = NULL
         FROM unnest($3::text[], $4::text[]) AS v(api_key_id, client_address)
        WHERE h.organization_id = $1 AND h.livemode = $2 AND h.api_key_id = v.api_key_id AND h.client_ip = v.client_address`,
      [scope.organizationId, scope.livemode, visitors.map((v) => v.apiKeyId), visitors.map((v) => v.clientAddress)],
    );
    return count ?? 0;
  }

  /** Deletes the hold and its occupancy (released, or taken by its booking). */
  async remove(scope: TenantScope, id: string): Promise<void> {
    await this.tx.write(
      `WITH occupancy AS (DELETE FROM booking_hosts WHERE booking_id = $1 AND organization_id = $2 AND status = 'held')
       DELETE FROM holds WHERE id = $1 AND organization_id = $2 AND livemode = $3`,
      [id, scope.organizationId, scope.livemode],
    );
  }

  /** The hold and its hosts (the primary first), locked until the transaction ends: two bookings through one hold take turns. */
  async findForUpdate(scope: TenantScope, id: string): Promise<{ hold: HoldRecord; hostUserIds: string[] } | null> {
    const rows: (HoldRow & { host_user_ids: string[] })[] = await this.tx.transactional.query(
      `SELECT h.*, ARRAY(SELECT bh.host_user_id FROM booking_hosts bh WHERE bh.booking_id = h.id ORDER BY bh.position) AS host_user_ids
         FROM holds h WHERE h.id = $1 AND h.organization_id = $2 AND h.livemode = $3 FOR UPDATE`,
      [id, scope.organizationId, scope.livemode],
    );
    return rows.length === 0 ? null : { hold: holdFromRow(rows[0]), hostUserIds: rows[0].host_user_ids };
  }

  /** Holds live at `now` placed by one publishable key from one client address. */
  async countLiveForVisitor(scope: TenantScope, apiKeyId: string, clientIp: string, now: Date): Promise<number> {
    const [row]: { count: number }[] = await this.tx.transactional.query(
      `SELECT count(*)::int AS count FROM holds
        WHERE api_key_id = $1 AND client_ip = $2 AND expires_at > $3 AND organization_id = $4`,
      [apiKeyId, clientIp, now, scope.organizationId],
    );
    return row.count;
  }

  /**
   * The most distinct start times, other than `start`, that publishable keys' live holds cover of any one of these
   * hosts in the scope's mode (a seated start's holds count once): all of them, and the visitor's (one key and client
   * address). Read under the hosts' locks.
   */
  async publicHeldStartsOf(
    scope: TenantScope,
    hostUserIds: readonly string[],
    start: Date,
    now: Date,
    visitor: { apiKeyId: string; clientIp: string },
  ): Promise<{ all: number; visitor: number }> {
    const [row]: { starts: number | null; own: number | null }[] = await this.tx.transactional.query(
      `SELECT max(starts)::int AS starts, max(own)::int AS own FROM (
         SELECT count(DISTINCT h.starts_at) AS starts,
                count(DISTINCT h.starts_at) FILTER (WHERE h.api_key_id = $6 AND h.client_ip = $7) AS own
           FROM booking_hosts bh JOIN holds h ON h.id = bh.booking_id
          WHERE bh.status = 'held' AND bh.host_user_id = ANY($1::text[]) AND bh.livemode = $2 AND bh.expires_at > $3
            AND bh.organization_id = $4 AND h.api_key_id IS NOT NULL AND h.starts_at <> $5
          GROUP BY bh.host_user_id) per_host`,
      [[...hostUserIds], scope.livemode, now, scope.organizationId, start, visitor.apiKeyId, visitor.clientIp],
    );
    return { all: row.starts ?? 0, visitor: row.own ?? 0 };
  }

  /** Serializes hold placement per key and client address until the transaction ends (the per-visitor limit). */
  async lockVisitor(scope: TenantScope, apiKeyId: string, clientIp: string): Promise<void> {
    await this.tx.transactional.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [
      `hold-visitor:${scope.organizationId}:${apiKeyId}:${clientIp}`,
    ]);
  }

  /** Live holds, soonest first; `hostedBy` limits them to one host's (members). */
  async listLive(
    scope: TenantScope,
    filters: { eventTypeId?: string; hostedBy?: string },
    now: Date,
    page: PageRequest,
  ): Promise<[HoldRecord[], number]> {
    const where = `h.organization_id = $1 AND h.livemode = $2 AND h.expires_at > $3 AND ($4::text IS NULL OR h.event_type_id = $4)
      AND ($5::text IS NULL OR EXISTS (SELECT 1 FROM booking_hosts bh WHERE bh.booking_id = h.id AND bh.host_user_id = $5))`;
    const values = [scope.organizationId, scope.livemode, now, filters.eventTypeId ?? null, filters.hostedBy ?? null];
    const [rows, [{ total }]]: [HoldRow[], { total: number }[]] = await Promise.all([
      this.tx.reads.query(`SELECT h.* FROM holds h WHERE ${where} ORDER BY h.starts_at, h.id LIMIT $6 OFFSET $7`, [
        ...values,
        page.limit,
        pageOffset(page),
      ]),
      this.tx.reads.query(`SELECT count(*)::int AS total FROM holds h WHERE ${where}`, values),
    ]);
    return [rows.map(holdFromRow), total];
  }
}
