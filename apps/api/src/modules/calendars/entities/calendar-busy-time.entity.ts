import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One busy interval read from a connection; a sync replaces all of a connection's rows at once. */
@Entity('calendar_busy_times')
@Index('calendar_busy_times_connection_idx', ['connectionId'])
@Index('calendar_busy_times_organization_user_idx', ['organizationId', 'userId', 'startsAt'])
export class CalendarBusyTime {
  @PrimaryGeneratedColumn('identity', { type: 'bigint' })
  id!: string;

  /** Foreign key to calendar_connections in the migration, ON DELETE CASCADE. */
  @Column('text')
  connectionId!: string;

  @Column('text')
  organizationId!: string;

  @Column('text')
  userId!: string;

  @Column('timestamptz')
  startsAt!: Date;

  @Column('timestamptz')
  endsAt!: Date;
}
