import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One change made through the API (contract § 18). Written once in the change's transaction, never updated but for an
 * erasure, which clears `ip` and `userAgent` of the entries the erased attendee's own requests wrote.
 */
@Entity('audit_entries')
export class AuditEntry {
  /** `aud_…` */
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  @Column('timestamptz')
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
