import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One response a visitor submitted through a publishable key (contract § 22): the per-visitor hourly limit counts these
 * rows per client address (the key is kept as history) in the database, as visitor_bookings does for public bookings, so every instance
 * counts the same. Rows older than the hour are only history and are swept; erasure deletes the rows of the responses
 * it empties.
 */
@Entity('visitor_responses')
@Index('visitor_responses_visitor_created_idx', ['organizationId', 'clientAddress', 'createdAt'])
@Index('visitor_responses_created_idx', ['createdAt'])
export class VisitorResponse {
  @PrimaryColumn('text')
  responseId!: string;

  @Column('text')
  organizationId!: string;

  @Column('text')
  apiKeyId!: string;

  /** An IPv4 address or an IPv6 /64 (clientAddressOf). */
  @Column('text')
  clientAddress!: string;

  @Column('timestamptz')
  createdAt!: Date;
}
