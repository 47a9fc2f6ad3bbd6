import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsDate,
  IsIn,
  IsInt,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { ALL_SCOPES, IsId, IsStorableTime, type KeyKind, type KeyMode, type Scope, Optional } from '@app/common';
import { MAX_ORIGINS } from '../origins.js';

const ORIGINS_DESCRIPTION =
  'Publishable keys only (required there): 1..20 origins the key answers, each `https://host[:port]`, or `http://localhost[:port]` / ' +
  '`http://127.0.0.1[:port]`; no path, no wildcard.';
const EVENT_TYPES_DESCRIPTION = 'Publishable keys only: the event types the key may book; absent or null: every active one.';
const ROUTING_FORMS_DESCRIPTION =
  'Publishable keys only: the routing forms the key may show and submit (GET /public/routing-forms/:id; any other → 404); absent or null: every form of the organization.';

/** A publishable key's origins: shapes here, the origin rule in the service (400 naming allowedOrigins). */
function OriginList(): PropertyDecorator {
  return applyDecorators(
    IsArray(),
    ArrayNotEmpty(),
    ArrayMaxSize(MAX_ORIGINS),
    ArrayUnique(),
    IsString({ each: true }),
    MaxLength(300, { each: true }),
  );
}

/** A publishable key's event types (`evt`) or routing forms (`rtf`): null means all of them. */
function IdList(prefix: 'evt' | 'rtf'): PropertyDecorator {
  return applyDecorators(
    ValidateIf((_object: object, value: unknown) => value !== null && value !== undefined),
    IsArray(),
    ArrayNotEmpty(),
    ArrayMaxSize(100),
    ArrayUnique(),
    IsString({ each: true }),
    IsId(prefix, { each: true }),
  );
}

export class CreateApiKeyDto {
  @ApiProperty({ minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100)
  name!: string;

  @ApiPropertyOptional({
    enum: ['secret', 'publishable'],
    default: 'secret',
    description: 'publishable: safe in a web page (api-rules.md § Browser booking)',
  })
  @Optional()
  @IsIn(['secret', 'publishable'])
  kind?: KeyKind;

  @ApiPropertyOptional({ enum: ALL_SCOPES, isArray: true, description: 'Secret keys only. Non-empty subset; default all scopes' })
  @Optional()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @IsIn(ALL_SCOPES, { each: true })
  scopes?: Scope[];

  @ApiPropertyOptional({
    minimum: 1,
    maximum: 10000,
    description: 'Default 60 for a secret key; 600 for a publishable key, counted per key and client IP together',
  })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(10000)
  rateLimitPerMinute?: number;

  @ApiPropertyOptional({ enum: ['live', 'test'], default: 'live' })
  @Optional()
  @IsIn(['live', 'test'])
  mode?: KeyMode;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description: 'Must be in the future; leave it out for a key that never expires',
  })
  @ValidateIf((_object: object, value: unknown) => value !== undefined)
  @Type(() => Date)
  @IsDate()
  @IsStorableTime()
  expiresAt?: Date;

  @ApiPropertyOptional({ type: String, isArray: true, minItems: 1, maxItems: MAX_ORIGINS, description: ORIGINS_DESCRIPTION })
  @Optional()
  @OriginList()
  allowedOrigins?: string[];

  @ApiPropertyOptional({ type: String, isArray: true, nullable: true, description: EVENT_TYPES_DESCRIPTION })
  @Optional()
  @IdList('evt')
  eventTypeIds?: string[] | null;

  @ApiPropertyOptional({ type: String, isArray: true, nullable: true, description: ROUTING_FORMS_DESCRIPTION })
  @Optional()
  @IdList('rtf')
  routingFormIds?: string[] | null;
}

/** What PATCH /api-keys/:id may change; origins and event types belong to publishable keys. */
export class UpdateApiKeyDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @ValidateIf((_object: object, value: unknown) => value !== undefined)
  @IsString()
  @Length(1, 100)
  name?: string;

  @ApiPropertyOptional({ type: String, isArray: true, minItems: 1, maxItems: MAX_ORIGINS, description: ORIGINS_DESCRIPTION })
  @ValidateIf((_object: object, value: unknown) => value !== undefined)
  @OriginList()
  allowedOrigins?: string[];

  @ApiPropertyOptional({ type: String, isArray: true, nullable: true, description: EVENT_TYPES_DESCRIPTION + ' null: all again.' })
  @Optional()
  @IdList('evt')
  eventTypeIds?: string[] | null;

  @ApiPropertyOptional({ type: String, isArray: true, nullable: true, description: ROUTING_FORMS_DESCRIPTION + ' null: all again.' })
  @Optional()
  @IdList('rtf')
  routingFormIds?: string[] | null;
}

/** The key as created: it has not been used yet, so it has no lastUsedAt. */
export class NewApiKeyView {
  @ApiProperty({ example: 'key_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ example: 'mk_live_Ab3d', description: 'The first 12 characters of the key' }) keyPrefix!: string;
  @ApiProperty({ enum: ALL_SCOPES, isArray: true }) scopes!: Scope[];
  @ApiProperty({ type: 'integer' }) rateLimitPerMinute!: number;
  @ApiProperty({ enum: ['live', 'test'] }) mode!: KeyMode;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expiresAt!: string | null;
  @ApiProperty({ enum: ['secret', 'publishable'] }) kind!: KeyKind;
  @ApiProperty({ type: String, isArray: true, nullable: true, description: 'A publishable key’s origins; null for a secret key' })
  allowedOrigins!: string[] | null;
  @ApiProperty({ type: String, isArray: true, nullable: true, description: 'A publishable key’s event types; null: all' })
  eventTypeIds!: string[] | null;
  @ApiProperty({ type: String, isArray: true, nullable: true, description: 'A publishable key’s routing forms; null: all' })
  routingFormIds!: string[] | null;
}

export class ApiKeyView extends NewApiKeyView {
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastUsedAt!: string | null;
  @ApiPropertyOptional({ example: 'pk_live_…', description: 'A publishable key in full (it is public by design); absent for secret keys' })
  apiKey?: string;
}

export class ApiKeyResponse {
  @ApiProperty({ type: ApiKeyView }) key!: ApiKeyView;
}

export class CreatedApiKeyResponse {
  @ApiProperty({ description: 'The full key. A secret key is shown only in this response.', example: 'mk_live_…' }) apiKey!: string;
  @ApiProperty({ type: NewApiKeyView }) key!: NewApiKeyView;
}

export class ApiKeyListResponse {
  @ApiProperty({ type: ApiKeyView, isArray: true }) keys!: ApiKeyView[];
  @ApiProperty({ type: 'integer' }) totalCount!: number;
  @ApiProperty() hasMore!: boolean;
}
