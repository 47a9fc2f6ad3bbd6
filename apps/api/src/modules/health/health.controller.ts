import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { SkipThrottle } from '@nestjs/throttler';
import { AppError, ErrorCode, ErrorResponseDto, Public } from '@app/common';
import { TransactionHost } from '@app/database';
import { Readiness } from './readiness.js';

/** Probes sit outside /v1 and need no credentials (api-rules.md § Basics). */
@ApiTags('health')
@Public()
@SkipThrottle()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly tx: TransactionHost,
    private readonly readiness: Readiness,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'getHealth',
    description:
      'Answers 200 while the process runs, without touching the database: for a liveness probe. Outside /v1; no credentials, no rate limit.',
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
    description:
      "Answers 200 when the database answers and takes writes, 503 otherwise (and from SIGTERM on, while the instance drains): for a load balancer's or Kubernetes' readiness probe. Outside /v1; no credentials, no rate limit.",
    summary: 'Readiness: the database answers and takes writes (a primary, not a standby)',
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
  @ApiResponse({
    status: 503,
    type: ErrorResponseDto,
    description: 'SERVICE_UNAVAILABLE: the database does not answer, or what answers is a standby (a failover in progress)',
  })
  async ready(): Promise<unknown> {
    this.readiness.probed();
    // From SIGTERM on (main.ts): not ready, before the server stops accepting (contract § 19).
    if (this.readiness.stopping) throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'The instance is shutting down');
    let report: unknown;
    let standby: boolean;
    try {
      report = await this.health.check([() => this.database.pingCheck('database', { timeout: 2000 })]);
      // Behind a proxy to a Patroni cluster (deploy/ha/), a connection may reach a standby while no primary answers.
      const rows = (await this.tx.outside('a probe, never part of a transaction').query('SELECT pg_is_in_recovery() AS standby')) as {
        standby: boolean;
      }[];
      standby = rows[0]?.standby === true;
    } catch {
      throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'The database is not reachable');
    }
    if (standby) throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'The database does not take writes: no primary answers');
    return report;
  }
}
