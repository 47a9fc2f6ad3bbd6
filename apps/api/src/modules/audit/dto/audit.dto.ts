import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { IsStorableTime, Optional } from '@app/common';

export const DEFAULT_AUDIT_PAGE = 50;
export const MAX_AUDIT_PAGE = 200;
/** A timestamp with its offset (an instant: the log is in UTC). */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
const CURSOR = /^[A-Za-z0-9_-]{1,200}$/;

export class AuditRangeQueryDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'Entries at or after this instant' })
  @Optional()
  @Matches(INSTANT, { message: 'from must be an ISO 8601 timestamp with an offset' })
  @IsISO8601({ strict: true })
  @IsStorableTime()
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Entries before this instant' })
  @Optional()
  @Matches(INSTANT, { message: 'to must be an ISO 8601 timestamp with an offset' })
  @IsISO8601({ strict: true })
  @IsStorableTime()
  to?: string;
}

export class AuditLogQueryDto extends AuditRangeQueryDto {
  @ApiPropertyOptional({ example: 'event_type.updated', maxLength: 100 })
  @Optional()
  @IsString()
  @MaxLength(100)
  action?: string;

  @ApiPropertyOptional({ description: 'A user (`usr_…`) or API key (`key_…`) id', maxLength: 100 })
  @Optional()
  @IsString()
  @MaxLength(100)
  actorId?: string;

  @ApiPropertyOptional({ description: 'The id of the resource changed', maxLength: 100 })
  @Optional()
  @IsString()
  @MaxLength(100)
  resourceId?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_AUDIT_PAGE, default: DEFAULT_AUDIT_PAGE })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_AUDIT_PAGE)
  limit: number = DEFAULT_AUDIT_PAGE;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page' })
  @Optional()
  @Matches(CURSOR, { message: 'cursor is not a cursor of this list' })
  cursor?: string;
}

export class AuditActorView {
  @ApiProperty({ enum: ['user', 'api_key', 'app', 'attendee', 'system', 'scim'] }) type!:
    'user' | 'api_key' | 'app' | 'attendee' | 'system' | 'scim';
  @ApiProperty({ type: String, nullable: true, description: '`usr_…` or `key_…`' }) id!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'A user’s email; a key’s name and prefix' }) label!: string | null;
}

export class AuditResourceView {
  @ApiProperty({ example: 'event_type' }) type!: string;
  @ApiProperty({ type: String, nullable: true }) id!: string | null;
}

export class AuditChangeView {
  @ApiProperty({ description: 'The value before (any JSON; `[redacted]` for a secret)', nullable: true }) from!: unknown;
  @ApiProperty({ description: 'The value after (any JSON; `[redacted]` for a secret)', nullable: true }) to!: unknown;
}

export class AuditEntryView {
  @ApiProperty({ example: 'aud_3kTMd9pQ2aLx7bVc1RfYw8Zn' }) id!: string;
  @ApiProperty({ format: 'date-time' }) occurredAt!: string;
  @ApiProperty({ example: 'event_type.updated', description: '`<resource>.<verb>`' }) action!: string;
  @ApiProperty({ type: AuditActorView }) actor!: AuditActorView;
  @ApiProperty({ type: AuditResourceView }) resource!: AuditResourceView;
  @ApiProperty({ type: String, nullable: true }) requestId!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The client address (as TRUST_PROXY derives it)' }) ip!: string | null;
  @ApiProperty({ type: String, nullable: true }) userAgent!: string | null;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'object', properties: { from: {}, to: {} }, required: ['from', 'to'] },
    description: 'An update’s changed fields',
  })
  changes?: Record<string, AuditChangeView>;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'What else the action reports (e.g. counts)' })
  details?: Record<string, unknown>;
}

export class AuditLogResponse {
  @ApiProperty({ type: [AuditEntryView] }) entries!: AuditEntryView[];
  @ApiProperty({ type: String, nullable: true, description: 'null at the end' }) nextCursor!: string | null;
}
