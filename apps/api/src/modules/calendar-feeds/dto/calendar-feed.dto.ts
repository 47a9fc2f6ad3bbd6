import { ApiProperty } from '@nestjs/swagger';

export class CalendarFeedResponse {
  @ApiProperty({ example: 'http://localhost:3000/v1/calendar-feeds/Qm9va2luZ3NGZWVkVG9rZW5FeGFtcGxlMTIzNDU2Nzg5.ics' }) url!: string;
}
