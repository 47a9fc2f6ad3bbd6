import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { SkipThrottle } from '@nestjs/throttler';
import { AppError, ErrorCode, Public } from '@app/common';

/** Probes sit outside /v1 and need no credentials (contract section 1). */
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
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiResponse({ status: 200, schema: { example: { status: 'ok' } } })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: the database answers' })
  @ApiResponse({ status: 200, schema: { example: { status: 'ok', info: { database: { status: 'up' } } } } })
  @ApiResponse({ status: 503, description: 'The database does not answer (code SERVICE_UNAVAILABLE)' })
  async ready(): Promise<unknown> {
    try {
      return await this.health.check([() => this.database.pingCheck('database', { timeout: 2000 })]);
    } catch {
      throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'The database is not reachable');
    }
  }
}
