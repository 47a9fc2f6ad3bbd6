import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type AnswerValue } from '../../booking-core/index.js';
import { QUESTION_TYPES, type QuestionType } from '../../event-types/index.js';

/** The attendee's change window (api-rules.md § Scheduling policies), the same on every view of a booking. */
const CanCancelUntil = (): PropertyDecorator =>
  ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Until when the attendee may cancel with its token (the event type’s current policy); null: not allowed',
  });
const CanRescheduleUntil = (): PropertyDecorator =>
  ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Until when the attendee may reschedule with its token; null: not allowed',
  });

export class NoShowView {
  @ApiProperty({ description: 'The attendee did not come' }) attendee!: boolean;
  @ApiProperty({ description: 'The host did not come' }) host!: boolean;
}

export class AttendeeView {
  @ApiProperty() email!: string;
  @ApiProperty({ nullable: true, type: String }) firstName!: string | null;
  @ApiProperty({ nullable: true, type: String }) lastName!: string | null;
  @ApiProperty({ nullable: true, type: String }) phone!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'de-AT',
    description: 'The attendee’s language as given (canonical BCP 47); null: the organization’s `defaultLocale`',
  })
  locale!: string | null;
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
  @ApiProperty({ nullable: true, type: String, description: 'The attendee’s zone; null once the attendee was erased' })
  timezone!: string | null;
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
  @CanCancelUntil() attendeeCanCancelUntil!: string | null;
  @CanRescheduleUntil() attendeeCanRescheduleUntil!: string | null;
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

export class CancelledBookingView {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: ['cancelled'] }) status!: 'cancelled';
  @ApiProperty({ type: String, format: 'date-time' }) cancelledAt!: string;
  @ApiProperty({ nullable: true, type: String }) cancellationReason!: string | null;
  @ApiProperty({ enum: ['host', 'attendee'] }) cancelledBy!: string;
}

export class RescheduledBookingView {
  @ApiProperty({ description: 'The new booking' }) id!: string;
  @ApiProperty() previousBookingId!: string;
  @ApiProperty({ type: String, format: 'date-time' }) startsAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) endsAt!: string;
  @ApiProperty({ enum: ['confirmed', 'pending'] }) status!: string;
  @ApiProperty() hostUserId!: string;
  @ApiProperty() confirmationToken!: string;
  @CanCancelUntil() attendeeCanCancelUntil!: string | null;
  @CanRescheduleUntil() attendeeCanRescheduleUntil!: string | null;
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
  @ApiProperty({ nullable: true, type: String, description: 'The attendee’s zone; null once the attendee was erased' })
  timezone!: string | null;
  @ApiProperty({ nullable: true, type: String }) locationType!: string | null;
  @ApiProperty({ nullable: true, type: String }) location!: string | null;
  @ApiProperty({ nullable: true, type: String }) meetingUrl!: string | null;
  @ApiProperty({ type: BookingAnswerView, isArray: true }) answers!: BookingAnswerView[];
  @ApiProperty() livemode!: boolean;
  @CanCancelUntil() attendeeCanCancelUntil!: string | null;
  @CanRescheduleUntil() attendeeCanRescheduleUntil!: string | null;
}
