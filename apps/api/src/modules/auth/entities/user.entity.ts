import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

@Entity('users')
export class User {
  @PrimaryColumn('text')
  id!: string;

  /** Stored lower-cased: emails are case-insensitive and unique across the service. */
  @Index('users_email_key', { unique: true })
  @Column('text')
  email!: string;

  @Column('text')
  passwordHash!: string;

  @Column('text', { nullable: true })
  firstName!: string | null;

  @Column('text', { nullable: true })
  lastName!: string | null;

  @Column('text', { default: 'UTC' })
  timezone!: string;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  updatedAt!: Date;
}
