import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { from, lastValueFrom, Observable } from 'rxjs';
import { AppError, AUDIT_METADATA, type AuditRule, ErrorCode, type RequestWithPrincipal } from '@app/common';
import { ReplicaReads } from '@app/database';
import { AuditTrail, type RequestAudit } from './audit-trail.service.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const USER_AGENT_MAX = 512;
/** A sign-in counts as failed when its credentials are refused or locked out; a malformed body is not a sign-in. */
const FAILED_SIGN_IN = new Set<string>([ErrorCode.INVALID_CREDENTIALS, ErrorCode.RATE_LIMITED]);

/**
 * Opens the audit context of every audited write request (POST, PUT, PATCH, DELETE) around its handler: what the route
 * declared with `@Audited`, the principal, request id, client address (`request.ip`, as TRUST_PROXY derives it) and
 * user agent. The entry itself is written by AuditTrail in the request's write transaction. A write route without
 * `@Audited` is a mistake the audit e2e test finds (it walks every write route of the OpenAPI document).
 *
 * Being on every write route, it also records the organization's write position for reads from standbys
 * (ReplicaReads.recordWrite) once the handler is done and before the response leaves; with no standby configured
 * that costs nothing.
 */
@Injectable()
export class AuditInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly trail: AuditTrail,
    private readonly replicaReads: ReplicaReads,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest & RequestWithPrincipal>();
    if (!this.replicaReads.enabled || !WRITE_METHODS.has(request.method)) return this.audited(context, request, next);
    let audit: RequestAudit | undefined;
    const work = lastValueFrom(
      this.audited(context, request, next, (opened) => (audit = opened)),
      { defaultValue: undefined },
    );
    const organizationId = (): string | null =>
      request.principal?.organizationId ?? audit?.verifiedOrganizationId ?? audit?.minted.get('org') ?? null;
    return from(
      work.then(
        async (result) => {
          await this.replicaReads.recordWrite(organizationId());
          return result;
        },
        async (error: unknown) => {
          await this.replicaReads.recordWrite(organizationId());
          throw error;
        },
      ),
    );
  }

  private audited(
    context: ExecutionContext,
    request: FastifyRequest & RequestWithPrincipal,
    next: CallHandler,
    opened?: (audit: RequestAudit) => void,
  ): Observable<unknown> {
    const rule = this.reflector.get<AuditRule | undefined>(AUDIT_METADATA, context.getHandler());
    if (!WRITE_METHODS.has(request.method) || !rule) return next.handle();
    if (rule.goesWithOrganization) return next.handle();
    const params = (request.params ?? {}) as Record<string, string | undefined>;
    const query = (request.query ?? {}) as Record<string, unknown>;
    const param = rule.param ?? 'id';
    const named = params[param] ?? (typeof query[param] === 'string' ? query[param] : undefined);
    const self =
      rule.self === 'user' ? request.principal?.userId : rule.self === 'organization' ? request.principal?.organizationId : undefined;
    const userAgent = request.headers['user-agent'];
    const audit: RequestAudit = {
      rule,
      principal: request.principal,
      requestId: typeof request.id === 'string' ? request.id : null,
      ip: request.ip ?? null,
      userAgent: typeof userAgent === 'string' ? userAgent.slice(0, USER_AGENT_MAX) : null,
      resourceId: named ?? self ?? null,
      minted: new Map(),
      verifiedOrganizationId: null,
      description: {},
      state: 'open',
      closed: false,
    };
    opened?.(audit);
    return from(this.trail.run(audit, () => this.handle(audit, next)));
  }

  private async handle(audit: RequestAudit, next: CallHandler): Promise<unknown> {
    try {
      const result = await lastValueFrom(next.handle(), { defaultValue: undefined });
      audit.closed = true;
      await this.trail.recordAlone(audit);
      return result;
    } catch (error) {
      audit.closed = true;
      if (audit.rule.failure && error instanceof AppError && FAILED_SIGN_IN.has(error.code)) {
        await this.trail.recordFailure(audit, audit.rule.failure);
      }
      throw error;
    }
  }
}
