import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { SkipThrottle } from '@nestjs/throttler';
import { AppError, ErrorCode, ErrorResponseDto, Public } from '@app/common';

/** Probes sit outside /v1 and need no credentials (api-rules.md § Basics). */
@ApiTags('health')
@Public()
@SkipThrottle()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'getHealth',
    summary: 'Liveness: the process answers',
  })
  @ApiResponse({
    status: 200,
    schema: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ok'] } }, example: { status: 'ok' } },
  })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({
    operationId: 'getReadiness',
    summary: 'Readiness: the database answers',
  })
  @ApiResponse({
    status: 200,
    description: "@nestjs/terminus's report",
    schema: {
      type: 'object',
      required: ['status'],
      properties: {
        status: { type: 'string', enum: ['ok'] },
        info: { type: 'object', additionalProperties: true },
        error: { type: 'object', additionalProperties: true },
        details: { type: 'object', additionalProperties: true },
      },
      example: { status: 'ok', info: { database: { status: 'up' } }, error: {}, details: { database: { status: 'up' } } },
    },
  })
  @ApiResponse({ status: 503, type: ErrorResponseDto, description: 'SERVICE_UNAVAILABLE: the database does not answer' })
  async ready(): Promise<unknown> {
    try {
      return await this.health.check([() => this.database.pingCheck('database', { timeout: 2000 })]);
    } catch {
      throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'The database is not reachable');
    }
  }
}
