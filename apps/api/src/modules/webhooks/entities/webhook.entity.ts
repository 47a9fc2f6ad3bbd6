import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

@Entity('webhooks')
@Index('webhooks_organization_livemode_created_idx', ['organizationId', 'livemode', 'createdAt'])
export class Webhook {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  /** False for webhooks made with test-mode keys: they only ever receive test-mode events. */
  @Column('boolean')
  livemode!: boolean;

  @Column('text')
  url!: string;

  /** Event names, or `*` for all. */
  @Column('text', { array: true })
  events!: string[];

  @Column('text', { nullable: true })
  description!: string | null;

  @Column('boolean')
  active!: boolean;

  /** The signing secret, sealed by `SecretBox` (AES-256-GCM); it never leaves the module in clear except in the create response. */
  @Column('text')
  secretCiphertext!: string;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  updatedAt!: Date;
}
