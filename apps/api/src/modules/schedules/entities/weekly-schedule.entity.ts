import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

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

  @Column('text')
  memberId!: string;

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
