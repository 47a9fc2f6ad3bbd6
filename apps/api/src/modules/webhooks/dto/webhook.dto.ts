import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsISO8601,
  IsString,
  MaxLength,
  registerDecorator,
  ValidateIf,
  type ValidationOptions,
} from 'class-validator';
import { IsStorableTime, PaginationQueryDto, Optional } from '@app/common';
import type { DeliveryStatus } from '../entities/webhook-delivery.entity.js';
import { MAX_URL_LENGTH, webhookUrlProblem } from '@app/common';
import { SUBSCRIBABLE_EVENTS } from '../webhook-events.js';

const MAX_DESCRIPTION_LENGTH = 500;

/** Syntax here; whether the host is public is the service's check, since it needs DNS. */
function IsWebhookUrl(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isWebhookUrl',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: (args) => webhookUrlProblem(args.value) ?? 'url is not valid', ...options },
      validator: { validate: (value: unknown) => webhookUrlProblem(value) === null },
    });
}

/** `null` is a value to validate (and refuse), not a missing field. */
const present = (_object: object, value: unknown): boolean => value !== undefined;

export class CreateWebhookDto {
  @ApiProperty({ example: 'https://example.com/hooks/scheduling', maxLength: MAX_URL_LENGTH })
  @IsString()
  @IsWebhookUrl()
  url!: string;

  @ApiProperty({
    enum: SUBSCRIBABLE_EVENTS,
    isArray: true,
    example: ['booking.created', 'booking.cancelled'],
    description: '`*` for every event',
  })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(SUBSCRIBABLE_EVENTS.length)
  @ArrayUnique()
  @IsIn(SUBSCRIBABLE_EVENTS, { each: true })
  events!: string[];

  @ApiPropertyOptional({ type: String, maxLength: MAX_DESCRIPTION_LENGTH, nullable: true })
  @Optional()
  @IsString()
  @MaxLength(MAX_DESCRIPTION_LENGTH)
  description?: string | null;

  @ApiPropertyOptional({ default: true })
  @ValidateIf(present)
  @IsBoolean()
  active?: boolean;
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ example: 'https://example.com/hooks/scheduling', maxLength: MAX_URL_LENGTH })
  @ValidateIf(present)
  @IsString()
  @IsWebhookUrl()
  url?: string;

  @ApiPropertyOptional({ enum: SUBSCRIBABLE_EVENTS, isArray: true })
  @ValidateIf(present)
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(SUBSCRIBABLE_EVENTS.length)
  @ArrayUnique()
  @IsIn(SUBSCRIBABLE_EVENTS, { each: true })
  events?: string[];

  @ApiPropertyOptional({ type: String, maxLength: MAX_DESCRIPTION_LENGTH, nullable: true, description: '`null` clears it' })
  @Optional()
  @IsString()
  @MaxLength(MAX_DESCRIPTION_LENGTH)
  description?: string | null;

  @ApiPropertyOptional({ description: 'Pending deliveries of an inactive webhook wait until it is active again' })
  @ValidateIf(present)
  @IsBoolean()
  active?: boolean;
}

export class WebhookView {
  @ApiProperty({ example: 'wh_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ enum: SUBSCRIBABLE_EVENTS, isArray: true }) events!: string[];
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty() active!: boolean;
  @ApiProperty({ description: 'false for webhooks made with test-mode keys; they receive test-mode events only' }) livemode!: boolean;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
}

export class CreatedWebhookResponse {
  @ApiProperty({ type: WebhookView }) webhook!: WebhookView;
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'Signing secret (Standard Webhooks). Shown only in this response.',
  })
  secret!: string;
}

export class WebhookResponse {
  @ApiProperty({ type: WebhookView }) webhook!: WebhookView;
}

/** A webhook as the list shows it: what the console's home page needs about each, in one answer. */
export class WebhookListItem extends WebhookView {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    example: 2,
    description:
      'Deliveries to this webhook that failed for good (`status: failed`, after the last retry or a 410) whose last attempt ' +
      'was in the 24 hours before this request',
  })
  failedDeliveriesLast24h!: number;
}

export class WebhookListResponse {
  @ApiProperty({ type: WebhookListItem, isArray: true }) webhooks!: WebhookListItem[];
  @ApiProperty({ type: 'integer' }) totalCount!: number;
  @ApiProperty() hasMore!: boolean;
}

export class WebhookDeliveryView {
  @ApiProperty({ example: 'whdel_8dJ2kQ0xWm3nB7vR1sTzQ4aa' }) id!: string;
  @ApiProperty({ example: 'whevt_2Ld9vQ0xWm3nB7vR1sTzQ4bb', description: 'The payload id and the webhook-id header' }) eventId!: string;
  @ApiProperty({ example: 'booking.created' }) eventType!: string;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] }) status!: DeliveryStatus;
  @ApiProperty({ type: 'integer' }) attempts!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastAttemptAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'null once succeeded or failed' }) nextAttemptAt!:
    string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'HTTP status of the last attempt; null when no response arrived' })
  responseStatus!: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the last attempt did not succeed (no response, or a secret no configured key opens: the delivery then waits)',
  })
  lastError!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
}

export class WebhookDeliveryResponse {
  @ApiProperty({ type: WebhookDeliveryView }) delivery!: WebhookDeliveryView;
}

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];

/** A webhook's deliveries, newest first, optionally only one status and only those attempted since an instant. */
export class ListDeliveriesQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, description: '`failed`: given up after the last attempt (or refused with 410)' })
  @Optional()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    example: '2027-03-01T00:00:00Z',
    description: 'Only deliveries whose last attempt was at or after this instant (the console: failed in the last 24 hours)',
  })
  @Optional()
  @IsISO8601({ strict: true })
  @IsStorableTime()
  since?: string;
}

export class WebhookDeliveryListResponse {
  @ApiProperty({ type: WebhookDeliveryView, isArray: true }) deliveries!: WebhookDeliveryView[];
  @ApiProperty({ type: 'integer' }) totalCount!: number;
  @ApiProperty() hasMore!: boolean;
}
