import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { WebhookDelivery } from './webhook-delivery.entity.js';

/** The log of every attempt of a delivery; an attempt cut off by a crash is counted on the delivery but has no row. */
@Entity('webhook_attempts')
export class WebhookAttempt {
  @PrimaryColumn('text')
  deliveryId!: string;

  @ManyToOne(() => WebhookDelivery, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'delivery_id' })
  delivery?: Relation<WebhookDelivery>;

  /** 1-based; the delivery's `attempts` when it was claimed. */
  @PrimaryColumn('integer')
  attempt!: number;

  @Column('text')
  organizationId!: string;

  /** The partition key (monthly, docs/operating/partitions.md), hence part of the primary key. */
  @PrimaryColumn('timestamptz')
  startedAt!: Date;

  @Column('integer')
  durationMs!: number;

  @Column('integer', { nullable: true })
  responseStatus!: number | null;

  @Column('text', { nullable: true })
  error!: string | null;
}
