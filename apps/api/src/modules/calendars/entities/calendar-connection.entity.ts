import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { RemoteCalendar } from '../../calendar-sources/index.js';

export type CalendarType = 'ics' | 'caldav';
export type CalendarStatus = 'ok' | 'error';

/**
 * A member's connected calendar (api-rules.md § Calendars). The source's secret parts (an ICS URL's path, a
 * CalDAV password) are sealed (`CalendarSecrets`); `displayUrl` is what the API shows.
 */
@Entity('calendar_connections')
@Index('calendar_connections_member_source_key', ['memberId', 'sourceHash'], { unique: true })
@Index('calendar_connections_organization_user_idx', ['organizationId', 'userId', 'createdAt'])
@Index('calendar_connections_due_idx', ['nextSyncAt'])
// The queue's next wake-up finds the rows leased now by this (LeaseQueue); only they have a lease end.
@Index('calendar_connections_leased_idx', ['lockedUntil'], { where: '"locked_until" IS NOT NULL' })
export class CalendarConnection {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  /** The connection goes with the membership (foreign key in the migration, ON DELETE CASCADE). */
  @Column('text')
  memberId!: string;

  @Column('text')
  userId!: string;

  @Column('text')
  type!: CalendarType;

  @Column('text')
  name!: string;

  @Column('text')
  displayUrl!: string;

  /** The whole source URL, sealed. */
  @Column('text')
  sealedUrl!: string;

  /** sha256 of the normalised source URL (and username): the same source twice for one member is refused. */
  @Column('text')
  sourceHash!: string;

  @Column('text', { nullable: true })
  username!: string | null;

  @Column('text', { nullable: true })
  sealedPassword!: string | null;

  @Column('boolean', { default: true })
  blocksAvailability!: boolean;

  @Column('jsonb', { default: () => "'[]'" })
  calendars!: RemoteCalendar[];

  @Column('text')
  status!: CalendarStatus;

  @Column('timestamptz', { nullable: true })
  lastSyncedAt!: Date | null;

  @Column('text', { nullable: true })
  lastSyncError!: string | null;

  @Column('integer', { default: 0 })
  busyCount!: number;

  /** Validators of the last ICS response, for conditional requests. */
  @Column('text', { nullable: true })
  etag!: string | null;

  @Column('text', { nullable: true })
  lastModified!: string | null;

  @Column('timestamptz')
  nextSyncAt!: Date;

  /** A worker's lease on the connection while it syncs it. */
  @Column('timestamptz', { nullable: true })
  lockedUntil!: Date | null;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  updatedAt!: Date;
}
