import { ApiProperty, type ApiPropertyOptions, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsIn, IsInt, IsString, Length, Matches, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { ALL_ROLES, NestedObject, PaginationQueryDto, type Role, Optional } from '@app/common';
import type { MemberStatus } from '../entities/member.entity.js';
import { LOCALES, type Locale } from '../../../i18n/index.js';

export const MEMBER_STATUSES: readonly MemberStatus[] = ['invited', 'active'];

const trimLower = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim().toLowerCase() : value);

export class UpdateOrganizationDto {
  @ApiProperty({ minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100)
  @Matches(/\S/, { message: 'name must not be blank' })
  name!: string;

  @ApiPropertyOptional({
    enum: LOCALES,
    description:
      'What members without a locale of their own, attendees without one (or with one no catalog matches) and invitations ' +
      'read (contract § 23)',
  })
  @Optional()
  @IsIn(LOCALES)
  defaultLocale?: Locale;
}

export class InviteMemberDto {
  @ApiProperty({ format: 'email', maxLength: 254, description: 'Case-insensitive; stored lower-cased' })
  @Transform(trimLower)
  @IsEmail()
  @MaxLength(254)
  email!: string;

  @ApiProperty({ enum: ALL_ROLES })
  @IsIn(ALL_ROLES)
  role!: Role;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @Optional()
  @IsString()
  @Length(1, 100)
  firstName?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @Optional()
  @IsString()
  @Length(1, 100)
  lastName?: string;
}

/** `bookingLimits` in answers: an object or null (written out: a nullable `$ref` does not take null in OpenAPI 3.0). */
const BOOKING_LIMITS_SCHEMA = {
  type: 'object',
  nullable: true,
  // `required` is the object's own list here; the property itself is required in its parent too.
  selfRequired: true,
  required: ['perDay', 'perWeek'],
  properties: {
    perDay: { type: 'integer', nullable: true, minimum: 1, maximum: 100, description: 'null: no daily limit' },
    perWeek: { type: 'integer', nullable: true, minimum: 1, maximum: 500, description: 'null: no weekly limit' },
  },
} as ApiPropertyOptions;

/** The same in a write: either limit may be left out. */
const BOOKING_LIMITS_WRITE_SCHEMA = {
  type: 'object',
  nullable: true,
  properties: {
    perDay: {
      type: 'integer',
      nullable: true,
      minimum: 1,
      maximum: 100,
      description: 'Starts per local day of the member’s schedule zone',
    },
    perWeek: { type: 'integer', nullable: true, minimum: 1, maximum: 500, description: 'Starts per Monday-to-Sunday week there' },
  },
} as ApiPropertyOptions;

/** A member's booking limits across every event type (contract § 17); an absent limit is none. */
export class BookingLimitsDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 100,
    nullable: true,
    description: 'Starts per local day of the member’s schedule zone',
  })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(100)
  perDay?: number | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 500, nullable: true, description: 'Starts per Monday-to-Sunday week there' })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(500)
  perWeek?: number | null;
}

export class BookingLimitsView {
  @ApiProperty({ type: 'integer', nullable: true, minimum: 1, maximum: 100 }) perDay!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, minimum: 1, maximum: 500 }) perWeek!: number | null;
}

/** `role` and `bookingLimits` are each optional; at least one (the service says so). */
export class UpdateMemberDto {
  @ApiPropertyOptional({ enum: ALL_ROLES })
  @ValidateIf((_object: object, value: unknown) => value !== undefined)
  @IsIn(ALL_ROLES)
  role?: Role;

  @ApiPropertyOptional({
    ...BOOKING_LIMITS_WRITE_SCHEMA,
    description:
      'The member’s own limits across every event type it hosts (confirmed and pending bookings and live holds, each mode apart, ' +
      'seats of one start once); null removes them. A host at a limit gets no more slots that day or week.',
  })
  @Optional()
  @NestedObject(() => BookingLimitsDto)
  bookingLimits?: BookingLimitsDto | null;
}

export class ListMembersQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({ enum: MEMBER_STATUSES })
  @Optional()
  @IsIn(MEMBER_STATUSES)
  status?: MemberStatus;

  @ApiPropertyOptional({ enum: ALL_ROLES })
  @Optional()
  @IsIn(ALL_ROLES)
  role?: Role;
}

export class OrganizationView {
  @ApiProperty({ example: 'org_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'Derived from the name at registration; renaming keeps it' }) slug!: string;
  @ApiProperty({ enum: LOCALES, description: 'The locale of readers without one of their own (contract § 23); `en` by default' })
  defaultLocale!: string;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
}

export class OrganizationResponse {
  @ApiProperty({ type: OrganizationView }) organization!: OrganizationView;
}

/** A member as GET shows it; the same shape is the `data.member` of member.* events. */
export class MemberView {
  @ApiProperty({ example: 'mem_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiPropertyOptional({ example: 'usr_4f9QdY0m2kBz7Lr1Xc8VtN3a', description: 'Present for active members' }) userId?: string;
  @ApiProperty() email!: string;
  @ApiProperty({ type: String, nullable: true }) firstName!: string | null;
  @ApiProperty({ type: String, nullable: true }) lastName!: string | null;
  @ApiProperty({ enum: ALL_ROLES }) role!: Role;
  @ApiProperty({ enum: MEMBER_STATUSES }) status!: MemberStatus;
  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'Present for invited members' }) invitedAt?: string;
  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'Present for active members' }) joinedAt?: string;
  @ApiProperty({ ...BOOKING_LIMITS_SCHEMA, description: 'null: no limits (contract § 17)' })
  bookingLimits!: BookingLimitsView | null;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;
}

export class MemberListResponse {
  @ApiProperty({ type: MemberView, isArray: true }) members!: MemberView[];
  @ApiProperty({ type: 'integer' }) totalCount!: number;
  @ApiProperty() hasMore!: boolean;
}

export class InvitedMemberView {
  @ApiProperty({ example: 'mem_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ type: String, nullable: true }) firstName!: string | null;
  @ApiProperty({ type: String, nullable: true }) lastName!: string | null;
  @ApiProperty({ enum: ALL_ROLES }) role!: Role;
  @ApiProperty({ enum: ['invited'] }) status!: 'invited';
  @ApiProperty({ type: String, format: 'date-time' }) invitedAt!: string;
}

export class InvitedMemberResponse {
  @ApiProperty({ type: InvitedMemberView }) member!: InvitedMemberView;
}

export class MemberRoleView {
  @ApiProperty({ example: 'mem_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty({ enum: ALL_ROLES }) role!: Role;
  @ApiProperty({ ...BOOKING_LIMITS_SCHEMA, description: 'null: no limits' }) bookingLimits!: BookingLimitsView | null;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;
}

export class MemberRoleResponse {
  @ApiProperty({ type: MemberRoleView }) member!: MemberRoleView;
}

export class JoinedMemberView {
  @ApiProperty({ example: 'mem_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty({ example: 'usr_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) userId!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ enum: ALL_ROLES }) role!: Role;
  @ApiProperty({ enum: ['active'] }) status!: 'active';
  @ApiProperty({ type: String, format: 'date-time' }) joinedAt!: string;
}
