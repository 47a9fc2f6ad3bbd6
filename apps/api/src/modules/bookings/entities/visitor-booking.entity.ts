import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One booking a visitor made through a publishable key (api-rules.md § Browser booking): the per-visitor hourly limit
 * counts these rows, per key and client address, in the database so every instance counts the same. A series is one
 * row (its first occurrence): one request, one mail. Rows older than the hour are only history and are swept.
 */
@Entity('visitor_bookings')
@Index('visitor_bookings_visitor_created_idx', ['organizationId', 'apiKeyId', 'clientAddress', 'createdAt'])
@Index('visitor_bookings_created_idx', ['createdAt'])
export class VisitorBooking {
  @PrimaryColumn('text')
  bookingId!: string;

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
