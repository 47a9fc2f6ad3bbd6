import { Injectable, Logger } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { MonthlyPartitions } from '../../jobs/index.js';

/** An entry as the writer hands it over: redacted already. */
export interface AuditEntryInput {
  id: string;
  organizationId: string;
  occurredAt: Date;
  action: string;
  actorType: string;
  actorId: string | null;
  actorLabel: string | null;
  resourceType: string;
  resourceId: string | null;
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
  changes: unknown;
  details: unknown;
}

export interface AuditEntryRow {
  id: string;
  /** The writing transaction's id (xid8) as decimal text: the first key of the order, for the cursor. */
  tx_id: string;
  occurred_at: Date;
  /** occurred_at in microseconds since the epoch (PostgreSQL's precision: a Date has milliseconds), for the cursor. */
  occurred_us: string;
  action: string;
  actor_type: string;
  actor_id: string | null;
  actor_label: string | null;
  resource_type: string;
  resource_id: string | null;
  request_id: string | null;
  ip: string | null;
  user_agent: string | null;
  changes: Record<string, { from: unknown; to: unknown }> | null;
  details: Record<string, unknown> | null;
}

export interface AuditFilter {
  action?: string;
  actorId?: string;
  resourceId?: string;
  from?: Date;
  to?: Date;
}

/** Where a page starts: strictly below this entry in the order (tx_id, occurred_at, id), newest first. */
export interface AuditCursor {
  /** The entry's `tx_id` (xid8), as decimal text. */
  txId: string;
  /** Microseconds since the epoch, as decimal text. */
  occurredUs: string;
  id: string;
}

const INSERT = `INSERT INTO audit_entries (id, organization_id, occurred_at, action, actor_type, actor_id, actor_label, resource_type,
                  resource_id, request_id, ip, user_agent, changes, details)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`;

/**
 * What a page reads. `tx_id` leaves as text (an xid8 has no JavaScript type); so the statements order by
 * `audit_entries.tx_id`: a bare `tx_id` in ORDER BY would name this text column, sort every row by its digits, and walk
 * no index.
 */
const COLUMNS = `id, tx_id::text AS tx_id, occurred_at, (extract(epoch FROM occurred_at) * 1000000)::bigint::text AS occurred_us, action, actor_type, actor_id, actor_label, resource_type, resource_id, request_id, ip, user_agent,
                 changes, details`;

/**
 * The settlement boundary (contract § 18: entries are paged in the order they became visible). n is the statement's
 * snapshot's xmax, taken before pg_stat_activity is read: every transaction id below n that is not listed there as
 * still running in this database has ended. A running backend's `backend_xid` (32 bits) is widened to the xid8
 * nearest n (within 2^31: running ids are never further apart); ids at or above n started after the snapshot and
 * bound nothing. The boundary is the oldest running id, or n: every entry below it is final, and an entry that
 * becomes visible later has a tx_id at or above it. On a standby (reads from standbys: ReplicaReads) pg_stat_activity
 * shows none of the primary's transactions: there the boundary is the standby's snapshot's xmin, the oldest
 * transaction its replay knows as running (every id below it has ended as far as the standby has replayed, so what it
 * shows below it is final there).
 */
const SETTLED = `WITH n AS (SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS n),
  running AS (
    SELECT n.n + (((a.backend_xid::text::bigint - (n.n & 4294967295)) + 6442450944) & 4294967295) - 2147483648 AS xid
      FROM pg_stat_activity a CROSS JOIN n
     WHERE a.datname = current_database() AND a.backend_xid IS NOT NULL)
  SELECT CASE WHEN pg_is_in_recovery() THEN pg_snapshot_xmin(pg_current_snapshot())::text
    ELSE LEAST((SELECT n FROM n), (SELECT min(xid) FROM running))::text END AS boundary`;

/** The audit module's table (`audit_entries`): inserted by the trail, read by the log's routes, swept by retention. */
@Injectable()
export class AuditRepository {
  /** Its months (docs/operating/partitions.md): retention drops a month whole once all of it is past. */
  readonly partitions: MonthlyPartitions;

  constructor(private readonly tx: TransactionHost) {
    this.partitions = new MonthlyPartitions(tx, new Logger('AuditRetention'), { table: 'audit_entries', column: 'occurred_at' });
  }

  /** In the caller's transaction: the entry commits with the change, or not at all. */
  async insert(entry: AuditEntryInput): Promise<void> {
    await this.tx.write(INSERT, values(entry));
  }

  /** A failed sign-in: its request fails and rolls back, and the entry must stay. */
  async insertOutside(entry: AuditEntryInput): Promise<void> {
    await this.tx.outside('a failed sign-in is recorded although its request fails').query(INSERT, values(entry));
  }

  /**
   * The settlement boundary (see SETTLED), in a statement of its own, in autocommit: pg_stat_activity is read once per
   * transaction, and the read it bounds must take its snapshot after it.
   */
  async settledBelow(): Promise<string> {
    // Outside a transaction `reads` is the pool, or the standby connection the page is read on (the boundary must be
    // that node's); inside one, the boundary is read fresh, before the read it bounds takes its snapshot.
    const manager = this.tx.inTransaction
      ? this.tx.outside('the settlement boundary is read fresh, before the read it bounds takes its snapshot')
      : this.tx.reads;
    const rows: { boundary: string }[] = await manager.query(SETTLED);
    return rows[0].boundary;
  }

  /** Whether the organization has visible entries not yet settled (at or above `boundary`): the page index's first row. */
  async hasUnsettled(scope: TenantScope, boundary: string): Promise<boolean> {
    const rows: { unsettled: boolean }[] = await this.tx.reads.query(
      `SELECT EXISTS (SELECT 1 FROM audit_entries WHERE organization_id = $1 AND tx_id >= $2::xid8) AS unsettled`,
      [scope.organizationId, boundary],
    );
    return rows[0].unsettled;
  }

  /**
   * One page, newest first, after `cursor`, of the entries settled below `boundary` (keyset on (tx_id, occurred_at,
   * id): an entry that becomes visible later has a tx_id at or above the boundary, above every page already read, so
   * none is skipped or repeated). Each filter leads one index with the organization, and so do actor and action
   * together (`audit_entries_actor_action_idx`); a resource has few entries; a time range is a filter of the walk.
   */
  async page(
    scope: TenantScope,
    filter: AuditFilter,
    cursor: AuditCursor | null,
    boundary: string,
    limit: number,
  ): Promise<AuditEntryRow[]> {
    const conditions = ['organization_id = $1', 'tx_id < $2::xid8'];
    const params: unknown[] = [scope.organizationId, boundary];
    const add = (sql: string, value: unknown): void => {
      params.push(value);
      conditions.push(sql.replace('?', `$${params.length}`));
    };
    if (filter.action !== undefined) add('action = ?', filter.action);
    if (filter.actorId !== undefined) add('actor_id = ?', filter.actorId);
    if (filter.resourceId !== undefined) add('resource_id = ?', filter.resourceId);
    if (filter.from !== undefined) add('occurred_at >= ?', filter.from);
    if (filter.to !== undefined) add('occurred_at < ?', filter.to);
    if (cursor) {
      params.push(cursor.txId, cursor.occurredUs, cursor.id);
      const n = params.length;
      conditions.push(
        `(tx_id, occurred_at, id) < ($${n - 2}::xid8, 'epoch'::timestamptz + $${n - 1}::bigint * interval '1 microsecond', $${n})`,
      );
    }
    params.push(limit);
    return this.tx.reads.query(
      `SELECT ${COLUMNS} FROM audit_entries WHERE ${conditions.join(' AND ')}
        ORDER BY audit_entries.tx_id DESC, occurred_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
  }

  /**
   * The export's batches, of the entries settled below `boundary` (settled once, at the export's start): one statement
   * text for every batch (the range always bounded, the first batch's cursor the boundary itself at `infinity`), on the
   * keyset of the organization's page index. Planned at every batch, not prepared: which index is right depends on the
   * range asked for (a day reads the time index, all time the organization's), and a prepared statement's generic plan
   * walked every entry of the organization for a day's export (issue 54: 500 entries of 100,000, 1.3–2× the time).
   */
  async exportBatch(
    scope: TenantScope,
    from: Date | null,
    to: Date | null,
    cursor: AuditCursor | null,
    boundary: string,
    limit: number,
  ): Promise<AuditEntryRow[]> {
    return this.tx.reads.query(
      `SELECT ${COLUMNS} FROM audit_entries
        WHERE organization_id = $1 AND tx_id < $7::xid8 AND occurred_at >= $2::timestamptz AND occurred_at < $3::timestamptz
          AND (tx_id, occurred_at, id) < ($4::xid8, CASE WHEN $5::bigint IS NULL THEN 'infinity'::timestamptz
                                              ELSE 'epoch'::timestamptz + $5::bigint * interval '1 microsecond' END, $6::text)
        ORDER BY audit_entries.tx_id DESC, occurred_at DESC, id DESC LIMIT $8`,
      [
        scope.organizationId,
        from ?? '-infinity',
        to ?? 'infinity',
        cursor?.txId ?? boundary,
        cursor?.occurredUs ?? null,
        cursor?.id ?? '',
        boundary,
        limit,
      ],
    );
  }

  /**
   * Erasure (contract § 18), in the caller's transaction: the entries about these bookings and routing responses
   * (`resourceIds`) written by the attendee (its token) or a publishable key (the attendee's browser) keep no client
   * address or user agent, and neither do the hold
   * entries the same browser wrote (the same key from the same address: a hold leaves no other trace once booked or
   * ended). The entries stay. Returns how many changed.
   */
  async forgetClients(scope: TenantScope, resourceIds: readonly string[], publishableKeyIds: readonly string[]): Promise<number> {
    if (resourceIds.length === 0) return 0;
    const [, count]: [unknown[], number] = await this.tx.transactional.query(
      `WITH about AS (
         SELECT id, actor_type, actor_id, ip FROM audit_entries
          WHERE organization_id = $1 AND resource_type IN ('booking', 'routing_response') AND resource_id = ANY($2::text[])
            AND (actor_type = 'attendee' OR (actor_type = 'api_key' AND actor_id = ANY($3::text[])))),
       browsers AS (
         SELECT DISTINCT actor_id, ip FROM about WHERE actor_type = 'api_key' AND ip IS NOT NULL)
       UPDATE audit_entries e SET ip = NULL, user_agent = NULL
        WHERE e.organization_id = $1 AND (e.ip IS NOT NULL OR e.user_agent IS NOT NULL)
          AND (e.id IN (SELECT id FROM about)
               OR (e.resource_type = 'hold' AND e.actor_type = 'api_key'
                   AND (e.actor_id, e.ip) IN (SELECT actor_id, ip FROM browsers)))`,
      [scope.organizationId, [...resourceIds], [...publishableKeyIds]],
    );
    return count ?? 0;
  }

  /**
   * Retention of what the dropped partitions left: entries older than `cutoff` in the month the cut-off falls in (or
   * in the DEFAULT partition), a batch at a time so no statement holds many row locks for long.
   */
  async deleteBefore(cutoff: Date, batch: number): Promise<number> {
    const [, count]: [unknown[], number] = await this.tx.outside('retention runs as a job of its own, in autocommit').query(
      `DELETE FROM audit_entries WHERE occurred_at < $1
            AND (id, occurred_at) IN (SELECT id, occurred_at FROM audit_entries WHERE occurred_at < $1 LIMIT $2)`,
      [cutoff, batch],
    );
    return count ?? 0;
  }
}

function values(entry: AuditEntryInput): unknown[] {
  return [
    entry.id,
    entry.organizationId,
    entry.occurredAt,
    entry.action,
    entry.actorType,
    entry.actorId,
    entry.actorLabel,
    entry.resourceType,
    entry.resourceId,
    entry.requestId,
    entry.ip,
    entry.userAgent,
    entry.changes === undefined || entry.changes === null ? null : JSON.stringify(entry.changes),
    entry.details === undefined || entry.details === null ? null : JSON.stringify(entry.details),
  ];
}
