import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Access, ApiErrors, Audited, CurrentPrincipal, IdParam, Permission, type Principal, Scope, WildcardParam } from '@app/common';
import {
  CreateOutOfOfficeDto,
  ListOutOfOfficeQueryDto,
  MAX_EXTERNAL_ID_LENGTH,
  OutOfOfficeListResponse,
  OutOfOfficeResponse,
  UpdateOutOfOfficeDto,
} from './dto/out-of-office.dto.js';
import { OutOfOfficeService } from './out-of-office.service.js';

const OTHERS = 'Members manage their own entries; owners, admins and API keys anyone’s (another member’s: 403 for members).';
const BLOCKS =
  'While out of office the member is busy (reason `out_of_office`); existing bookings stay and are listed in `affectedBookings`. Overlapping entries of one user: 409 OUT_OF_OFFICE_OVERLAP.';

@ApiTags('out-of-office')
@Controller('out-of-office')
export class OutOfOfficeController {
  constructor(private readonly outOfOffice: OutOfOfficeService) {}

  @Post()
  @Audited('out_of_office.created')
  @Access({ scope: Scope.AvailabilityWrite, permission: Permission.ManageOwnAvailability })
  @ApiOperation({
    operationId: 'createOutOfOffice',
    summary: 'Record an absence (scope availability:write)',
    description: `${BLOCKS} ${OTHERS}`,
  })
  @ApiResponse({ status: 201, type: OutOfOfficeResponse })
  @ApiErrors(400, 401, 403, 404, 409)
  create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateOutOfOfficeDto): Promise<OutOfOfficeResponse> {
    return this.outOfOffice.create(principal, dto);
  }

  // A wildcard, not `:externalId`: the router caps a parameter at 100 characters (api-rules.md § Basics), an external id
  // may have 200 (percent-encoded, more); the service checks its length and that it is one segment.
  @Put('by-external-id/*')
  @Audited('out_of_office.saved')
  @Access({ scope: Scope.AvailabilityWrite, permission: Permission.ManageOwnAvailability })
  @ApiOperation({
    operationId: 'putOutOfOfficeByExternalId',
    summary: 'Create or replace the absence with this external id (scope availability:write)',
    description: `For syncing from another system (an HR tool): the same body again changes nothing; 200 whether created or replaced. externalId: 1 to ${MAX_EXTERNAL_ID_LENGTH} characters, unique in the organization. ${BLOCKS} ${OTHERS}`,
  })
  @ApiParam({
    name: 'externalId',
    schema: { type: 'string', minLength: 1, maxLength: MAX_EXTERNAL_ID_LENGTH },
    description: 'The caller’s own id for the entry (one path segment)',
  })
  @ApiResponse({ status: 200, type: OutOfOfficeResponse })
  @ApiErrors(400, 401, 403, 404, 409)
  @HttpCode(200)
  put(
    @CurrentPrincipal() principal: Principal,
    @WildcardParam('externalId') externalId: string,
    @Body() dto: CreateOutOfOfficeDto,
  ): Promise<OutOfOfficeResponse> {
    return this.outOfOffice.put(principal, externalId, dto);
  }

  @Get()
  @Access({ scope: Scope.AvailabilityRead })
  @ApiOperation({
    operationId: 'listOutOfOffice',
    summary: 'Absences, by start (scope availability:read)',
    description: `Without userId: members see their own, owners, admins and keys everyone’s. ${OTHERS}`,
  })
  @ApiResponse({ status: 200, type: OutOfOfficeListResponse })
  @ApiErrors(400, 401, 403)
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListOutOfOfficeQueryDto): Promise<OutOfOfficeListResponse> {
    return this.outOfOffice.list(principal, query);
  }

  @Get(':id')
  @Access({ scope: Scope.AvailabilityRead })
  @ApiOperation({
    operationId: 'getOutOfOffice',
    summary: 'One absence with its affected bookings (scope availability:read)',
    description: OTHERS,
  })
  @ApiResponse({ status: 200, type: OutOfOfficeResponse })
  @ApiErrors(400, 401, 403, 404)
  get(@CurrentPrincipal() principal: Principal, @IdParam('id', 'ooo') id: string): Promise<OutOfOfficeResponse> {
    return this.outOfOffice.get(principal, id);
  }

  @Patch(':id')
  @Audited('out_of_office.updated')
  @Access({ scope: Scope.AvailabilityWrite, permission: Permission.ManageOwnAvailability })
  @ApiOperation({
    operationId: 'updateOutOfOffice',
    summary: 'Change an absence (scope availability:write)',
    description: `${BLOCKS} ${OTHERS}`,
  })
  @ApiResponse({ status: 200, type: OutOfOfficeResponse })
  @ApiErrors(400, 401, 403, 404, 409)
  update(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id', 'ooo') id: string,
    @Body() dto: UpdateOutOfOfficeDto,
  ): Promise<OutOfOfficeResponse> {
    return this.outOfOffice.update(principal, id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @Audited('out_of_office.deleted')
  @Access({ scope: Scope.AvailabilityWrite, permission: Permission.ManageOwnAvailability })
  @ApiOperation({ operationId: 'deleteOutOfOffice', summary: 'Remove an absence (scope availability:write)', description: OTHERS })
  @ApiResponse({ status: 204 })
  @ApiErrors(400, 401, 403, 404)
  async remove(@CurrentPrincipal() principal: Principal, @IdParam('id', 'ooo') id: string): Promise<void> {
    await this.outOfOffice.remove(principal, id);
  }
}
