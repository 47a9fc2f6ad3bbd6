import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { IsId, PaginationQueryDto, Optional } from '@app/common';
import { SlotRequestDto } from '../../booking-core/index.js';

export class CreateHoldDto extends SlotRequestDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 60, maximum: 3600, description: 'Default: the event type’s holdMinutes' })
  @Optional()
  @IsInt()
  @Min(60)
  @Max(3600)
  ttlSeconds?: number;
}

export class ListHoldsQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({ example: 'evt_4f9QdY0m2kBz7Lr1Xc8VtN3a' })
  @Optional()
  @IsString()
  @IsId('evt')
  eventTypeId?: string;
}

export class HoldView {
  @ApiProperty({ example: 'hld_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty() eventTypeId!: string;
  @ApiProperty({ type: String, format: 'date-time' }) startsAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) endsAt!: string;
  @ApiProperty({ type: String, format: 'date-time', description: 'From this instant the hold blocks nothing' }) expiresAt!: string;
}

export class HoldResponse {
  @ApiProperty({ type: HoldView }) hold!: HoldView;
}

export class HoldListResponse {
  @ApiProperty({ type: HoldView, isArray: true }) holds!: HoldView[];
  @ApiProperty({ type: 'integer' }) totalCount!: number;
  @ApiProperty() hasMore!: boolean;
}
