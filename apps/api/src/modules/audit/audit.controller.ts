import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Access, ApiErrors, CurrentPrincipal, Permission, type Principal, Scope } from '@app/common';
import { AuditService } from './audit.service.js';
import { AuditLogQueryDto, AuditLogResponse, AuditRangeQueryDto } from './dto/audit.dto.js';

const READ = (): MethodDecorator & ClassDecorator => Access({ scope: Scope.AuditRead, permission: Permission.ReadAuditLog });

@ApiTags('audit')
@Controller('audit-log')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @READ()
  @ApiOperation({
    operationId: 'listAuditLog',
    summary: 'The organization’s audit log, newest first, filtered, a page at a time',
    description:
      'In the order entries became visible (settled): an entry that commits while paging sorts above every page already read, so none is skipped or repeated; a transaction still running holds the newer entries back.',
  })
  @ApiResponse({ status: 200, type: AuditLogResponse })
  @ApiErrors(400, 401, 403)
  list(@CurrentPrincipal() principal: Principal, @Query() query: AuditLogQueryDto): Promise<AuditLogResponse> {
    return this.audit.list(principal, query);
  }

  @Get('export')
  @READ()
  @ApiOperation({
    operationId: 'exportAuditLog',
    description:
      'The entries matching the same filters as `GET /v1/audit-log`, as `application/x-ndjson`, streamed so any range can be exported without paging (scope audit:read; owner or admin). Each line is one entry as the list shows it.',
    summary: 'The audit log between two instants as NDJSON (one entry a line, newest first), streamed',
  })
  // No ApiProduces: it would document the errors as NDJSON too, and they are sent as application/json. The 200 names
  // its own media type.
  @ApiResponse({
    status: 200,
    description: 'One AuditEntryView a line',
    content: { 'application/x-ndjson': { schema: { type: 'string' } } },
  })
  @ApiErrors(400, 401, 403)
  export(@CurrentPrincipal() principal: Principal, @Query() query: AuditRangeQueryDto, @Res() reply: FastifyReply): void {
    void reply
      .status(200)
      .header('cache-control', 'no-store')
      .type('application/x-ndjson; charset=utf-8')
      .send(this.audit.export(principal, query));
  }
}
