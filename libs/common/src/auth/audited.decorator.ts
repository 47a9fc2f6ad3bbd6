import {
  applyDecorators,
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  type NestInterceptor,
  SetMetadata,
  UseInterceptors,
} from '@nestjs/common';
import type { Observable } from 'rxjs';
import { ApiExtension } from '@nestjs/swagger';

export const AUDIT_METADATA = 'audit:action';

/**
 * What a write route records in the audit log (contract § 18), read by the audit module's interceptor (bound to the
 * audited routes by `Audited`), which writes
 * the entry in the request's write transaction. `action` is `<resource>.<verb>`; the resource type is the part before
 * the dot unless `resource` names it. The resource id is the route parameter `param` (default `id`) or, for a create,
 * the first id of the resource's kind the request minted. `failure`: the action recorded when the route fails with a
 * refused credential (a failed sign-in), outside the failed request's rolled-back transaction.
 */
export interface AuditRule {
  action: string;
  resource?: string;
  /** The route parameter (or, failing that, query parameter) that names the resource. */
  param?: string;
  /** Without a parameter, the resource is the caller's own user or organization. */
  self?: 'user' | 'organization';
  failure?: string;
  /** Written nowhere: the organization's deletion takes its entries with it (contract § 18). */
  goesWithOrganization?: true;
}

/** The audit module's interceptor, provided under this token (apps/api audit.module.ts). */
export const AUDIT_INTERCEPTOR = Symbol('AUDIT_INTERCEPTOR');

/**
 * Binds the audit module's interceptor to the audited routes only. A global interceptor would put every request,
 * reads included, through Nest's interceptor pipeline (RxJS and an async resource per request: some 5 % of the CPU of
 * a one-lookup route, profiled); this class lives here so that the decorator needs nothing from the app, and Nest
 * builds it in each controller's module, where the (global) audit module provides the real one.
 */
@Injectable()
export class AuditedRouteInterceptor implements NestInterceptor {
  constructor(@Inject(AUDIT_INTERCEPTOR) private readonly audit: NestInterceptor) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> | Promise<Observable<unknown>> {
    return this.audit.intercept(context, next);
  }
}

export const Audited = (action: string, options: Omit<AuditRule, 'action'> = {}): MethodDecorator =>
  applyDecorators(
    SetMetadata(AUDIT_METADATA, { action, ...options } satisfies AuditRule),
    ApiExtension('x-audit-action', action),
    UseInterceptors(AuditedRouteInterceptor),
  );
