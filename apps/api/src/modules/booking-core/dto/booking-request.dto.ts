import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsEmail,
  IsInt,
  IsObject,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  type ValidationOptions,
} from 'class-validator';
import { Dictionary, IsIanaTimeZone, IsId, IsLocale, IsStorableTime, NestedObject, Optional, toCanonicalLocale } from '@app/common';

/** Emails are compared as written, trimmed and in lower case. */
export const trimLower = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim().toLowerCase() : value);

/** At most 20 string keys (1..40 characters) with string values of at most 500 characters. */
function IsMetadata(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isMetadata',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: 'metadata must have at most 20 keys of 1-40 characters with string values of at most 500 characters',
        ...options,
      },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.keys(value).length <= 20 &&
          Object.entries(value).every(([k, v]) => k.length >= 1 && k.length <= 40 && typeof v === 'string' && v.length <= 500),
      },
    });
}

export class AttendeeDto {
  @ApiProperty({ format: 'email', maxLength: 254 })
  @Transform(trimLower)
  @IsEmail()
  @MaxLength(254)
  email!: string;

  @ApiPropertyOptional({ maxLength: 100 })
  @Optional()
  @IsString()
  @Length(1, 100)
  firstName?: string;

  @ApiPropertyOptional({ maxLength: 100 })
  @Optional()
  @IsString()
  @Length(1, 100)
  lastName?: string;

  @ApiPropertyOptional({ maxLength: 40 })
  @Optional()
  @IsString()
  @Matches(/^\+?[0-9 ()./-]{3,40}$/, { message: 'phone must be a phone number' })
  phone?: string;

  @ApiPropertyOptional({
    maxLength: 35,
    example: 'de-AT',
    description:
      'The attendee’s language, a BCP 47 tag (contract § 23), kept in its canonical form. The attendee’s mails read the catalog ' +
      'it matches by lookup (`de-AT` → `de`, `pt` → `pt-BR`), else the organization’s `defaultLocale`, else `en`; dates in it. ' +
      'The booker sends its own. Not well-formed → 400 naming `attendee.locale`.',
  })
  @Optional()
  @Transform(toCanonicalLocale)
  @IsLocale()
  locale?: string;
}

export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}(:?\d{2})?)?$/;

/** What names a time of an event type: a booking's, a hold's (secret and publishable keys alike). */
export class SlotRequestDto {
  @ApiProperty({ example: 'evt_4f9QdY0m2kBz7Lr1Xc8VtN3a' })
  @IsString()
  @IsId('evt')
  eventTypeId!: string;

  @ApiProperty({
    example: '2027-03-02T10:00:00+01:00',
    description: 'ISO 8601. With Z or an offset it is absolute; without one it is wall-clock time in `timezone`.',
  })
  @IsString()
  @Matches(ISO_TIMESTAMP, { message: 'startTime must be an ISO 8601 timestamp' })
  @IsStorableTime('timezone')
  startTime!: string;

  @ApiProperty({ example: 'Europe/Berlin', description: 'The attendee’s IANA time zone' })
  @IsIanaTimeZone()
  timezone!: string;

  @ApiPropertyOptional({
    example: 'rtr_4f9QdY0m2kBz7Lr1Xc8VtN3a',
    description:
      'A routing response of this event type (contract § 22): only the hosts it routes to may take the time (another host’s ' +
      'time → 409 SLOT_UNAVAILABLE `not_routed`). A booking also takes its answers for the questions it leaves unanswered, and ' +
      'the response routes no other booking. Unknown, expired, already booked, another mode’s, or routing elsewhere → 400 naming ' +
      'routingResponseId; not with recurrenceCount.',
  })
  @Optional()
  @IsString()
  @IsId('rtr')
  routingResponseId?: string;
}

export class CreateBookingDto extends SlotRequestDto {
  @ApiProperty({ type: AttendeeDto })
  @NestedObject(() => AttendeeDto)
  attendee!: AttendeeDto;

  @ApiPropertyOptional({ maxLength: 2000 })
  @Optional()
  @IsString()
  @MaxLength(2000)
  notes?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'At most 20 string keys, values ≤ 500 characters',
  })
  @Optional()
  @IsMetadata()
  @Dictionary()
  metadata?: Record<string, string>;

  @ApiPropertyOptional({
    example: 'hld_4f9QdY0m2kBz7Lr1Xc8VtN3a',
    description:
      'A hold of this event type and start (POST /holds): the booking takes its place in one transaction. An expired or released ' +
      'hold is ignored (the booking succeeds while the time is free); a hold of another event type or start → 400.',
  })
  @Optional()
  @IsString()
  @IsId('hld')
  holdId?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { company: 'Acme', agenda: 'Pricing', consent: true },
    description:
      'Answers to the event type’s questions, keyed by question id. A missing required answer, an unknown id or a wrong value → 400 ' +
      'with `details[].field` = `answers.<id>`.',
  })
  @Optional()
  @IsObject()
  @Dictionary()
  answers?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 2,
    maximum: 52,
    description:
      'Book this many occurrences of an event type with `recurrence` (at most its maxCount), each at the first one’s wall-clock ' +
      'time in `timezone`: all of them or, with 409 SLOT_UNAVAILABLE and one `details` entry per refused occurrence, none.',
  })
  @Optional()
  @IsInt()
  @Min(2)
  @Max(52)
  recurrenceCount?: number;
}
