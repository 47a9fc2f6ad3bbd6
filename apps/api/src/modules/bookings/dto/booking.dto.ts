import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { IsIanaTimeZone, IsStorableTime, PaginationQueryDto, IsId, Optional } from '@app/common';
import { ISO_TIMESTAMP, trimLower } from '../../booking-core/index.js';
import {
  AttendeeBookingView,
  BookingDetailView,
  BookingView,
  CancelledBookingView,
  RescheduledBookingView,
} from '../../booking-effects/index.js';
import { SeriesView } from '../../booking-series/index.js';

/** Who may be marked as not having come to a meeting. */
export const NO_SHOW_PARTIES = ['attendee', 'host'] as const;
export type NoShowParty = (typeof NO_SHOW_PARTIES)[number];

export class CancelBookingDto {
  @ApiPropertyOptional({ description: 'The attendee’s token (confirmationToken); hosts authenticate instead' })
  @Optional()
  @IsString()
  @MaxLength(200)
  token?: string;

  @ApiPropertyOptional({ maxLength: 500 })
  @Optional()
  @IsString()
  @MaxLength(500)
  reason?: string;

  @ApiPropertyOptional({
    enum: ['this', 'following'],
    default: 'this',
    description: 'An occurrence of a series: `following` also cancels every later active occurrence, in one transaction, with one mail',
  })
  @Optional()
  @IsIn(['this', 'following'])
  scope?: 'this' | 'following';
}

export class RescheduleBookingDto {
  @ApiPropertyOptional({ description: 'The attendee’s token (confirmationToken); hosts authenticate instead' })
  @Optional()
  @IsString()
  @MaxLength(200)
  token?: string;

  @ApiProperty({ example: '2027-03-03T10:00:00Z' })
  @IsString()
  @Matches(ISO_TIMESTAMP, { message: 'newStartTime must be an ISO 8601 timestamp' })
  @IsStorableTime('timezone')
  newStartTime!: string;

  @ApiPropertyOptional({ description: 'Zone of a newStartTime without offset; default the booking’s timezone' })
  @Optional()
  @IsIanaTimeZone()
  timezone?: string;

  @ApiPropertyOptional({ maxLength: 500 })
  @Optional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

export class ReassignBookingDto {
  @ApiPropertyOptional({
    example: 'usr_4f9QdY0m2kBz7Lr1Xc8VtN3a',
    description: 'Any active member free at the booking’s time; without it, the next host of a round-robin event type by its rotation',
  })
  @Optional()
  @IsId('usr')
  hostUserId?: string;

  @ApiPropertyOptional({
    example: 'usr_7Hq2LmX9pR4sT1vW6yZ0aB3c',
    description:
      'The host whose place is handed over (default: the first host; for a member, the member itself). A member may hand over ' +
      'only its own place: another host’s → 403 FORBIDDEN',
  })
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @IsId('usr')
  fromHostUserId?: string;
}

export class DecisionDto {
  @ApiPropertyOptional({ maxLength: 500 })
  @Optional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

const DATE_OR_TIMESTAMP = /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}(:?\d{2})?))?$/;

export class ListBookingsQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({ enum: ['confirmed', 'cancelled', 'pending'] })
  @Optional()
  @IsIn(['confirmed', 'cancelled', 'pending'])
  status?: 'confirmed' | 'cancelled' | 'pending';

  @ApiPropertyOptional({ description: 'Date (inclusive, UTC) or timestamp; filters startsAt' })
  @Optional()
  @Matches(DATE_OR_TIMESTAMP, { message: 'startDate must be a date (YYYY-MM-DD) or an ISO 8601 timestamp' })
  @IsStorableTime()
  startDate?: string;

  @ApiPropertyOptional({ description: 'Date (inclusive, UTC) or timestamp; filters startsAt' })
  @Optional()
  @Matches(DATE_OR_TIMESTAMP, { message: 'endDate must be a date (YYYY-MM-DD) or an ISO 8601 timestamp' })
  @IsStorableTime()
  endDate?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsString()
  @IsId('evt')
  eventTypeId?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsString()
  @IsId('usr')
  hostUserId?: string;

  @ApiPropertyOptional()
  @Optional()
  @Transform(trimLower)
  @IsString()
  @MaxLength(254)
  attendeeEmail?: string;

  @ApiPropertyOptional({ description: 'The occurrences of one recurring series' })
  @Optional()
  @IsString()
  @IsId('ser')
  seriesId?: string;

  @ApiPropertyOptional({ enum: NO_SHOW_PARTIES, description: 'The bookings with that no-show mark' })
  @Optional()
  @IsIn(NO_SHOW_PARTIES)
  noShow?: NoShowParty;
}

/** POST /bookings/:id/no-show (api-rules.md § Reminders). */
export class NoShowDto {
  @ApiProperty({ enum: NO_SHOW_PARTIES, description: 'Who did not come' })
  @IsIn(NO_SHOW_PARTIES)
  party!: NoShowParty;

  @ApiPropertyOptional({ default: true, description: 'false takes the mark back' })
  @Optional()
  @IsBoolean()
  noShow?: boolean;

  @ApiPropertyOptional({ description: 'The attendee’s confirmationToken, instead of host credentials; it may mark only the host' })
  @Optional()
  @IsString()
  @MaxLength(200)
  token?: string;
}

export class CreatedBookingView extends BookingView {
  @ApiPropertyOptional({
    description:
      'The attendee’s token for cancel and reschedule; shown only here and in the email. Absent when an Idempotency-Key replays a booking whose attendee was erased since',
  })
  confirmationToken?: string;
}

export class CreatedBookingResponse {
  @ApiProperty({ type: CreatedBookingView, description: 'With recurrenceCount: the first occurrence; its token opens every one' })
  booking!: CreatedBookingView;
  @ApiPropertyOptional({ type: SeriesView, description: 'Only with recurrenceCount' }) series?: SeriesView;
}

export class BookingResponse {
  @ApiProperty({ type: BookingDetailView }) booking!: BookingDetailView;
}

export class CancelledBookingResponse {
  @ApiProperty({ type: CancelledBookingView }) booking!: CancelledBookingView;
  @ApiPropertyOptional({
    type: String,
    isArray: true,
    description: 'With `scope: "following"`: every occurrence this request cancelled, this one first',
  })
  cancelledBookingIds?: string[];
}

export class RescheduledBookingResponse {
  @ApiProperty({ type: RescheduledBookingView }) booking!: RescheduledBookingView;
}

export class BookingListResponse {
  @ApiProperty({ type: BookingDetailView, isArray: true }) bookings!: BookingDetailView[];
  @ApiProperty({ type: 'integer' }) totalCount!: number;
  @ApiProperty() hasMore!: boolean;
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) limit!: number;
}

export class PublicBookingResponse {
  @ApiProperty({ type: AttendeeBookingView, description: 'With recurrenceCount: the first occurrence; its token opens every one' })
  booking!: AttendeeBookingView;
  @ApiPropertyOptional({ type: SeriesView, description: 'Only when POST /public/bookings booked a series (recurrenceCount)' })
  series?: SeriesView;
}
