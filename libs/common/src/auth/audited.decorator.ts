import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

export const AUDIT_METADATA = 'audit:action';

/**
 * What a write route records in the audit log (contract § 18), read by the audit module's interceptor, which writes
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

export const Audited = (action: string, options: Omit<AuditRule, 'action'> = {}): MethodDecorator =>
  applyDecorators(SetMetadata(AUDIT_METADATA, { action, ...options } satisfies AuditRule), ApiExtension('x-audit-action', action));
