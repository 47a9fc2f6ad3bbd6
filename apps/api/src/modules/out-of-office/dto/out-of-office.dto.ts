import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';
import { IsId, IsStorableTime, PaginationQueryDto, Optional } from '@app/common';

/** ISO 8601 with or without an offset (without one: UTC). */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}(:?\d{2})?)?$/;
export const MAX_OUT_OF_OFFICE_DAYS = 366;
export const MAX_NOTE_LENGTH = 200;
export const MAX_EXTERNAL_ID_LENGTH = 200;
/** Bookings listed per entry in `affectedBookings`. */
export const MAX_AFFECTED_BOOKINGS = 100;

const WHEN = 'ISO 8601; with Z or an offset it is absolute, without one it is UTC.';

export class OutOfOfficeFieldsDto {
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: MAX_NOTE_LENGTH })
  @Optional()
  @IsString()
  @MaxLength(MAX_NOTE_LENGTH)
  note?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'usr_4f9QdY0m2kBz7Lr1Xc8VtN3a',
    description: 'An active member other than the absent one: takes the absent host’s place during the entry',
  })
  @Optional()
  @IsId('usr')
  redirectToUserId?: string | null;
}

export class CreateOutOfOfficeDto extends OutOfOfficeFieldsDto {
  @ApiPropertyOptional({ example: 'usr_4f9QdY0m2kBz7Lr1Xc8VtN3a', description: 'Default: the caller. Another member’s: owner/admin.' })
  @Optional()
  @IsId('usr')
  userId?: string;

  @ApiProperty({ example: '2027-08-02T00:00:00Z', format: 'date-time', description: WHEN })
  @IsString()
  @Matches(TIMESTAMP, { message: 'startsAt must be an ISO 8601 timestamp' })
  @IsStorableTime()
  startsAt!: string;

  @ApiProperty({
    example: '2027-08-16T00:00:00Z',
    format: 'date-time',
    description: `${WHEN} After startsAt, at most ${MAX_OUT_OF_OFFICE_DAYS} days later.`,
  })
  @IsString()
  @Matches(TIMESTAMP, { message: 'endsAt must be an ISO 8601 timestamp' })
  @IsStorableTime()
  endsAt!: string;
}

export class UpdateOutOfOfficeDto extends OutOfOfficeFieldsDto {
  @ApiPropertyOptional({ example: '2027-08-02T00:00:00Z', format: 'date-time', description: WHEN })
  @Optional()
  @IsString()
  @Matches(TIMESTAMP, { message: 'startsAt must be an ISO 8601 timestamp' })
  @IsStorableTime()
  startsAt?: string;

  @ApiPropertyOptional({ example: '2027-08-16T00:00:00Z', format: 'date-time', description: WHEN })
  @Optional()
  @IsString()
  @Matches(TIMESTAMP, { message: 'endsAt must be an ISO 8601 timestamp' })
  @IsStorableTime()
  endsAt?: string;
}

export class ListOutOfOfficeQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({
    description: 'Whose entries; a member sees only its own (the default for members). Owners, admins and keys: all without it.',
  })
  @Optional()
  @IsId('usr')
  userId?: string;

  @ApiPropertyOptional({ description: `Entries ending after this instant. ${WHEN}` })
  @Optional()
  @IsString()
  @Matches(TIMESTAMP, { message: 'from must be an ISO 8601 timestamp' })
  @IsStorableTime()
  from?: string;

  @ApiPropertyOptional({ description: `Entries starting before this instant. ${WHEN}` })
  @Optional()
  @IsString()
  @Matches(TIMESTAMP, { message: 'to must be an ISO 8601 timestamp' })
  @IsStorableTime()
  to?: string;
}

export class ExternalIdParamDto {
  @ApiProperty({ minLength: 1, maxLength: MAX_EXTERNAL_ID_LENGTH })
  @IsString()
  @MaxLength(MAX_EXTERNAL_ID_LENGTH)
  externalId!: string;
}

export class AffectedBookingView {
  @ApiProperty({ example: 'bkg_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty({ type: String, format: 'date-time' }) startsAt!: string;
  @ApiProperty({ enum: ['confirmed', 'pending'] }) status!: string;
}

export class OutOfOfficeView {
  @ApiProperty({ example: 'ooo_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty({ example: 'usr_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) userId!: string;
  @ApiProperty({ type: String, format: 'date-time' }) startsAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) endsAt!: string;
  @ApiProperty({ type: String, nullable: true }) note!: string | null;
  @ApiProperty({ type: String, nullable: true }) redirectToUserId!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Set by PUT /out-of-office/by-external-id/:externalId' })
  externalId!: string | null;
  @ApiProperty({
    type: AffectedBookingView,
    isArray: true,
    description: `The confirmed and pending bookings (this mode) the user hosts that overlap the entry and have not started, by start; at most ${MAX_AFFECTED_BOOKINGS}. Never cancelled or moved: reassign them.`,
  })
  affectedBookings!: AffectedBookingView[];
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;
}

export class OutOfOfficeResponse {
  @ApiProperty({ type: OutOfOfficeView }) outOfOffice!: OutOfOfficeView;
}

export class OutOfOfficeListResponse {
  @ApiProperty({ type: OutOfOfficeView, isArray: true, description: 'By startsAt' }) outOfOffice!: OutOfOfficeView[];
  @ApiProperty({ type: 'integer' }) totalCount!: number;
  @ApiProperty() hasMore!: boolean;
}
