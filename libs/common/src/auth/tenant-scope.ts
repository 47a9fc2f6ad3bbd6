import { requestObserver } from '../request-observer.js';
import type { Principal } from './principal.js';

declare const tenantScopeBrand: unique symbol;

/**
 * The organization (and mode: live or test) that a piece of organization data belongs to. Every
 * repository method that reads or writes organization data takes one as its first parameter, so a
 * query without a tenant does not compile. It is branded: a plain `{ organizationId, livemode }` is
 * not one. Two functions make it: `tenantScope` from an authenticated Principal, and
 * `verifiedTenantScope`, which only the global lookups (a credential that names its organization:
 * invitation token, attendee token, login) may call; a test holds that list.
 */
export type TenantScope = Readonly<{ organizationId: string; livemode: boolean }> & { readonly [tenantScopeBrand]: true };

export function tenantScope(principal: Principal): TenantScope {
  return { organizationId: principal.organizationId, livemode: principal.livemode } as TenantScope;
}

/** For GlobalLookups only: the organization named by a credential that has just been verified. */
export function verifiedTenantScope(organizationId: string, livemode: boolean): TenantScope {
  requestObserver()?.scopeVerified(organizationId, livemode);
  return { organizationId, livemode } as TenantScope;
}

/** The same organization in live mode: for organization-wide data (members, event types) whose events are live ones. */
export function liveScopeOf(scope: TenantScope): TenantScope {
  return scope.livemode ? scope : ({ organizationId: scope.organizationId, livemode: true } as TenantScope);
}

/**
 * For job workers (`*.worker.ts`) only: the organization of a row the job claimed from a queue that
 * spans organizations, so the work on that row is scoped like a request's. A test holds the list.
 */
export function jobTenantScope(organizationId: string, livemode: boolean): TenantScope {
  return { organizationId, livemode } as TenantScope;
}
