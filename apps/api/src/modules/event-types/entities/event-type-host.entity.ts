import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { EventType } from './event-type.entity.js';

/**
 * One host of an event type. Keyed by membership so that removing a member (the Team module deletes
 * the member row) takes it off every host list by cascade; `userId` is kept beside it because the API
 * and the bookings speak in user ids.
 */
@Entity('event_type_hosts')
@Index('event_type_hosts_member_idx', ['memberId'])
export class EventTypeHost {
  @PrimaryColumn('text')
  eventTypeId!: string;

  @ManyToOne(() => EventType, (eventType) => eventType.hosts, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'event_type_id' })
  eventType?: Relation<EventType>;

  @PrimaryColumn('text')
  memberId!: string;

  @Column('text')
  userId!: string;

  /** Order of `hostUserIds`: round robin breaks ties by it and collective reports the first host. */
  @Column('integer')
  position!: number;
}
