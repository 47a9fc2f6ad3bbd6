import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsBoolean, IsIn, IsString, Length, MaxLength } from 'class-validator';
import { IsCalendarDate, IsId, NestedObjects, PaginationQueryDto, Optional } from '@app/common';
import { UserQueryDto } from '../../schedules/index.js';

export const CALENDAR_TYPES = ['ics', 'caldav'] as const;

export class CreateCalendarDto {
  @ApiProperty({ enum: CALENDAR_TYPES })
  @IsIn(CALENDAR_TYPES)
  type!: 'ics' | 'caldav';

  @ApiProperty({
    example: 'https://calendar.example.com/ical/secret-address/basic.ics',
    description: 'The feed (ics; webcal:// is read as https://) or the CalDAV server (caldav)',
    format: 'uri',
    maxLength: 2048,
  })
  @IsString()
  @MaxLength(2048)
  url!: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100, description: 'Default: the source’s host' })
  @Optional()
  @IsString()
  @Length(1, 100)
  name?: string;

  @ApiPropertyOptional({ maxLength: 200, description: 'CalDAV only, required there' })
  @Optional()
  @IsString()
  @Length(1, 200)
  username?: string;

  @ApiPropertyOptional({ maxLength: 500, description: 'CalDAV only, required there; never returned' })
  @Optional()
  @IsString()
  @Length(1, 500)
  password?: string;
}

export class RemoteCalendarChangeDto {
  @ApiProperty({ maxLength: 2048 })
  @IsString()
  @MaxLength(2048)
  id!: string;

  @ApiPropertyOptional()
  @Optional()
  @IsBoolean()
  blocksAvailability?: boolean;

  @ApiPropertyOptional()
  @Optional()
  @IsBoolean()
  isDestination?: boolean;
}

export class UpdateCalendarDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @Optional()
  @IsString()
  @Length(1, 100)
  name?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsBoolean()
  blocksAvailability?: boolean;

  @ApiPropertyOptional({ maxLength: 500, description: 'CalDAV only' })
  @Optional()
  @IsString()
  @Length(1, 500)
  password?: string;

  @ApiPropertyOptional({ type: RemoteCalendarChangeDto, isArray: true, description: 'CalDAV only' })
  @Optional()
  @NestedObjects(() => RemoteCalendarChangeDto)
  @ArrayMaxSize(100)
  calendars?: RemoteCalendarChangeDto[];
}

export class ListCalendarsQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({ description: 'The member whose calendars these are (default: the acting user); others need owner or admin' })
  @Optional()
  @IsString()
  @IsId('usr')
  userId?: string;
}

export class BusyQueryDto extends UserQueryDto {
  @ApiProperty({ example: '2027-03-01', description: 'First local date in `timezone`, inclusive' })
  @IsCalendarDate()
  start!: string;

  @ApiProperty({ example: '2027-03-31', description: 'Last local date in `timezone`, inclusive; at most 93 dates' })
  @IsCalendarDate()
  end!: string;

  @ApiPropertyOptional({ example: 'Europe/Berlin', description: 'IANA zone the dates are in and the times are shown in (default UTC)' })
  @Optional()
  @IsString()
  @MaxLength(64)
  timezone?: string;
}

export class RemoteCalendarView {
  @ApiProperty() id!: string;
  @ApiProperty() displayName!: string;
  @ApiProperty() blocksAvailability!: boolean;
  @ApiProperty() isDestination!: boolean;
}

export class CalendarView {
  @ApiProperty({ example: 'cal_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty({ example: 'usr_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) userId!: string;
  @ApiProperty({ enum: CALENDAR_TYPES }) type!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ example: 'https://calendar.example.com/…', description: 'For ics, scheme and host only: the path is the secret' })
  url!: string;
  @ApiProperty({ type: String, nullable: true }) username!: string | null;
  @ApiProperty() blocksAvailability!: boolean;
  @ApiProperty({ type: RemoteCalendarView, isArray: true, description: 'CalDAV only; empty for ics' }) calendars!: RemoteCalendarView[];
  @ApiProperty({ enum: ['ok', 'error'] }) status!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastSyncedAt!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why the last sync failed; no secret in it' }) lastSyncError!: string | null;
  @ApiProperty({ type: 'integer', description: 'Busy times stored from the last successful sync' }) busyCount!: number;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;
}

export class CalendarResponse {
  @ApiProperty({ type: CalendarView }) calendar!: CalendarView;
}

export class CalendarListResponse {
  @ApiProperty({ type: CalendarView, isArray: true }) calendars!: CalendarView[];
  @ApiProperty({ type: 'integer' }) totalCount!: number;
  @ApiProperty() hasMore!: boolean;
}

export class BusyTimeView {
  @ApiProperty({ example: '2027-03-01T09:00:00.000+01:00' }) start!: string;
  @ApiProperty({ example: '2027-03-01T10:00:00.000+01:00' }) end!: string;
  @ApiProperty({ example: 'cal_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) calendarId!: string;
}

export class BusyResponse {
  @ApiProperty({ type: BusyTimeView, isArray: true, description: 'Sorted by start' }) busy!: BusyTimeView[];
  @ApiProperty({ example: 'UTC' }) timezone!: string;
}
