import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { BookingAnswer } from '../../booking-core/index.js';
import type { RouteTarget } from './routing-form.entity.js';

/**
 * One submission of a routing form: the answers as asked, the route they chose (a copy: later edits of the form do not
 * change it), and, once booked, the booking. `answers` is emptied by an attendee's erasure (contract § 18).
 */
@Entity('routing_responses')
@Index('routing_responses_form_created_idx', ['organizationId', 'routingFormId', 'createdAt'])
export class RoutingResponse {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  @Column('boolean')
  livemode!: boolean;

  @Column('text')
  routingFormId!: string;

  @Column('jsonb')
  answers!: BookingAnswer[];

  @Column('jsonb')
  route!: RouteTarget;

  @Column('integer', { nullable: true })
  matchedRoute!: number | null;

  @Column('text', { nullable: true })
  bookingId!: string | null;

  @Column('timestamptz')
  expiresAt!: Date;

  @Column('timestamptz')
  createdAt!: Date;
}
