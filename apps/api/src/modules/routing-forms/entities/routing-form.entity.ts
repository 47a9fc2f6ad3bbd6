import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { BookingQuestion } from '../../event-types/index.js';
import type { RoutingRule } from '../routing-rules.js';

/** Where a route sends the visitor (contract § 22): one of the three kinds. */
export type RouteTarget = { eventTypeId: string; hostUserIds?: string[] } | { message: string } | { url: string };

/** A routing form (contract § 22): its fields, its routes in order and the fallback, as saved (checked at save). */
@Entity('routing_forms')
@Index('routing_forms_organization_created_idx', ['organizationId', 'createdAt'])
export class RoutingForm {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  @Column('text')
  name!: string;

  @Column('jsonb')
  fields!: BookingQuestion[];

  @Column('jsonb')
  routes!: RoutingRule<RouteTarget>[];

  @Column('jsonb')
  fallback!: RouteTarget;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  updatedAt!: Date;
}
