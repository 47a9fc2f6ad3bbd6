import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { Optional } from '@app/common';
import { CreateBookingDto } from '../../booking-core/index.js';
import { HoldView } from '../../holds/index.js';
import {
  ChangePolicyView,
  LOCATION_TYPES,
  type LocationType,
  QuestionView,
  RECURRENCE_SCHEMA,
  type RecurrenceDto,
} from '../../event-types/index.js';

const EVENT_TYPE_EXAMPLE = 'evt_4f9QdY0m2kBz7Lr1Xc8VtN3a';

/** A host as an attendee sees it: a name, no user id (api-rules.md § Browser booking). */
export class PublicHostView {
  @ApiProperty({ type: String, nullable: true, example: 'Ada Lovelace', description: 'First and last name' }) name!: string | null;
}

/** An event type as an attendee's page sees it: no emails, no internal fields. */
export class PublicEventTypeView {
  @ApiProperty({ example: EVENT_TYPE_EXAMPLE }) id!: string;
  @ApiProperty({ example: 'Intro call' }) title!: string;
  @ApiProperty({ example: 'intro-call' }) slug!: string;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ type: 'integer', example: 30 }) durationMinutes!: number;
  @ApiProperty({ enum: LOCATION_TYPES, nullable: true }) locationType!: LocationType | null;
  @ApiProperty({ enum: ['one_on_one', 'round_robin', 'collective'] }) schedulingType!: string;
  @ApiProperty() requiresConfirmation!: boolean;
  @ApiProperty() minimumNoticeHours!: number;
  @ApiProperty({ type: 'integer' }) bookingWindowDays!: number;
  @ApiProperty({ type: 'integer', description: 'How long a hold keeps its time' }) holdMinutes!: number;
  @ApiProperty({ type: QuestionView, isArray: true }) questions!: QuestionView[];
  @ApiProperty({ type: PublicHostView, isArray: true, description: 'By name only, in the event type’s order' }) hosts!: PublicHostView[];
  @ApiProperty({ type: 'integer', nullable: true, description: 'Attendees per start; slots then carry `seatsRemaining`' })
  seatsPerSlot!: number | null;
  @ApiProperty({ ...RECURRENCE_SCHEMA, description: 'With it, a booking may ask for `recurrenceCount` (2..maxCount) occurrences' })
  recurrence!: RecurrenceDto | null;
  @ApiProperty({ type: ChangePolicyView, description: 'Whether and until how long before the start the attendee may cancel' })
  attendeeCancellation!: ChangePolicyView;
  @ApiProperty({ type: ChangePolicyView, description: 'Whether and until how long before the start the attendee may reschedule' })
  attendeeRescheduling!: ChangePolicyView;
}

export class PublicEventTypeListResponse {
  @ApiProperty({ type: PublicEventTypeView, isArray: true }) eventTypes!: PublicEventTypeView[];
  @ApiProperty({ type: 'integer' }) totalCount!: number;
}

export class PublicEventTypeResponse {
  @ApiProperty({ type: PublicEventTypeView }) eventType!: PublicEventTypeView;
}

export class PublicSlotView {
  @ApiProperty({ example: '2027-03-01T09:00:00.000+01:00', description: 'In the requested timezone, with its offset' }) start!: string;
  @ApiProperty({ example: '2027-03-01T09:30:00.000+01:00' }) end!: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Seated event types only: seats still free at this start' })
  seatsRemaining?: number;
}

export class PublicSlotsResponse {
  @ApiProperty({ type: PublicSlotView, isArray: true, description: 'Sorted by start; no host ids' }) slots!: PublicSlotView[];
  @ApiProperty({ example: 'Europe/Berlin' }) timezone!: string;
}

export class PublicHoldResponse {
  @ApiProperty({ type: HoldView }) hold!: HoldView;
  @ApiProperty({
    example: 'Xb3k9QdY0m2kBz7Lr1Xc8VtN3aYq2w5E',
    description: 'Keep it in the page: booking through the hold (`holdToken`) and releasing it need it. Stored hashed.',
  })
  holdToken!: string;
}

export class ReleaseHoldDto {
  @ApiProperty({ description: 'The holdToken POST /public/holds answered' })
  @IsString()
  @Length(1, 200)
  holdToken!: string;
}

/** A booking from an attendee's page: what POST /bookings takes but `metadata` (the customer's backend's), and the hold's token. */
export class PublicBookingDto extends OmitType(CreateBookingDto, ['metadata'] as const) {
  @ApiPropertyOptional({ description: 'Required with holdId: the hold’s token (a wrong one → 401)' })
  @Optional()
  @IsString()
  @Length(1, 200)
  holdToken?: string;
}
