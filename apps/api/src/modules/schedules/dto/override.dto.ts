import { IsCalendarDate, NestedObjects, Optional } from '@app/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsIn, IsString, MaxLength } from 'class-validator';
import type { OverrideType } from '../entities/date-override.entity.js';
import { MAX_SLOTS_PER_DAY, TimeSlotDto, TimeSlotView, UserQueryDto } from './schedule.dto.js';

export const OVERRIDE_TYPES: readonly OverrideType[] = ['unavailable', 'custom'];
export const MAX_OVERRIDE_DATES = 366;

export class CreateOverrideDto {
  @ApiProperty({ example: '2027-12-24', description: 'Local date in the member’s schedule timezone' })
  @IsCalendarDate()
  date!: string;

  @ApiProperty({
    enum: OVERRIDE_TYPES,
    description: '`unavailable`: no hours that date; `custom`: `slots` replace that date’s weekly hours',
  })
  @IsIn(OVERRIDE_TYPES)
  type!: OverrideType;

  @ApiPropertyOptional({ maxLength: 500, nullable: true })
  @Optional()
  @IsString()
  @MaxLength(500)
  reason?: string | null;

  @ApiPropertyOptional({
    type: TimeSlotDto,
    isArray: true,
    maxItems: MAX_SLOTS_PER_DAY,
    description: 'custom: at least one; unavailable: none',
  })
  @Optional()
  @NestedObjects(() => TimeSlotDto)
  @ArrayMaxSize(MAX_SLOTS_PER_DAY)
  slots?: TimeSlotDto[];
}

export class ListOverridesQueryDto extends UserQueryDto {
  @ApiProperty({ example: '2027-12-01', description: 'Inclusive' })
  @IsCalendarDate()
  startDate!: string;

  @ApiProperty({ example: '2027-12-31', description: `Inclusive; at most ${MAX_OVERRIDE_DATES} dates from startDate` })
  @IsCalendarDate()
  endDate!: string;
}

export class OverrideView {
  @ApiProperty({ example: 'ovr_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty({ example: 'usr_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) userId!: string;
  @ApiProperty({ example: '2027-12-24' }) date!: string;
  @ApiProperty({ enum: OVERRIDE_TYPES }) type!: OverrideType;
  @ApiProperty({ type: String, nullable: true }) reason!: string | null;
  @ApiProperty({ type: TimeSlotView, isArray: true, description: 'Empty for unavailable' }) slots!: TimeSlotView[];
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
}

export class OverrideResponse {
  @ApiProperty({ type: OverrideView }) override!: OverrideView;
}

export class OverrideListResponse {
  @ApiProperty({ type: OverrideView, isArray: true, description: 'Sorted by date' }) overrides!: OverrideView[];
  @ApiProperty({ type: 'integer' }) totalCount!: number;
}
