import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { IsIanaTimeZone, IsCalendarDate, IsId, IsStorableTime, Optional } from '@app/common';
import { UNAVAILABLE_REASONS, type UnavailableReason } from '@app/availability';

/** Inclusive local dates: end − start ≤ 92 days, i.e. at most 93 dates. */
export const MAX_RANGE_DAYS = 92;

class EventTypeQuery {
  @ApiProperty({ example: 'evt_4f9QdY0m2kBz7Lr1Xc8VtN3a' })
  @IsString()
  @IsId('evt')
  eventTypeId!: string;

  @ApiPropertyOptional({ default: 'UTC', example: 'Europe/Berlin' })
  @Optional()
  @IsIanaTimeZone()
  timezone?: string;

  @ApiPropertyOptional({
    example: 'rtr_4f9QdY0m2kBz7Lr1Xc8VtN3a',
    description:
      'A routing response (contract § 22) of this event type: only the hosts it routes to are offered (round robin among them; ' +
      'collective: they are the hosts who must all be free), and a time only another host could take is `not_routed`. An ' +
      'unknown, expired, already booked or other mode’s response, or one routing elsewhere → 400 naming routingResponseId.',
  })
  @Optional()
  @IsString()
  @IsId('rtr')
  routingResponseId?: string;
}

export class SlotsQueryDto extends EventTypeQuery {
  @ApiProperty({ example: '2027-03-01', description: 'First local date in `timezone`, inclusive' })
  @IsCalendarDate()
  start!: string;

  @ApiProperty({
    example: '2027-03-31',
    description: `Last local date in \`timezone\`, inclusive; at most ${MAX_RANGE_DAYS} days after start`,
  })
  @IsCalendarDate()
  end!: string;
}

export class CheckQueryDto extends EventTypeQuery {
  @ApiProperty({
    example: '2027-03-01T09:00:00',
    description: 'ISO 8601. With Z or an offset it is absolute; without, wall-clock time in `timezone`.',
  })
  @IsString()
  @MaxLength(64)
  @IsStorableTime('timezone')
  startTime!: string;
}

export class SlotView {
  @ApiProperty({ example: '2027-03-01T09:00:00.000+01:00', description: 'In the requested timezone, with its offset' }) start!: string;
  @ApiProperty({ example: '2027-03-01T09:30:00.000+01:00' }) end!: string;
  @ApiProperty({ example: 'usr_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) hostUserId!: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Seated event types only: seats still free at this start' })
  seatsRemaining?: number;
}

export class SlotsResponse {
  @ApiProperty({ type: SlotView, isArray: true, description: 'Sorted by start' }) slots!: SlotView[];
  @ApiProperty({ example: 'Europe/Berlin' }) timezone!: string;
}

export class CheckResponse {
  @ApiProperty() available!: boolean;
  @ApiPropertyOptional({ enum: UNAVAILABLE_REASONS, description: 'Only when available is false' }) reason?: UnavailableReason;
}
