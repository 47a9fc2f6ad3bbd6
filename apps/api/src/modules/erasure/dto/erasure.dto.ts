import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, MaxLength } from 'class-validator';
import { trimLower } from '../../booking-core/index.js';

export class EraseAttendeeDto {
  @ApiProperty({ format: 'email', maxLength: 254, description: 'The attendee’s email; matched case-insensitively' })
  @Transform(trimLower)
  @IsEmail()
  @MaxLength(254)
  email!: string;
}

export class ErasedCountsView {
  @ApiProperty({ minimum: 0, description: 'Bookings (both modes) whose attendee was erased; the bookings themselves stay' })
  bookings!: number;

  @ApiProperty({ minimum: 0, description: 'Holds the attendee placed that no longer keep a client address' })
  holds!: number;

  @ApiProperty({ minimum: 0, description: 'Mails about those bookings or to that address, sent or not, deleted' })
  mails!: number;

  @ApiProperty({ minimum: 0, description: 'Webhook deliveries of those bookings’ events (payloads and attempts) deleted' })
  deliveries!: number;
}

export class EraseAttendeeResponse {
  @ApiProperty({ type: ErasedCountsView })
  erased!: ErasedCountsView;
}
