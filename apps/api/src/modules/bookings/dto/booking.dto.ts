import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsIanaTimeZone, IsStorableTime, PaginationQueryDto, IsId } from '@app/common';
import { SERIES_FREQUENCIES, type SeriesFrequency } from '@app/calendar';
import { type AnswerValue, ISO_TIMESTAMP, trimLower } from '../../booking-core/index.js';
import { QUESTION_TYPES, type QuestionType } from '../../event-types/index.js';

/** Who may be marked as not having come to a meeting. */
export const NO_SHOW_PARTIES = ['attendee', 'host'] as const;
export type NoShowParty = (typeof NO_SHOW_PARTIES)[number];

export class CancelBookingDto {
  @ApiPropertyOptional({ description: 'The attendee’s token (confirmationToken); hosts authenticate instead' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  token?: string;

  @ApiPropertyOptional({ maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;

  @ApiPropertyOptional({
    enum: ['this', 'following'],
    default: 'this',
    description: 'An occurrence of a series: `following` also cancels every later active occurrence, in one transaction, with one mail',
  })
  @IsOptional()
  @IsIn(['this', 'following'])
  scope?: 'this' | 'following';
}

export class RescheduleBookingDto {
  @ApiPropertyOptional({ description: 'The attendee’s token (confirmationToken); hosts authenticate instead' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  token?: string;

  @ApiProperty({ example: '2027-03-03T10:00:00Z' })
  @IsString()
  @Matches(ISO_TIMESTAMP, { message: 'newStartTime must be an ISO 8601 timestamp' })
  @IsStorableTime('timezone')
  newStartTime!: string;

  @ApiPropertyOptional({ description: 'Zone of a newStartTime without offset; default the booking’s timezone' })
  @IsOptional()
  @IsIanaTimeZone()
  timezone?: string;

  @ApiPropertyOptional({ maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

export class DecisionDto {
  @ApiPropertyOptional({ maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

const DATE_OR_TIMESTAMP = /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}(:?\d{2})?))?$/;

export class ListBookingsQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({ enum: ['confirmed', 'cancelled', 'pending'] })
  @IsOptional()
  @IsIn(['confirmed', 'cancelled', 'pending'])
  status?: 'confirmed' | 'cancelled' | 'pending';

  @ApiPropertyOptional({ description: 'Date (inclusive, UTC) or timestamp; filters startsAt' })
  @IsOptional()
  @Matches(DATE_OR_TIMESTAMP, { message: 'startDate must be a date (YYYY-MM-DD) or an ISO 8601 timestamp' })
  @IsStorableTime()
  startDate?: string;

  @ApiPropertyOptional({ description: 'Date (inclusive, UTC) or timestamp; filters startsAt' })
  @IsOptional()
  @Matches(DATE_OR_TIMESTAMP, { message: 'endDate must be a date (YYYY-MM-DD) or an ISO 8601 timestamp' })
  @IsStorableTime()
  endDate?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsId('evt')
  eventTypeId?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsId('usr')
  hostUserId?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @Transform(trimLower)
  @IsString()
  @MaxLength(254)
  attendeeEmail?: string;

  @ApiPropertyOptional({ description: 'The occurrences of one recurring series' })
  @IsOptional()
  @IsString()
  @IsId('ser')
  seriesId?: string;

  @ApiPropertyOptional({ enum: NO_SHOW_PARTIES, description: 'The bookings with that no-show mark' })
  @IsOptional()
  @IsIn(NO_SHOW_PARTIES)
  noShow?: NoShowParty;
}

/** POST /bookings/:id/no-show (api-rules.md § Reminders). */
export class NoShowDto {
  @ApiProperty({ enum: NO_SHOW_PARTIES, description: 'Who did not come' })
  @IsIn(NO_SHOW_PARTIES)
  party!: NoShowParty;

  @ApiPropertyOptional({ default: true, description: 'false takes the mark back' })
  @IsOptional()
  @IsBoolean()
  noShow?: boolean;

  @ApiPropertyOptional({ description: 'The attendee’s confirmationToken, instead of host credentials; it may mark only the host' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  token?: string;
}

export class NoShowView {
  @ApiProperty({ description: 'The attendee did not come' }) attendee!: boolean;
  @ApiProperty({ description: 'The host did not come' }) host!: boolean;
}

export class AttendeeView {
  @ApiProperty() email!: string;
  @ApiProperty({ nullable: true, type: String }) firstName!: string | null;
  @ApiProperty({ nullable: true, type: String }) lastName!: string | null;
  @ApiProperty({ nullable: true, type: String }) phone!: string | null;
}

export class BookingEventTypeView {
  @ApiProperty() id!: string;
  @ApiProperty() title!: string;
  @ApiProperty() slug!: string;
  @ApiProperty({ type: 'integer' }) durationMinutes!: number;
}

/** One answer as the booking keeps it: the question as asked at booking time. */
export class BookingAnswerView {
  @ApiProperty() id!: string;
  @ApiProperty({ description: 'The question’s label when the booking was made' }) label!: string;
  @ApiProperty({ enum: QUESTION_TYPES }) type!: QuestionType;
  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'array', items: { type: 'string' } }],
    description: 'text, textarea, email, phone, select, date: a string; number: a number; checkbox: a boolean; multiselect: strings',
  })
  value!: AnswerValue;
}

export class BookingView {
  @ApiProperty({ example: 'bkg_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty() eventTypeId!: string;
  @ApiProperty() hostUserId!: string;
  @ApiProperty({ type: String, isArray: true }) hostUserIds!: string[];
  @ApiProperty({ type: String, format: 'date-time' }) startsAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) endsAt!: string;
  @ApiProperty({ enum: ['confirmed', 'pending', 'cancelled'] }) status!: string;
  @ApiProperty({ type: AttendeeView }) attendee!: AttendeeView;
  @ApiProperty() timezone!: string;
  @ApiProperty({ nullable: true, type: String }) locationType!: string | null;
  @ApiProperty({ nullable: true, type: String }) location!: string | null;
  @ApiProperty({ nullable: true, type: String }) notes!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) metadata!: Record<string, string>;
  @ApiProperty({ type: BookingAnswerView, isArray: true, description: 'Answers to the event type’s questions, in their order' })
  answers!: BookingAnswerView[];
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty() livemode!: boolean;
  @ApiProperty({ type: String, nullable: true, example: 'ser_4f9QdY0m2kBz7Lr1Xc8VtN3a', description: 'Its recurring series, if any' })
  seriesId!: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: '1-based place in its series' }) occurrence!: number | null;
  @ApiProperty({ type: NoShowView, description: 'Marked once the meeting has started (POST /bookings/:id/no-show)' })
  noShow!: NoShowView;
}

export class CreatedBookingView extends BookingView {
  @ApiProperty({ description: 'The attendee’s token for cancel and reschedule; shown only here and in the email' })
  confirmationToken!: string;
}

/** One reminder of a booking (api-rules.md § Reminders). */
export class BookingReminderView {
  @ApiProperty({ type: 'integer' }) minutesBefore!: number;
  @ApiProperty({ type: String, format: 'date-time' }) dueAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'null until its mails and event are written' })
  sentAt!: string | null;
}

export class BookingDetailView extends BookingView {
  @ApiProperty({ type: BookingEventTypeView }) eventType!: BookingEventTypeView;
  @ApiProperty({ nullable: true, type: String, description: 'The event type’s location when it is a link' }) meetingUrl!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) cancelledAt!: string | null;
  @ApiProperty({ nullable: true, type: String }) cancellationReason!: string | null;
  @ApiProperty({ nullable: true, enum: ['host', 'attendee'], type: String }) cancelledBy!: string | null;
  @ApiProperty({ nullable: true, type: String }) previousBookingId!: string | null;
  @ApiProperty({ nullable: true, type: String }) rescheduledToBookingId!: string | null;
  @ApiPropertyOptional({
    type: BookingReminderView,
    isArray: true,
    description:
      'Only on `GET /bookings/:id`: the reminders of its event type that apply to it, earliest due first. A reminder whose time ' +
      'had passed when the booking was confirmed is absent; one that fell due while no instance ran and the meeting started ' +
      'before it could go stays with `sentAt` null.',
  })
  reminders?: BookingReminderView[];
}

/** One occurrence as a series lists it. */
export class SeriesOccurrenceView {
  @ApiProperty({ example: 'bkg_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty({ type: String, format: 'date-time' }) startsAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) endsAt!: string;
  @ApiProperty({ enum: ['confirmed', 'pending', 'cancelled'] }) status!: string;
}

export class SeriesView {
  @ApiProperty({ example: 'ser_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty({ type: 'integer', description: 'Occurrences booked' }) count!: number;
  @ApiProperty({ type: SeriesOccurrenceView, isArray: true, description: 'By occurrence; a rescheduled one as it is now' })
  bookings!: SeriesOccurrenceView[];
}

export class CreatedBookingResponse {
  @ApiProperty({ type: CreatedBookingView, description: 'With recurrenceCount: the first occurrence; its token opens every one' })
  booking!: CreatedBookingView;
  @ApiPropertyOptional({ type: SeriesView, description: 'Only with recurrenceCount' }) series?: SeriesView;
}

export class BookingResponse {
  @ApiProperty({ type: BookingDetailView }) booking!: BookingDetailView;
}

export class CancelledBookingView {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: ['cancelled'] }) status!: 'cancelled';
  @ApiProperty({ type: String, format: 'date-time' }) cancelledAt!: string;
  @ApiProperty({ nullable: true, type: String }) cancellationReason!: string | null;
  @ApiProperty({ enum: ['host', 'attendee'] }) cancelledBy!: string;
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

export class SeriesDetailView extends SeriesView {
  @ApiProperty() eventTypeId!: string;
  @ApiProperty({ enum: SERIES_FREQUENCIES, enumName: 'RecurrenceFrequency' }) frequency!: SeriesFrequency;
  @ApiProperty({ type: 'integer' }) interval!: number;
  @ApiProperty({ description: 'The zone whose wall-clock time every occurrence keeps' }) timezone!: string;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty() livemode!: boolean;
}

export class SeriesResponse {
  @ApiProperty({ type: SeriesDetailView }) series!: SeriesDetailView;
}

export class RescheduledBookingView {
  @ApiProperty({ description: 'The new booking' }) id!: string;
  @ApiProperty() previousBookingId!: string;
  @ApiProperty({ type: String, format: 'date-time' }) startsAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) endsAt!: string;
  @ApiProperty({ enum: ['confirmed', 'pending'] }) status!: string;
  @ApiProperty() hostUserId!: string;
  @ApiProperty() confirmationToken!: string;
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

export class CalendarFeedResponse {
  @ApiProperty({ example: 'http://localhost:3000/v1/calendar-feeds/Qm9va2luZ3NGZWVkVG9rZW5FeGFtcGxlMTIzNDU2Nzg5.ics' }) url!: string;
}

/** A booking as its attendee sees it (the public routes of api-rules.md § Browser booking). */
export class AttendeeBookingView {
  @ApiProperty({ example: 'bkg_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty() eventTypeId!: string;
  @ApiProperty({ type: String, format: 'date-time' }) startsAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) endsAt!: string;
  @ApiProperty({ enum: ['confirmed', 'pending', 'cancelled'] }) status!: string;
  @ApiPropertyOptional({ description: 'Only in the answer that creates the booking (and in the attendee’s mail)' })
  confirmationToken?: string;
  @ApiProperty({ type: AttendeeView }) attendee!: AttendeeView;
  @ApiProperty() timezone!: string;
  @ApiProperty({ nullable: true, type: String }) locationType!: string | null;
  @ApiProperty({ nullable: true, type: String }) location!: string | null;
  @ApiProperty({ nullable: true, type: String }) meetingUrl!: string | null;
  @ApiProperty({ type: BookingAnswerView, isArray: true }) answers!: BookingAnswerView[];
  @ApiProperty() livemode!: boolean;
}

export class PublicBookingResponse {
  @ApiProperty({ type: AttendeeBookingView, description: 'With recurrenceCount: the first occurrence; its token opens every one' })
  booking!: AttendeeBookingView;
  @ApiPropertyOptional({ type: SeriesView, description: 'Only when POST /public/bookings booked a series (recurrenceCount)' })
  series?: SeriesView;
}
