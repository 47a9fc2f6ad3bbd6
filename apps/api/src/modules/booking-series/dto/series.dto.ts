import { ApiProperty } from '@nestjs/swagger';
import { SERIES_FREQUENCIES, type SeriesFrequency } from '@app/calendar';

/** One occurrence as a series lists it. */
export class SeriesOccurrenceView {
  @ApiProperty({ example: 'bkg_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty({ type: String, format: 'date-time' }) startsAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) endsAt!: string;
  @ApiProperty({ enum: ['confirmed', 'pending', 'cancelled'] }) status!: string;
}

export class SeriesView {
  @ApiProperty({ example: 'ser_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty({ type: 'integer', description: 'Occurrences booked' }) count!: number;
  @ApiProperty({ type: SeriesOccurrenceView, isArray: true, description: 'By occurrence; a rescheduled one as it is now' })
  bookings!: SeriesOccurrenceView[];
}

export class SeriesDetailView extends SeriesView {
  @ApiProperty() eventTypeId!: string;
  @ApiProperty({ enum: SERIES_FREQUENCIES, enumName: 'RecurrenceFrequency' }) frequency!: SeriesFrequency;
  @ApiProperty({ type: 'integer' }) interval!: number;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'The zone whose wall-clock time every occurrence keeps; null once the attendee was erased',
  })
  timezone!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty() livemode!: boolean;
}

export class SeriesResponse {
  @ApiProperty({ type: SeriesDetailView }) series!: SeriesDetailView;
}
