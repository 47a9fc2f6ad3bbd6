import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

@Entity('organizations')
export class Organization {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  name!: string;

  @Index('organizations_slug_key', { unique: true })
  @Column('text')
  slug!: string;

  /** What a reader without a locale of their own reads (contract § 23): one of the catalogs' locales. */
  @Column('text', { default: 'en' })
  defaultLocale!: string;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  updatedAt!: Date;
}
