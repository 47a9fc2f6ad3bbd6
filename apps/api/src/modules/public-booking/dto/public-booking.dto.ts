import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import { IsIanaTimeZone, IsId } from '@app/common';
import { AttendeeDto, ISO_TIMESTAMP } from '../../bookings/dto/booking.dto.js';
import { HoldView } from '../../bookings/dto/hold.dto.js';
import { LOCATION_TYPES, type LocationType, QuestionView } from '../../event-types/dto/event-type.dto.js';

const EVENT_TYPE_EXAMPLE = 'evt_4f9QdY0m2kBz7Lr1Xc8VtN3a';
const START_DESCRIPTION = 'ISO 8601. With Z or an offset it is absolute; without one it is wall-clock time in `timezone`.';

export class PublicHostView {
  @ApiProperty({ example: 'usr_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) userId!: string;
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
  @ApiProperty({ type: PublicHostView, isArray: true }) hosts!: PublicHostView[];
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
}

export class PublicSlotsResponse {
  @ApiProperty({ type: PublicSlotView, isArray: true, description: 'Sorted by start; no host ids' }) slots!: PublicSlotView[];
  @ApiProperty({ example: 'Europe/Berlin' }) timezone!: string;
}

export class PublicHoldDto {
  @ApiProperty({ example: EVENT_TYPE_EXAMPLE })
  @IsString()
  @IsId('evt')
  eventTypeId!: string;

  @ApiProperty({ example: '2027-03-02T10:00:00+01:00', description: START_DESCRIPTION })
  @IsString()
  @Matches(ISO_TIMESTAMP, { message: 'startTime must be an ISO 8601 timestamp' })
  startTime!: string;

  @ApiProperty({ example: 'Europe/Berlin', description: 'The attendee’s IANA time zone' })
  @IsIanaTimeZone()
  timezone!: string;
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

export class PublicBookingDto {
  @ApiProperty({ example: EVENT_TYPE_EXAMPLE })
  @IsString()
  @IsId('evt')
  eventTypeId!: string;

  @ApiProperty({ example: '2027-03-02T10:00:00+01:00', description: START_DESCRIPTION })
  @IsString()
  @Matches(ISO_TIMESTAMP, { message: 'startTime must be an ISO 8601 timestamp' })
  startTime!: string;

  @ApiProperty({ example: 'Europe/Berlin', description: 'The attendee’s IANA time zone' })
  @IsIanaTimeZone()
  timezone!: string;

  @ApiProperty({ type: AttendeeDto })
  @IsObject()
  @ValidateNested()
  @Type(() => AttendeeDto)
  attendee!: AttendeeDto;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { company: 'Acme', consent: true },
    description: 'Answers to the event type’s questions, keyed by question id (400 naming `answers.<id>`)',
  })
  @IsOptional()
  @IsObject()
  answers?: Record<string, unknown>;

  @ApiPropertyOptional({ maxLength: 2000 })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  notes?: string;

  @ApiPropertyOptional({ example: 'hld_4f9QdY0m2kBz7Lr1Xc8VtN3a', description: 'The hold this booking takes the place of' })
  @IsOptional()
  @IsString()
  @IsId('hld')
  holdId?: string;

  @ApiPropertyOptional({ description: 'Required with holdId: the hold’s token (a wrong one → 401)' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  holdToken?: string;
}
