import { ApiProperty, type ApiPropertyOptions, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { PaginationQueryDto, IsId, NestedObject, NestedObjects, Optional } from '@app/common';
import type { SchedulingType } from '@app/availability';
import { SERIES_FREQUENCIES, type SeriesFrequency } from '@app/calendar';
import { LOCATION_TYPES, type LocationType, type Recurrence } from '../entities/event-type.entity.js';

export { LOCATION_TYPES, type LocationType };
import { MAX_QUESTIONS, QUESTION_ID, QUESTION_TYPES, type QuestionType } from '../questions.js';
import { LOCATION_TEMPLATE } from '../meeting-link.js';
import { type ChangePolicy, MAX_NOTICE_MINUTES } from '../change-policy.js';
import { MAX_MINUTES_BEFORE, MAX_REMINDERS, REMINDER_RECIPIENTS, type Reminder, type ReminderRecipient } from '../reminders.js';

export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const SCHEDULING_TYPES: readonly SchedulingType[] = ['one_on_one', 'round_robin', 'collective'];
export const MAX_HOSTS = 50;

/** Optional, but null is not a value: `{ "title": null }` is a 400, not "no change". */
const OptionalNotNull = (): PropertyDecorator => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** One booking question as a write sends it (api-rules.md § Browser booking); the rules between fields are the service's. */
export class QuestionDto {
  @ApiProperty({ minLength: 1, maxLength: 50, pattern: QUESTION_ID.source, description: 'Unique in the list; answers are keyed by it' })
  @IsString()
  @Length(1, 50)
  @Matches(QUESTION_ID, { message: 'id must start with a lowercase letter followed by lowercase letters, digits or _' })
  id!: string;

  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  label!: string;

  @ApiProperty({ enum: QUESTION_TYPES })
  @IsIn(QUESTION_TYPES)
  type!: QuestionType;

  @ApiPropertyOptional({ default: false, description: 'A required checkbox must be checked (consent)' })
  @OptionalNotNull()
  @IsBoolean()
  required?: boolean;

  @ApiPropertyOptional({
    type: String,
    isArray: true,
    minItems: 1,
    maxItems: 50,
    uniqueItems: true,
    description: 'select and multiselect only (required there): 1..50 distinct strings of 1..100 characters',
  })
  @OptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ArrayUnique()
  @IsString({ each: true })
  @Length(1, 100, { each: true })
  options?: string[];

  @ApiPropertyOptional({ maxLength: 200 })
  @OptionalNotNull()
  @IsString()
  @MaxLength(200)
  placeholder?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 5000, description: 'text and textarea only; default 500 and 5000' })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(5000)
  maxLength?: number;
}

/** A question as an event type shows it: defaults written out. */
export class QuestionView {
  @ApiProperty() id!: string;
  @ApiProperty() label!: string;
  @ApiProperty({ enum: QUESTION_TYPES }) type!: QuestionType;
  @ApiProperty() required!: boolean;
  @ApiPropertyOptional({ type: String, isArray: true }) options?: string[];
  @ApiPropertyOptional() placeholder?: string;
  @ApiPropertyOptional({ type: 'integer' }) maxLength?: number;
}

/** One reminder as a write sends it (api-rules.md § Reminders); uniqueness in the list is the service's rule. */
export class ReminderDto implements Reminder {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_MINUTES_BEFORE, description: 'Before the start; unique in the list' })
  @IsInt()
  @Min(1)
  @Max(MAX_MINUTES_BEFORE)
  minutesBefore!: number;

  @ApiProperty({ enum: REMINDER_RECIPIENTS, isArray: true, minItems: 1, uniqueItems: true })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @IsIn(REMINDER_RECIPIENTS, { each: true })
  recipients!: ReminderRecipient[];
}

/** A reminder as an event type shows it. */
export class ReminderView implements Reminder {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_MINUTES_BEFORE }) minutesBefore!: number;
  @ApiProperty({ enum: REMINDER_RECIPIENTS, isArray: true }) recipients!: ReminderRecipient[];
}

/**
 * The recurrence as the document shows it, inline: OpenAPI 3.0 has no nullable reference (`allOf` with a `$ref`
 * refuses null), and the field is null on most event types. Its frequency is the named enum RecurrenceFrequency
 * (declared by GET /series/:id), so generated clients list its values at the top level.
 */
export const RECURRENCE_SCHEMA = {
  type: 'object',
  nullable: true,
  required: ['frequency', 'interval', 'maxCount'],
  properties: {
    frequency: { $ref: '#/components/schemas/RecurrenceFrequency' },
    interval: { type: 'integer', minimum: 1, maximum: 12, description: 'Every `interval` days, weeks or months' },
    maxCount: { type: 'integer', minimum: 2, maximum: 52, description: 'The most occurrences one booking may ask for' },
  },
} as ApiPropertyOptions; // Swagger's option types have no `$ref` inside `properties`, though the document takes one.

/** How bookings of an event type may repeat (api-rules.md § Seats and series). */
export class RecurrenceDto implements Recurrence {
  @ApiProperty({ enum: SERIES_FREQUENCIES })
  @IsIn(SERIES_FREQUENCIES)
  frequency!: SeriesFrequency;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 12, description: 'Every `interval` days, weeks or months' })
  @IsInt()
  @Min(1)
  @Max(12)
  interval!: number;

  @ApiProperty({ type: 'integer', minimum: 2, maximum: 52, description: 'The most occurrences one booking may ask for' })
  @IsInt()
  @Min(2)
  @Max(52)
  maxCount!: number;
}

/** An attendee change policy as a write sends it (contract § 17); a missing field keeps its value (create: the default). */
export class ChangePolicyDto implements Partial<ChangePolicy> {
  @ApiPropertyOptional({ default: true, description: 'false: the attendee may not make this change with its token' })
  @OptionalNotNull()
  @IsBoolean()
  allowed?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_NOTICE_MINUTES,
    default: 0,
    description: 'Refused with 409 CHANGE_NOT_ALLOWED when fewer minutes remain before the start',
  })
  @OptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(MAX_NOTICE_MINUTES)
  noticeMinutes?: number;
}

export class ChangePolicyView implements ChangePolicy {
  @ApiProperty() allowed!: boolean;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: MAX_NOTICE_MINUTES }) noticeMinutes!: number;
}

/** Fields every write may carry; create adds the three required ones. */
abstract class EventTypeOptionalFields {
  @ApiPropertyOptional({ maxLength: 5000, nullable: true })
  @Optional()
  @IsString()
  @MaxLength(5000)
  description?: string | null;

  @ApiPropertyOptional({ enum: LOCATION_TYPES, nullable: true })
  @Optional()
  @IsIn(LOCATION_TYPES)
  locationType?: LocationType | null;

  @ApiPropertyOptional({
    maxLength: 500,
    nullable: true,
    description:
      'Link, phone number or address shown to the attendee. `{bookingId}` (the only placeholder) becomes each booking’s id, ' +
      'e.g. `https://meet.jit.si/acme-{bookingId}` gives every meeting a room of its own.',
  })
  @Optional()
  @IsString()
  @MaxLength(500)
  @Matches(LOCATION_TEMPLATE, { message: 'location may hold {bookingId} and no other placeholder or brace' })
  location?: string | null;

  @ApiPropertyOptional({ minimum: 0, maximum: 720, default: 0 })
  @OptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(720)
  bufferBeforeMinutes?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 720, default: 0 })
  @OptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(720)
  bufferAfterMinutes?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 8760, default: 0, description: 'May be fractional' })
  @OptionalNotNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(8760)
  minimumNoticeHours?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 730, default: 60 })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(730)
  bookingWindowDays?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 1000, nullable: true, default: null, description: 'null: no cap' })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(1000)
  maxBookingsPerDay?: number | null;

  @ApiPropertyOptional({ minimum: 5, maximum: 720, nullable: true, default: null, description: 'null: step by durationMinutes' })
  @Optional()
  @IsInt()
  @Min(5)
  @Max(720)
  slotIntervalMinutes?: number | null;

  @ApiPropertyOptional({ enum: SCHEDULING_TYPES, default: 'one_on_one' })
  @OptionalNotNull()
  @IsIn(SCHEDULING_TYPES)
  schedulingType?: SchedulingType;

  @ApiPropertyOptional({
    type: String,
    isArray: true,
    maxItems: MAX_HOSTS,
    description:
      'usr ids of active members, in preference order. Default: the acting user. one_on_one takes exactly one, the others at least one.',
  })
  @OptionalNotNull()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(MAX_HOSTS)
  @ArrayUnique()
  @IsString({ each: true })
  @IsId('usr', { each: true })
  hostUserIds?: string[];

  @ApiPropertyOptional({ default: false })
  @OptionalNotNull()
  @IsBoolean()
  requiresConfirmation?: boolean;

  @ApiPropertyOptional({ minimum: 1, maximum: 60, default: 10, description: 'How long a hold keeps its slot, in minutes' })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(60)
  holdMinutes?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 2,
    maximum: 1000,
    nullable: true,
    default: null,
    description:
      'Attendees per start, each with a booking of its own; null: one booking per slot. Not with `recurrence`. ' +
      'Lowering it below the seats taken at a future start → 409 SEATS_IN_USE.',
  })
  @Optional()
  @IsInt()
  @Min(2)
  @Max(1000)
  seatsPerSlot?: number | null;

  @ApiPropertyOptional({
    ...RECURRENCE_SCHEMA,
    default: null,
    description: 'Lets a booking ask for `recurrenceCount` occurrences; null: no recurring bookings. Not with `seatsPerSlot`.',
  })
  @Optional()
  @NestedObject(() => RecurrenceDto)
  recurrence?: RecurrenceDto | null;

  @ApiPropertyOptional({
    type: QuestionDto,
    isArray: true,
    maxItems: MAX_QUESTIONS,
    description: 'The booking form’s own questions, in order; PATCH replaces the whole list. Default [].',
  })
  @OptionalNotNull()
  @NestedObjects(() => QuestionDto)
  @ArrayMaxSize(MAX_QUESTIONS)
  questions?: QuestionDto[];

  @ApiPropertyOptional({
    type: ReminderDto,
    isArray: true,
    maxItems: MAX_REMINDERS,
    description:
      'Mails and a `booking.reminder` webhook event before each confirmed booking’s start; PATCH replaces the whole list ' +
      '(bookings whose reminder time is still ahead follow it). Default [].',
  })
  @OptionalNotNull()
  @NestedObjects(() => ReminderDto)
  @ArrayMaxSize(MAX_REMINDERS)
  reminders?: ReminderDto[];

  @ApiPropertyOptional({
    type: ChangePolicyDto,
    description: 'Whether and until when the attendee may cancel with its token (contract § 17); hosts are never bound by it',
  })
  @OptionalNotNull()
  @NestedObject(() => ChangePolicyDto)
  attendeeCancellation?: ChangePolicyDto;

  @ApiPropertyOptional({ type: ChangePolicyDto, description: 'The same for rescheduling with the attendee’s token' })
  @OptionalNotNull()
  @NestedObject(() => ChangePolicyDto)
  attendeeRescheduling?: ChangePolicyDto;
}

export class CreateEventTypeDto extends EventTypeOptionalFields {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  title!: string;

  @ApiProperty({
    minLength: 1,
    maxLength: 100,
    pattern: SLUG_PATTERN.source,
    description: 'Unique among the organization’s active event types',
  })
  @IsString()
  @Length(1, 100)
  @Matches(SLUG_PATTERN, { message: 'slug must be lowercase letters and digits separated by single hyphens' })
  slug!: string;

  @ApiProperty({ minimum: 5, maximum: 720 })
  @IsInt()
  @Min(5)
  @Max(720)
  durationMinutes!: number;
}

/** Only supplied fields change. */
export class UpdateEventTypeDto extends EventTypeOptionalFields {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @OptionalNotNull()
  @IsString()
  @Length(1, 200)
  title?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100, pattern: SLUG_PATTERN.source })
  @OptionalNotNull()
  @IsString()
  @Length(1, 100)
  @Matches(SLUG_PATTERN, { message: 'slug must be lowercase letters and digits separated by single hyphens' })
  slug?: string;

  @ApiPropertyOptional({ minimum: 5, maximum: 720 })
  @OptionalNotNull()
  @IsInt()
  @Min(5)
  @Max(720)
  durationMinutes?: number;
}

const toBoolean = ({ value }: { value: unknown }): unknown => (value === 'true' ? true : value === 'false' ? false : value);

/** Beyond this PostgreSQL's OFFSET overflows; the shared PaginationQueryDto has no upper bound yet. */
export const MAX_PAGE = 1_000_000;

export class ListEventTypesQueryDto extends PaginationQueryDto {
  // Redeclared in full: class-validator drops the parent's rules for a property the child decorates.
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE)
  override page: number = 1;

  @ApiPropertyOptional({ type: Boolean, default: true, description: 'false lists deleted event types' })
  @Optional()
  @Transform(toBoolean)
  @IsBoolean()
  isActive?: boolean;
}

export class EventTypeView {
  @ApiProperty({ example: 'evt_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty() title!: string;
  @ApiProperty() slug!: string;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ type: 'integer' }) durationMinutes!: number;
  @ApiProperty({ enum: LOCATION_TYPES, nullable: true }) locationType!: LocationType | null;
  @ApiProperty({ type: String, nullable: true }) location!: string | null;
  @ApiProperty({ type: 'integer' }) bufferBeforeMinutes!: number;
  @ApiProperty({ type: 'integer' }) bufferAfterMinutes!: number;
  @ApiProperty() minimumNoticeHours!: number;
  @ApiProperty({ type: 'integer' }) bookingWindowDays!: number;
  @ApiProperty({ type: 'integer', nullable: true }) maxBookingsPerDay!: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) slotIntervalMinutes!: number | null;
  @ApiProperty({ enum: SCHEDULING_TYPES }) schedulingType!: SchedulingType;
  @ApiProperty({ type: String, isArray: true }) hostUserIds!: string[];
  @ApiProperty() requiresConfirmation!: boolean;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 60 }) holdMinutes!: number;
  @ApiProperty({ type: QuestionView, isArray: true }) questions!: QuestionView[];
  @ApiProperty({ type: 'integer', nullable: true, minimum: 2, maximum: 1000 }) seatsPerSlot!: number | null;
  @ApiProperty(RECURRENCE_SCHEMA) recurrence!: Recurrence | null;
  @ApiProperty({ type: ReminderView, isArray: true, description: 'Earliest first' }) reminders!: ReminderView[];
  @ApiProperty({ type: ChangePolicyView }) attendeeCancellation!: ChangePolicyView;
  @ApiProperty({ type: ChangePolicyView }) attendeeRescheduling!: ChangePolicyView;
  @ApiProperty() isActive!: boolean;
  @ApiProperty({ type: 'integer', description: 'Confirmed and pending bookings, in the caller’s mode' }) bookingsCount!: number;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;
}

export class EventTypeResponse {
  @ApiProperty({ type: EventTypeView }) eventType!: EventTypeView;
}

export class EventTypeListResponse {
  @ApiProperty({ type: EventTypeView, isArray: true }) eventTypes!: EventTypeView[];
  @ApiProperty({ type: 'integer' }) totalCount!: number;
  @ApiProperty() hasMore!: boolean;
}
