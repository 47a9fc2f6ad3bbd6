import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { Member } from '../../team/entities/member.entity.js';
import { Organization } from '../../team/entities/organization.entity.js';

export interface StoredTimeSlot {
  startTime: string;
  endTime: string;
}

export interface StoredScheduleDay {
  dayOfWeek: number;
  slots: StoredTimeSlot[];
}

/** A member's weekly hours (one per member); it goes with the membership. */
@Entity('weekly_schedules')
@Index('weekly_schedules_member_key', ['memberId'], { unique: true })
@Index('weekly_schedules_organization_user_key', ['organizationId', 'userId'], { unique: true })
export class WeeklyScheduleEntity {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  @ManyToOne(() => Organization, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'organization_id' })
  organization?: Relation<Organization>;

  @Column('text')
  memberId!: string;

  @ManyToOne(() => Member, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'member_id' })
  member?: Relation<Member>;

  @Column('text')
  userId!: string;

  @Column('text')
  timezone!: string;

  /** Sorted by dayOfWeek, each day's slots by startTime; days not listed are unavailable. */
  @Column('jsonb')
  days!: StoredScheduleDay[];

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  updatedAt!: Date;
}
