import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsDefined,
  IsIn,
  IsObject,
  IsString,
  IsUrl,
  Length,
  Matches,
  MaxLength,
} from 'class-validator';
import { Dictionary, IsId, NestedObject, NestedObjects, Optional, PaginationQueryDto } from '@app/common';
import { MAX_HOSTS, QuestionDto, QuestionView } from '../../event-types/index.js';
import { type ConditionValue, ROUTING_OPS, type RoutingOp } from '../routing-rules.js';

export const MAX_FIELDS = 20;
export const MAX_ROUTES = 50;
export const MAX_CONDITIONS = 50;
export const MAX_MESSAGE_LENGTH = 500;
export const MAX_URL_LENGTH = 2000;
export const MAX_FORM_NAME_LENGTH = 100;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}(:?\d{2})?)?$/;

const CONDITION_VALUE_SCHEMA = {
  oneOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] } },
  ],
};

export class ConditionDto {
  @ApiProperty({ description: 'A field id of the form' })
  @IsString()
  @Length(1, 50)
  field!: string;

  @ApiProperty({ enum: ROUTING_OPS, description: 'Which ops fit which field type: api-rules.md § Routing forms' })
  @IsIn(ROUTING_OPS)
  op!: RoutingOp;

  @ApiProperty({ ...CONDITION_VALUE_SCHEMA, description: '`in`: an array of values; otherwise one value of the field’s type' })
  @IsDefined()
  value!: ConditionValue;
}

export class RouteWhenDto {
  @ApiPropertyOptional({ type: ConditionDto, isArray: true, minItems: 1, maxItems: MAX_CONDITIONS, description: 'Every condition holds' })
  @Optional()
  @NestedObjects(() => ConditionDto)
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_CONDITIONS)
  all?: ConditionDto[];

  @ApiPropertyOptional({ type: ConditionDto, isArray: true, minItems: 1, maxItems: MAX_CONDITIONS, description: 'At least one holds' })
  @Optional()
  @NestedObjects(() => ConditionDto)
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_CONDITIONS)
  any?: ConditionDto[];
}

/** Where a route sends the visitor: exactly one of an event type (with hosts), a message, a URL; the service checks "one". */
export class RouteTargetDto {
  @ApiPropertyOptional({ example: 'evt_4f9QdY0m2kBz7Lr1Xc8VtN3a', description: 'An active event type of the organization' })
  @Optional()
  @IsId('evt')
  eventTypeId?: string;

  @ApiPropertyOptional({
    type: String,
    isArray: true,
    minItems: 1,
    maxItems: MAX_HOSTS,
    uniqueItems: true,
    description: 'With eventTypeId: a non-empty subset of its hosts (default all of them)',
  })
  @Optional()
  @IsId('usr', { each: true })
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_HOSTS)
  @ArrayUnique()
  hostUserIds?: string[];

  @ApiPropertyOptional({ minLength: 1, maxLength: MAX_MESSAGE_LENGTH, description: 'A message shown instead of times' })
  @Optional()
  @IsString()
  @Length(1, MAX_MESSAGE_LENGTH)
  message?: string;

  @ApiPropertyOptional({ format: 'uri', maxLength: MAX_URL_LENGTH, example: 'https://example.com/support', description: 'https only' })
  @Optional()
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  @IsUrl({ protocols: ['https'], require_protocol: true, require_tld: false }, { message: 'url must be an https URL' })
  url?: string;
}

export class RouteDto {
  @ApiProperty({ type: RouteWhenDto, description: '`{ all }`, `{ any }` or `{}` (always)' })
  @NestedObject(() => RouteWhenDto)
  when!: RouteWhenDto;

  @ApiProperty({ type: RouteTargetDto })
  @NestedObject(() => RouteTargetDto)
  to!: RouteTargetDto;
}

export class CreateRoutingFormDto {
  @ApiProperty({ minLength: 1, maxLength: MAX_FORM_NAME_LENGTH })
  @IsString()
  @Length(1, MAX_FORM_NAME_LENGTH)
  name!: string;

  @ApiProperty({
    type: QuestionDto,
    isArray: true,
    minItems: 1,
    maxItems: MAX_FIELDS,
    description: 'Fields in the shape of booking questions',
  })
  @NestedObjects(() => QuestionDto)
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_FIELDS)
  fields!: QuestionDto[];

  @ApiProperty({ type: RouteDto, isArray: true, minItems: 1, maxItems: MAX_ROUTES, description: 'The first that holds wins' })
  @NestedObjects(() => RouteDto)
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ROUTES)
  routes!: RouteDto[];

  // No description: the property stays a plain $ref to RouteTargetDto (its minProperties with it).
  @ApiProperty({ type: RouteTargetDto })
  @NestedObject(() => RouteTargetDto)
  fallback!: RouteTargetDto;
}

export class UpdateRoutingFormDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: MAX_FORM_NAME_LENGTH })
  @Optional()
  @IsString()
  @Length(1, MAX_FORM_NAME_LENGTH)
  name?: string;

  @ApiPropertyOptional({ type: QuestionDto, isArray: true, minItems: 1, maxItems: MAX_FIELDS })
  @Optional()
  @NestedObjects(() => QuestionDto)
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_FIELDS)
  fields?: QuestionDto[];

  @ApiPropertyOptional({ type: RouteDto, isArray: true, minItems: 1, maxItems: MAX_ROUTES })
  @Optional()
  @NestedObjects(() => RouteDto)
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ROUTES)
  routes?: RouteDto[];

  @ApiPropertyOptional({ type: RouteTargetDto })
  @Optional()
  @NestedObject(() => RouteTargetDto)
  fallback?: RouteTargetDto;
}

export class AnswersDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { company_size: 250, region: 'emea' },
    description: 'Keyed by field id, checked as booking answers: 400 naming `answers.<id>`.',
  })
  @IsObject()
  @Dictionary()
  answers!: Record<string, unknown>;
}

export class ListResponsesQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({ description: 'Responses created at or after this instant (ISO 8601; without an offset, UTC)' })
  @Optional()
  @IsString()
  @Matches(TIMESTAMP, { message: 'from must be an ISO 8601 timestamp' })
  from?: string;

  @ApiPropertyOptional({ description: 'Responses created before this instant' })
  @Optional()
  @IsString()
  @Matches(TIMESTAMP, { message: 'to must be an ISO 8601 timestamp' })
  to?: string;
}

// ---- views

export class ConditionView {
  @ApiProperty() field!: string;
  @ApiProperty({ enum: ROUTING_OPS }) op!: RoutingOp;
  @ApiProperty(CONDITION_VALUE_SCHEMA) value!: ConditionValue;
}

export class RouteWhenView {
  @ApiPropertyOptional({ type: ConditionView, isArray: true }) all?: ConditionView[];
  @ApiPropertyOptional({ type: ConditionView, isArray: true }) any?: ConditionView[];
}

/** One of `{ eventTypeId, hostUserIds? }`, `{ message }`, `{ url }`. */
export class RouteTargetView {
  @ApiPropertyOptional({ example: 'evt_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) eventTypeId?: string;
  @ApiPropertyOptional({ type: String, isArray: true }) hostUserIds?: string[];
  @ApiPropertyOptional() message?: string;
  @ApiPropertyOptional() url?: string;
}

export class RouteView {
  @ApiProperty({ type: RouteWhenView }) when!: RouteWhenView;
  @ApiProperty({ type: RouteTargetView }) to!: RouteTargetView;
}

export class RoutingFormView {
  @ApiProperty({ example: 'rtf_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: QuestionView, isArray: true }) fields!: QuestionView[];
  @ApiProperty({ type: RouteView, isArray: true }) routes!: RouteView[];
  @ApiProperty({ type: RouteTargetView }) fallback!: RouteTargetView;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;
}

/** A form as an attendee sees it: what to fill in, nothing of its rules or their targets. */
export class PublicRoutingFormView {
  @ApiProperty({ example: 'rtf_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: QuestionView, isArray: true }) fields!: QuestionView[];
}

export class PublicRoutingFormResponse {
  @ApiProperty({ type: PublicRoutingFormView }) routingForm!: PublicRoutingFormView;
}

export class RoutingFormResponse {
  @ApiProperty({ type: RoutingFormView }) routingForm!: RoutingFormView;
}

export class RoutingFormListResponse {
  @ApiProperty({ type: RoutingFormView, isArray: true, description: 'Oldest first' }) routingForms!: RoutingFormView[];
  @ApiProperty({ type: 'integer' }) totalCount!: number;
  @ApiProperty() hasMore!: boolean;
}

export class RoutingTestResponse {
  @ApiProperty({ type: RouteTargetView }) route!: RouteTargetView;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The index of the route that held; null: the fallback' })
  matchedRoute!: number | null;
}

export class RoutingAnswerView {
  @ApiProperty() id!: string;
  @ApiProperty() label!: string;
  @ApiProperty() type!: string;
  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'array', items: { type: 'string' } }],
  })
  value!: string | number | boolean | string[];
}

export class SubmittedResponseView {
  @ApiProperty({ example: 'rtr_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty({ type: RouteTargetView }) route!: RouteTargetView;
}

export class SubmittedResponse {
  @ApiProperty({ type: SubmittedResponseView }) response!: SubmittedResponseView;
}

export class RoutingResponseView {
  @ApiProperty({ example: 'rtr_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty({ type: RoutingAnswerView, isArray: true, description: 'As asked at submission; [] once erased' })
  answers!: RoutingAnswerView[];
  @ApiProperty({ type: RouteTargetView }) route!: RouteTargetView;
  @ApiProperty({ type: 'integer', nullable: true }) matchedRoute!: number | null;
  @ApiProperty({ type: String, nullable: true }) bookingId!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
}

export class RoutingResponseListResponse {
  @ApiProperty({ type: RoutingResponseView, isArray: true, description: 'Newest first' }) responses!: RoutingResponseView[];
  @ApiProperty({ type: 'integer' }) totalCount!: number;
  @ApiProperty() hasMore!: boolean;
}
