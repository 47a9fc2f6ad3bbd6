import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Access, ApiErrors, Audited, ClientAddress, CurrentPrincipal, IdParam, type Principal } from '@app/common';
import { AnswersDto, PublicRoutingFormResponse, SubmittedResponse } from './dto/routing-form.dto.js';
import { RoutingFormsService } from './routing-forms.service.js';

const PUBLISHABLE =
  ' With `Authorization: ApiKey pk_…` and an `Origin` listed in the key’s allowedOrigins (else 403 ORIGIN_NOT_ALLOWED); ' +
  'CORS answers that origin only. A form outside the key’s `routingFormIds` (all the organization’s when null) → 404.';

/** The (P) routes of routing forms (contract § 22): an attendee's page shows a form and submits its answers. */
@ApiTags('public')
@Controller('public/routing-forms')
export class PublicRoutingFormsController {
  constructor(private readonly forms: RoutingFormsService) {}

  @Get(':id')
  @Access({ publishable: true })
  @ApiOperation({
    operationId: 'getPublicRoutingForm',
    summary: 'A routing form as an attendee fills it in: its fields, nothing of its rules',
    description: 'Fields have the shape of booking questions.' + PUBLISHABLE,
  })
  @ApiResponse({ status: 200, type: PublicRoutingFormResponse })
  @ApiErrors(400, 401, 403, 404)
  get(@CurrentPrincipal() principal: Principal, @IdParam('id', 'rtf') id: string): Promise<PublicRoutingFormResponse> {
    return this.forms.publicForm(principal, id);
  }

  @Post(':id/responses')
  @Audited('routing_response.created')
  @Access({ publishable: true })
  @ApiOperation({
    operationId: 'submitPublicRoutingFormResponse',
    summary: 'Submit the attendee’s answers; the answer says where they go',
    description:
      'Answers are checked as booking answers (400 naming `answers.<id>`); the response routes one booking for 24 hours ' +
      'webhook `routing_form.submitted`; a test key makes a test response. `route` ' +
      'is `{ eventTypeId }`, `{ message }` or `{ url }`: an attendee view shows no host ids (the response keeps them). At most ' +
      'PUBLIC_BOOKINGS_PER_VISITOR_PER_HOUR × 5 (default 50) responses per client address in any hour (whatever the key): then 429 ' +
      'RATE_LIMITED with Retry-After, the seconds until one of them leaves the hour.' +
      PUBLISHABLE,
  })
  @ApiResponse({ status: 201, type: SubmittedResponse })
  @ApiErrors(400, 401, 403, 404)
  submit(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id', 'rtf') id: string,
    @Body() dto: AnswersDto,
    @ClientAddress() client: string,
  ): Promise<SubmittedResponse> {
    return this.forms.submitFromPage(principal, id, dto.answers, client);
  }
}
