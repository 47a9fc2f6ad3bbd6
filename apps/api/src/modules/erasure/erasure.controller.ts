import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Access, ApiErrors, Audited, CurrentPrincipal, Permission, type Principal, Scope } from '@app/common';
import { EraseAttendeeDto, EraseAttendeeResponse } from './dto/erasure.dto.js';
import { ErasureService } from './erasure.service.js';

@ApiTags('attendees')
@Controller('attendees')
export class ErasureController {
  constructor(private readonly erasure: ErasureService) {}

  @Post('erase')
  @HttpCode(200)
  @Audited('attendee.erased', { resource: 'attendee' })
  @Access({ scope: Scope.BookingsWrite, permission: Permission.ManageAllBookings })
  @ApiOperation({
    operationId: 'eraseAttendee',
    summary: 'Erase an attendee from every booking of the organization (both modes): the right to be forgotten',
    description:
      'Synchronous, in one transaction. Bookings whose attendee email matches (case-insensitively) keep their ids, times, ' +
      'statuses and hosts; the attendee’s name becomes `Erased attendee`, the email `erased@invalid`, and answers, notes, ' +
      'phone and timezone are removed. Mails about those bookings (sent or not), their webhook deliveries, stored ' +
      'Idempotency-Key responses and queued calendar write-back bodies are deleted; holds keep no client address. ' +
      'Other people’s bookings that give the email as an email-type answer keep their attendee; that answer becomes ' +
      '`erased@invalid`, and their mails, deliveries and stored responses go as above (their ids are in `bookingIds`). ' +
      'Sends `attendee.erased` `{ bookingIds }` per mode (with `routingResponseIds` when routing responses were erased too). Repeating it erases nothing more (all counts 0).',
  })
  @ApiResponse({ status: 200, type: EraseAttendeeResponse })
  @ApiErrors(400, 401, 403)
  async erase(@CurrentPrincipal() principal: Principal, @Body() dto: EraseAttendeeDto): Promise<EraseAttendeeResponse> {
    const { counts } = await this.erasure.eraseAttendee(principal, dto.email);
    return { erased: counts };
  }
}
