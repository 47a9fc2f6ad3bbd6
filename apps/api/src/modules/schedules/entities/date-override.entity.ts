import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { StoredTimeSlot } from './weekly-schedule.entity.js';

export type OverrideType = 'unavailable' | 'custom';

/** Replaces one local date of a member's weekly hours; the date is in the member's schedule zone. */
@Entity('date_overrides')
// One override per member and date; the index is what makes a concurrent second one a 409.
@Index('date_overrides_member_date_key', ['memberId', 'date'], { unique: true })
@Index('date_overrides_organization_user_date_idx', ['organizationId', 'userId', 'date'])
export class DateOverrideEntity {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  @Column('text')
  memberId!: string;

  @Column('text')
  userId!: string;

  /** 'YYYY-MM-DD' (TypeORM hands `date` columns over as strings, never as shifted Dates). */
  @Column('date')
  date!: string;

  @Column('text')
  type!: OverrideType;

  @Column('text', { nullable: true })
  reason!: string | null;

  /** Empty for `unavailable`. */
  @Column('jsonb')
  slots!: StoredTimeSlot[];

  @Column('timestamptz')
  createdAt!: Date;
}
