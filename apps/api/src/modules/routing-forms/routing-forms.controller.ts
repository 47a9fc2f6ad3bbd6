import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Access, ApiErrors, Audited, CurrentPrincipal, IdParam, PaginationQueryDto, Permission, type Principal, Scope } from '@app/common';
import {
  AnswersDto,
  CreateRoutingFormDto,
  ListResponsesQueryDto,
  RoutingFormListResponse,
  RoutingFormResponse,
  RoutingResponseListResponse,
  RoutingTestResponse,
  SubmittedResponse,
  UpdateRoutingFormDto,
} from './dto/routing-form.dto.js';
import { RoutingFormsService } from './routing-forms.service.js';

const RULES =
  'Rules are checked against the fields at save: a condition on an unknown field, an op that does not fit the field’s type (api-rules.md § Routing forms), a value outside a select’s options, an event type that is not active, hosts that are not its hosts → 400 naming it.';

@ApiTags('routing-forms')
@Controller('routing-forms')
export class RoutingFormsController {
  constructor(private readonly forms: RoutingFormsService) {}

  @Post()
  @Audited('routing_form.created')
  @Access({ scope: Scope.EventTypesWrite, permission: Permission.ManageEventTypes })
  @ApiOperation({ operationId: 'createRoutingForm', summary: 'Create a routing form (scope event_types:write)', description: RULES })
  @ApiResponse({ status: 201, type: RoutingFormResponse })
  @ApiErrors(400, 401, 403)
  create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateRoutingFormDto): Promise<RoutingFormResponse> {
    return this.forms.create(principal, dto);
  }

  @Get()
  @Access({ scope: Scope.EventTypesRead })
  @ApiOperation({
    operationId: 'listRoutingForms',
    description: "The organization's routing forms, oldest first, paged, each with its fields and routes (scope event_types:read).",
    summary: 'Routing forms, oldest first (scope event_types:read)',
  })
  @ApiResponse({ status: 200, type: RoutingFormListResponse })
  @ApiErrors(400, 401, 403)
  list(@CurrentPrincipal() principal: Principal, @Query() query: PaginationQueryDto): Promise<RoutingFormListResponse> {
    return this.forms.list(principal, query);
  }

  @Get(':id')
  @Access({ scope: Scope.EventTypesRead })
  @ApiOperation({
    operationId: 'getRoutingForm',
    description: 'One routing form with its fields, its routes in order and its fallback (scope event_types:read).',
    summary: 'One routing form (scope event_types:read)',
  })
  @ApiResponse({ status: 200, type: RoutingFormResponse })
  @ApiErrors(400, 401, 403, 404)
  get(@CurrentPrincipal() principal: Principal, @IdParam('id', 'rtf') id: string): Promise<RoutingFormResponse> {
    return this.forms.get(principal, id);
  }

  @Patch(':id')
  @Audited('routing_form.updated')
  @Access({ scope: Scope.EventTypesWrite, permission: Permission.ManageEventTypes })
  @ApiOperation({
    operationId: 'updateRoutingForm',
    summary: 'Change a routing form (scope event_types:write)',
    description: `Any of name, fields, routes, fallback; the whole form is checked again. ${RULES}`,
  })
  @ApiResponse({ status: 200, type: RoutingFormResponse })
  @ApiErrors(400, 401, 403, 404)
  update(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id', 'rtf') id: string,
    @Body() dto: UpdateRoutingFormDto,
  ): Promise<RoutingFormResponse> {
    return this.forms.update(principal, id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @Audited('routing_form.deleted')
  @Access({ scope: Scope.EventTypesWrite, permission: Permission.ManageEventTypes })
  @ApiOperation({
    operationId: 'deleteRoutingForm',
    description: 'Deletes the form and the responses it recorded; bookings made through it are kept (scope event_types:write).',
    summary: 'Delete a routing form and its responses (scope event_types:write)',
  })
  @ApiResponse({ status: 204 })
  @ApiErrors(400, 401, 403, 404)
  async remove(@CurrentPrincipal() principal: Principal, @IdParam('id', 'rtf') id: string): Promise<void> {
    await this.forms.remove(principal, id);
  }

  @Post(':id/test')
  @HttpCode(200)
  @Audited('routing_form.tested')
  @Access({ scope: Scope.EventTypesRead })
  @ApiOperation({
    operationId: 'testRoutingForm',
    summary: 'Where these answers would go; nothing is stored (scope event_types:read)',
    description:
      'Answers are checked as booking answers (400 naming `answers.<id>`). `matchedRoute`: the index of the route that held, null for the fallback.',
  })
  @ApiResponse({ status: 200, type: RoutingTestResponse })
  @ApiErrors(400, 401, 403, 404)
  test(@CurrentPrincipal() principal: Principal, @IdParam('id', 'rtf') id: string, @Body() dto: AnswersDto): Promise<RoutingTestResponse> {
    return this.forms.test(principal, id, dto.answers);
  }

  @Post(':id/responses')
  @Audited('routing_response.created')
  @Access({ scope: Scope.BookingsWrite, permission: Permission.CreateBookings })
  @ApiOperation({
    operationId: 'submitRoutingFormResponse',
    summary: 'Submit answers from a backend (scope bookings:write)',
    description:
      'Answers are checked as booking answers (400 naming `answers.<id>`); the response keeps them and its route for 24 hours of booking; webhook `routing_form.submitted`.',
  })
  @ApiResponse({ status: 201, type: SubmittedResponse })
  @ApiErrors(400, 401, 403, 404)
  submit(@CurrentPrincipal() principal: Principal, @IdParam('id', 'rtf') id: string, @Body() dto: AnswersDto): Promise<SubmittedResponse> {
    return this.forms.submit(principal, id, dto.answers);
  }

  @Get(':id/responses')
  @Access({ scope: Scope.BookingsRead, permission: Permission.ManageAllBookings })
  @ApiOperation({
    operationId: 'listRoutingFormResponses',
    summary: 'The form’s responses in the caller’s mode, newest first (scope bookings:read)',
    description: 'Members: 403 (responses carry visitors’ answers). `from` inclusive, `to` exclusive, on createdAt.',
  })
  @ApiResponse({ status: 200, type: RoutingResponseListResponse })
  @ApiErrors(400, 401, 403, 404)
  responses(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id', 'rtf') id: string,
    @Query() query: ListResponsesQueryDto,
  ): Promise<RoutingResponseListResponse> {
    return this.forms.responses(principal, id, query);
  }
}
