import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayNotEmpty, ArrayUnique, IsArray, IsDate, IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { ALL_SCOPES, type KeyMode, type Scope } from '@app/common';

export class CreateApiKeyDto {
  @ApiProperty({ minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100)
  name!: string;

  @ApiPropertyOptional({ enum: ALL_SCOPES, isArray: true, description: 'Non-empty subset; default all scopes' })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @IsIn(ALL_SCOPES, { each: true })
  scopes?: Scope[];

  @ApiPropertyOptional({ minimum: 1, maximum: 10000, default: 60 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10000)
  rateLimitPerMinute?: number;

  @ApiPropertyOptional({ enum: ['live', 'test'], default: 'live' })
  @IsOptional()
  @IsIn(['live', 'test'])
  mode?: KeyMode;

  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'Must be in the future' })
  @IsOptional()
  @Type(() => Date)
  @IsDate()
  expiresAt?: Date;
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
}

export class ApiKeyView extends NewApiKeyView {
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastUsedAt!: string | null;
}

export class CreatedApiKeyResponse {
  @ApiProperty({ description: 'The full key. Shown only in this response.', example: 'mk_live_…' }) apiKey!: string;
  @ApiProperty({ type: NewApiKeyView }) key!: NewApiKeyView;
}

export class ApiKeyListResponse {
  @ApiProperty({ type: ApiKeyView, isArray: true }) keys!: ApiKeyView[];
  @ApiProperty({ type: 'integer' }) totalCount!: number;
  @ApiProperty() hasMore!: boolean;
}
