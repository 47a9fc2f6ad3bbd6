import { Injectable } from '@nestjs/common';
import { pageOffset, type PageRequest, type TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import type { BusyInterval } from '@app/calendar';
import { CalendarConnection } from './entities/calendar-connection.entity.js';

export const CALENDAR_SYNC_CHANNEL = 'calendar_sync';
export const SOURCE_KEY = 'calendar_connections_member_source_key';

export interface StoredBusy {
  connectionId: string;
  start: Date;
  end: Date;
}

/** What a sync changes on its connection. */
export type SyncState = Pick<CalendarConnection, 'status' | 'lastSyncError' | 'lastSyncedAt' | 'etag' | 'lastModified' | 'updatedAt'> & {
  /** CalDAV: the account's calendars as just discovered. */
  calendars?: CalendarConnection['calendars'];
  /** Seconds from the database's now() to the next background sync (queue times are the database's). */
  nextSyncInSeconds: number;
};

function stateColumns({ nextSyncInSeconds, ...state }: Partial<SyncState>): Record<string, unknown> {
  const seconds = Math.max(0, Math.round(nextSyncInSeconds ?? 0));
  return nextSyncInSeconds === undefined ? state : { ...state, nextSyncAt: () => `now() + interval '${seconds} seconds'` };
}

/** Rows per INSERT when a sync replaces busy times. */
const BUSY_ROWS_PER_STATEMENT = 10_000;

/** Calendar connections and their busy times, scoped by organization (the re-sealing job's two methods excepted). */
@Injectable()
export class CalendarsRepository {
  constructor(private readonly tx: TransactionHost) {}

  async insert(scope: TenantScope, connection: CalendarConnection): Promise<void> {
    await this.tx.transactional.insert(CalendarConnection, { ...connection, organizationId: scope.organizationId });
  }

  /** Serializes a member's connection changes (limit, destination) until the transaction ends. */
  async lockMember(scope: TenantScope, memberId: string): Promise<void> {
    await this.tx.transactional.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`calendars:${scope.organizationId}:${memberId}`]);
  }

  async sourceConnected(scope: TenantScope, memberId: string, sourceHash: string): Promise<boolean> {
    return this.tx.reads.exists(CalendarConnection, { where: { organizationId: scope.organizationId, memberId, sourceHash } });
  }

  async countOfMember(scope: TenantScope, memberId: string): Promise<number> {
    return this.tx.reads.count(CalendarConnection, { where: { organizationId: scope.organizationId, memberId } });
  }

  async find(scope: TenantScope, id: string): Promise<CalendarConnection | null> {
    return this.tx.reads.findOne(CalendarConnection, { where: { organizationId: scope.organizationId, id } });
  }

  async list(scope: TenantScope, userId: string, page: PageRequest): Promise<[CalendarConnection[], number]> {
    return this.tx.reads.findAndCount(CalendarConnection, {
      where: { organizationId: scope.organizationId, userId },
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: pageOffset(page),
      take: page.limit,
    });
  }

  async update(scope: TenantScope, id: string, changes: Partial<CalendarConnection>): Promise<void> {
    await this.tx.transactional.update(CalendarConnection, { organizationId: scope.organizationId, id }, changes);
  }

  /** No calendar of the member's CalDAV accounts is the destination any more. */
  async clearDestinations(scope: TenantScope, memberId: string): Promise<void> {
    await this.tx.transactional.query(
      `UPDATE calendar_connections
          SET calendars = (SELECT coalesce(jsonb_agg(c || '{"isDestination": false}'::jsonb ORDER BY i), '[]'::jsonb)
                             FROM jsonb_array_elements(calendars) WITH ORDINALITY AS e(c, i))
        WHERE organization_id = $1 AND member_id = $2 AND type = 'caldav'`,
      [scope.organizationId, memberId],
    );
  }

  /** Its busy times go with it (ON DELETE CASCADE), so they stop blocking at once. */
  async delete(scope: TenantScope, id: string): Promise<boolean> {
    const result = await this.tx.transactional.delete(CalendarConnection, { organizationId: scope.organizationId, id });
    return (result.affected ?? 0) > 0;
  }

  /** Makes the connection due now and wakes the sync workers of every instance (on commit). */
  async requestSync(scope: TenantScope, id: string): Promise<void> {
    await this.tx.transactional.query(
      `WITH due AS (UPDATE calendar_connections SET next_sync_at = now() WHERE organization_id = $1 AND id = $2 RETURNING id)
       SELECT pg_notify('${CALENDAR_SYNC_CHANNEL}', id) FROM due`,
      [scope.organizationId, id],
    );
  }

  /** Replaces the connection's busy times and records the sync, in the caller's transaction. Returns the new count. */
  async replaceBusy(scope: TenantScope, id: string, userId: string, busy: readonly BusyInterval[], state: SyncState): Promise<number> {
    await this.tx.transactional.query(`DELETE FROM calendar_busy_times WHERE organization_id = $1 AND connection_id = $2`, [
      scope.organizationId,
      id,
    ]);
    // In statements of BUSY_ROWS_PER_STATEMENT: each stays well inside DB_STATEMENT_TIMEOUT_MS however large the feed
    // (a 100,000-event feed in one statement took over 5 s on a busy machine and came back as a 503).
    for (let from = 0; from < busy.length; from += BUSY_ROWS_PER_STATEMENT) {
      const part = busy.slice(from, from + BUSY_ROWS_PER_STATEMENT);
      await this.tx.transactional.query(
        `INSERT INTO calendar_busy_times (connection_id, organization_id, user_id, starts_at, ends_at)
         SELECT $1, $2, $3, to_timestamp(s::float8 / 1000), to_timestamp(e::float8 / 1000)
           FROM unnest($4::bigint[], $5::bigint[]) AS b(s, e)`,
        [id, scope.organizationId, userId, part.map((b) => b.start), part.map((b) => b.end)],
      );
    }
    await this.tx.transactional.update(
      CalendarConnection,
      { organizationId: scope.organizationId, id },
      { ...stateColumns(state), busyCount: busy.length },
    );
    return busy.length;
  }

  /** A failed sync: the stored busy times stay. */
  async recordSync(scope: TenantScope, id: string, state: Partial<SyncState>): Promise<void> {
    await this.tx.transactional.update(CalendarConnection, { organizationId: scope.organizationId, id }, stateColumns(state));
  }

  /** The member's stored busy times of connections that block, overlapping [from, to). */
  async busyOf(scope: TenantScope, userId: string, from: Date, to: Date): Promise<StoredBusy[]> {
    const rows: { connection_id: string; starts_at: Date; ends_at: Date }[] = await this.tx.reads.query(
      `SELECT b.connection_id, b.starts_at, b.ends_at FROM calendar_busy_times b
         JOIN calendar_connections c ON c.id = b.connection_id AND c.blocks_availability
        WHERE b.organization_id = $1 AND b.user_id = $2 AND b.ends_at > $3 AND b.starts_at < $4
        ORDER BY b.starts_at, b.ends_at`,
      [scope.organizationId, userId, from, to],
    );
    return rows.map((r) => ({ connectionId: r.connection_id, start: r.starts_at, end: r.ends_at }));
  }

  /** Re-sealing job: the sealed secrets of connections after `afterId`, across organizations. */
  async sealedSecretsAfter(afterId: string, limit: number): Promise<{ id: string; url: string; password: string | null }[]> {
    const rows: { id: string; sealed_url: string; sealed_password: string | null }[] = await this.tx.reads.query(
      `SELECT id, sealed_url, sealed_password FROM calendar_connections WHERE id > $1 ORDER BY id LIMIT $2`,
      [afterId, limit],
    );
    return rows.map((row) => ({ id: row.id, url: row.sealed_url, password: row.sealed_password }));
  }

  /** Re-sealing job: swaps a connection's sealed secrets, unless someone changed them meanwhile. */
  async replaceSealedSecrets(
    id: string,
    from: { url: string; password: string | null },
    to: { url: string; password: string | null },
  ): Promise<boolean> {
    const rows: unknown[] = await this.tx.outside('re-sealing swaps one row at a time, each on its own (compare and set)').query(
      `WITH changed AS (
         UPDATE calendar_connections SET sealed_url = $4, sealed_password = $5
          WHERE id = $1 AND sealed_url = $2 AND sealed_password IS NOT DISTINCT FROM $3
          RETURNING id)
       SELECT id FROM changed`,
      [id, from.url, from.password, to.url, to.password],
    );
    return rows.length > 0;
  }

  /** The member's CalDAV connection that holds its destination calendar, and that calendar's id. */
  async destinationOf(scope: TenantScope, userId: string): Promise<{ connection: CalendarConnection; calendarId: string } | null> {
    const connections = await this.tx.reads.find(CalendarConnection, {
      where: { organizationId: scope.organizationId, userId, type: 'caldav' },
    });
    for (const connection of connections) {
      const calendar = connection.calendars.find((c) => c.isDestination);
      if (calendar) return { connection, calendarId: calendar.id };
    }
    return null;
  }
}
