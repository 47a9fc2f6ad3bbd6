import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Access, ApiErrors, CurrentPrincipal, IdParam, type Principal, Scope } from '@app/common';
import { BookingSeriesService } from './booking-series.service.js';
import { SeriesResponse } from './dto/series.dto.js';

/** Recurring series (api-rules.md § Seats and series): made by POST /bookings with recurrenceCount, read here. */
@ApiTags('bookings')
@Controller('series')
export class SeriesController {
  constructor(private readonly series: BookingSeriesService) {}

  @Get(':id')
  @Access({ scope: Scope.BookingsRead })
  @ApiOperation({
    operationId: 'getSeries',
    summary: 'A recurring series and its occurrences (a rescheduled occurrence as it is now)',
    description: 'Members see a series they host. Its bookings are also listed by `GET /bookings?seriesId=`.',
  })
  @ApiResponse({ status: 200, type: SeriesResponse })
  @ApiErrors(401, 403, 404)
  get(@CurrentPrincipal() principal: Principal, @IdParam('id', 'ser') id: string): Promise<SeriesResponse> {
    return this.series.get(principal, id);
  }
}
