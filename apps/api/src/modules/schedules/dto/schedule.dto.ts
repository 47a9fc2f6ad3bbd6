import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { IsIanaTimeZone, IsId, NestedObjects, Optional } from '@app/common';

export const START_TIME_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;
/** '24:00' ends a window at the next local midnight. */
export const END_TIME_PATTERN = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;
export const MAX_SLOTS_PER_DAY = 48;

export class TimeSlotDto {
  @ApiProperty({ example: '09:00', pattern: START_TIME_PATTERN.source, description: 'HH:MM, 24-hour, local to the schedule’s timezone' })
  @IsString()
  @Matches(START_TIME_PATTERN, { message: 'startTime must be HH:MM (00:00–23:59)' })
  startTime!: string;

  @ApiProperty({ example: '17:00', pattern: END_TIME_PATTERN.source, description: 'HH:MM, 24-hour; 24:00 is the next midnight' })
  @IsString()
  @Matches(END_TIME_PATTERN, { message: 'endTime must be HH:MM (00:01–24:00)' })
  endTime!: string;
}

export class ScheduleDayDto {
  @ApiProperty({ minimum: 0, maximum: 6, description: '0 = Sunday … 6 = Saturday' })
  @IsInt()
  @Min(0)
  @Max(6)
  dayOfWeek!: number;

  @ApiProperty({ type: TimeSlotDto, isArray: true, maxItems: MAX_SLOTS_PER_DAY, description: 'Must not overlap' })
  @NestedObjects(() => TimeSlotDto)
  @ArrayMaxSize(MAX_SLOTS_PER_DAY)
  slots!: TimeSlotDto[];
}

export class PutScheduleDto {
  @ApiProperty({ example: 'Europe/Berlin', description: 'IANA time zone the times are written in' })
  @IsIanaTimeZone()
  timezone!: string;

  @ApiProperty({ type: ScheduleDayDto, isArray: true, maxItems: 7, description: 'Each day at most once; days not listed are unavailable' })
  @NestedObjects(() => ScheduleDayDto)
  @ArrayMaxSize(7)
  schedules!: ScheduleDayDto[];
}

export class UserQueryDto {
  @ApiPropertyOptional({ description: 'The member whose availability this is (default: the acting user); others need owner or admin' })
  @Optional()
  @IsString()
  @IsId('usr')
  userId?: string;
}

export class TimeSlotView {
  @ApiProperty({ example: '09:00' }) startTime!: string;
  @ApiProperty({ example: '17:00' }) endTime!: string;
}

export class ScheduleDayView {
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 6 }) dayOfWeek!: number;
  @ApiProperty({ type: TimeSlotView, isArray: true }) slots!: TimeSlotView[];
}

export class ScheduleView {
  @ApiProperty({ example: 'sch_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty({ example: 'usr_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) userId!: string;
  @ApiProperty({ example: 'Europe/Berlin' }) timezone!: string;
  @ApiProperty({ type: ScheduleDayView, isArray: true, description: 'Sorted by dayOfWeek, slots by startTime' })
  schedules!: ScheduleDayView[];
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;
}

export class ScheduleResponse {
  @ApiProperty({ type: ScheduleView }) schedule!: ScheduleView;
}
