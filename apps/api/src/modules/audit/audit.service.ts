import { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { AppConfig, AppError, Clock, daysBefore, ErrorCode, type Principal, tenantScope, type TenantScope } from '@app/common';
import { ReplicaReads } from '@app/database';
import { PeriodicJobs, RETENTION_INTERVAL_MS } from '../../jobs/index.js';
import { type AuditCursor, type AuditEntryRow, type AuditFilter, AuditRepository } from './audit.repository.js';
import type { AuditEntryView, AuditLogQueryDto, AuditLogResponse, AuditRangeQueryDto } from './dto/audit.dto.js';

const EXPORT_BATCH = 1000;
const RETENTION_BATCH = 10_000;
/**
 * A reader right after a write is not shown a page without it because of a short unrelated transaction: while the
 * organization has visible entries not yet settled, the boundary is read again every SETTLE_POLL_MS, for up to
 * SETTLE_WAIT_MS (real time: it waits on other transactions, not on the app's clock), then what is settled is answered.
 */
const SETTLE_POLL_MS = 20;
const SETTLE_WAIT_MS = 1000;

/** Reading the audit log (GET /audit-log and its export) and its retention. Nothing changes an entry. */
@Injectable()
export class AuditService {
  constructor(
    private readonly repository: AuditRepository,
    private readonly clock: Clock,
    private readonly replicaReads: ReplicaReads,
    config: AppConfig,
    jobs: PeriodicJobs,
  ) {
    jobs.register('audit-retention', RETENTION_INTERVAL_MS, () => this.retain(config.auditRetentionDays));
  }

  /**
   * GET /audit-log: a standby may answer the first page (ReplicaReads), its settlement boundary then read on that
   * standby. A page after a cursor is read on the primary: its boundary never goes backwards, where another node's
   * (an older snapshot on a standby further behind) could fall below the cursor and skip the entries between.
   */
  list(principal: Principal, query: AuditLogQueryDto): Promise<AuditLogResponse> {
    if (query.cursor !== undefined) return this.readPage(principal, query);
    return this.replicaReads.run(principal.organizationId, () => this.readPage(principal, query));
  }

  private async readPage(principal: Principal, query: AuditLogQueryDto): Promise<AuditLogResponse> {
    const cursor = query.cursor === undefined ? null : decodeCursor(query.cursor);
    const filter: AuditFilter = { ...rangeOf(query), action: query.action, actorId: query.actorId, resourceId: query.resourceId };
    const scope = tenantScope(principal);
    const boundary = await this.settle(scope);
    const rows = await this.repository.page(scope, filter, cursor, boundary, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      entries: page.map(entryView),
      nextCursor: rows.length > query.limit && last ? encodeCursor(cursorOf(last)) : null,
    };
  }

  /**
   * The boundary below which every entry is settled (contract § 18: paged in the order entries became visible; see
   * AuditRepository.settledBelow), waiting a little for the organization's entries not yet settled (SETTLE_WAIT_MS).
   * A transaction that runs long holds the newest entries back for as long as it runs.
   */
  private async settle(scope: TenantScope): Promise<string> {
    const deadline = performance.now() + SETTLE_WAIT_MS;
    for (;;) {
      const boundary = await this.repository.settledBelow();
      if (performance.now() >= deadline || !(await this.repository.hasUnsettled(scope, boundary))) return boundary;
      await delay(SETTLE_POLL_MS);
    }
  }

  /**
   * The export: one entry a line, newest first, read a batch at a time by the same keyset as the pages (of the entries
   * settled when it starts: one boundary for every batch), as the
   * response is consumed (Readable.from pulls the next batch only when the socket has taken the last one), so a
   * year of entries never sits in memory.
   */
  export(principal: Principal, query: AuditRangeQueryDto): Readable {
    const scope = tenantScope(principal);
    const filter = rangeOf(query);
    return Readable.from(this.lines(scope, filter), { objectMode: false });
  }

  private async *lines(scope: TenantScope, filter: AuditFilter): AsyncGenerator<string> {
    // One standby connection (or the primary) for the boundary and every batch, held until the last is read: batches
    // read on standbys at different positions could miss an entry below the boundary (ReplicaReads.session).
    const reads = await this.replicaReads.session(scope.organizationId);
    try {
      const boundary = await reads.run(() => this.settle(scope));
      let cursor: AuditCursor | null = null;
      for (;;) {
        const after = cursor;
        const rows = await reads.run(() =>
          this.repository.exportBatch(scope, filter.from ?? null, filter.to ?? null, after, boundary, EXPORT_BATCH),
        );
        if (rows.length === 0) return;
        yield rows.map((row) => `${JSON.stringify(entryView(row))}\n`).join('');
        if (rows.length < EXPORT_BATCH) return;
        cursor = cursorOf(rows[rows.length - 1]);
      }
    } finally {
      await reads.release();
    }
  }

  /**
   * One round of retention (docs/operating/partitions.md): the coming months' partitions made, the months wholly past
   * `days` dropped, then the entries older than the cut-off that remain (in the month it falls in) deleted. Returns
   * how many entries went.
   */
  async retain(days: number): Promise<number> {
    const now = this.clock.now();
    const cutoff = daysBefore(now, days);
    await this.repository.partitions.prepare(now);
    const dropped = await this.repository.partitions.dropExpired(cutoff);
    return dropped + (await this.deleteExpired(cutoff));
  }

  /** Retention: entries older than `cutoff`, in batches until none is left. */
  async deleteExpired(cutoff: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const count = await this.repository.deleteBefore(cutoff, RETENTION_BATCH);
      total += count;
      if (count < RETENTION_BATCH) return total;
    }
  }
}

function rangeOf(query: AuditRangeQueryDto): AuditFilter {
  return {
    from: query.from === undefined ? undefined : new Date(query.from),
    to: query.to === undefined ? undefined : new Date(query.to),
  };
}

function cursorOf(row: AuditEntryRow): AuditCursor {
  return { txId: row.tx_id, occurredUs: row.occurred_us, id: row.id };
}

/** The last entry's place: its transaction, its time to the microsecond (entries written by SQL have them) and its id. */
function encodeCursor(cursor: AuditCursor): string {
  return Buffer.from(`${cursor.txId}.${cursor.occurredUs}.${cursor.id}`, 'utf8').toString('base64url');
}

/** The microseconds of 0001-01-01T00:00:00Z and of 9999-12-31T23:59:59.999999Z: every time an entry can have. */
const EARLIEST_US = -62_135_596_800_000_000n;
const LATEST_US = 253_402_300_799_999_999n;
/** A transaction id (xid8) a cursor can carry: a non-negative bigint. */
const LATEST_TX = 9_223_372_036_854_775_807n;

/**
 * A cursor this list issued, or a 400 naming `cursor`: its parts are checked strictly (the transaction a non-negative
 * bigint), the time within the years an
 * entry can have (a forged time past PostgreSQL's range would otherwise reach the statement), and the text must be
 * the very encoding encodeCursor gives (base64url decodes much else leniently).
 */
function decodeCursor(text: string): AuditCursor {
  const refused = new AppError(ErrorCode.VALIDATION_ERROR, 'cursor is not a cursor of this list', [
    { field: 'cursor', message: 'cursor is not a cursor of this list' },
  ]);
  const decoded = Buffer.from(text, 'base64url').toString('utf8');
  const match = /^(0|[1-9]\d{0,18})\.(0|-?[1-9]\d{0,17})\.(aud_[0-9A-Za-z]{20,64})$/.exec(decoded);
  if (!match) throw refused;
  if (BigInt(match[1]) > LATEST_TX) throw refused;
  const occurredUs = BigInt(match[2]);
  if (occurredUs < EARLIEST_US || occurredUs > LATEST_US) throw refused;
  const cursor = { txId: match[1], occurredUs: match[2], id: match[3] };
  if (encodeCursor(cursor) !== text) throw refused;
  return cursor;
}

function entryView(row: AuditEntryRow): AuditEntryView {
  return {
    id: row.id,
    occurredAt: row.occurred_at.toISOString(),
    action: row.action,
    actor: { type: row.actor_type as AuditEntryView['actor']['type'], id: row.actor_id, label: row.actor_label },
    resource: { type: row.resource_type, id: row.resource_id },
    requestId: row.request_id,
    ip: row.ip,
    userAgent: row.user_agent,
    ...(row.changes ? { changes: row.changes } : {}),
    ...(row.details ? { details: row.details } : {}),
  };
}
