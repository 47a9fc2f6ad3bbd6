import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One change made through the API (contract § 18). Written once in the change's transaction, never updated but for an
 * erasure, which clears `ip` and `userAgent` of the entries the erased attendee's own requests wrote.
 *
 * The table also has `tx_id xid8 NOT NULL DEFAULT pg_current_xact_id()` (migration AuditSettlementOrder), the writing
 * transaction's id, by which the log is paged in the order entries became visible. It is not declared here: TypeORM
 * knows no `xid8` type, and nothing reads the table through this entity (the repository's SQL names it). A generated
 * migration proposes to drop it: delete that statement when you review it, as for the cross-module keys.
 */
@Entity('audit_entries')
export class AuditEntry {
  /** `aud_…` */
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  /** The partition key (monthly, docs/operating/partitions.md), hence part of the primary key. */
  @PrimaryColumn('timestamptz')
  occurredAt!: Date;

  @Column('text')
  action!: string;

  @Column('text')
  actorType!: string;

  @Column('text', { nullable: true })
  actorId!: string | null;

  @Column('text', { nullable: true })
  actorLabel!: string | null;

  @Column('text')
  resourceType!: string;

  @Column('text', { nullable: true })
  resourceId!: string | null;

  @Column('text', { nullable: true })
  requestId!: string | null;

  @Column('text', { nullable: true })
  ip!: string | null;

  @Column('text', { nullable: true })
  userAgent!: string | null;

  @Column('jsonb', { nullable: true })
  changes!: Record<string, { from: unknown; to: unknown }> | null;

  @Column('jsonb', { nullable: true })
  details!: Record<string, unknown> | null;
}
