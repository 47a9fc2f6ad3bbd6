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

/** The organization in both modes, live first: for what spans them (erasing an attendee, contract § 18). */
export function modesOf(scope: TenantScope): [TenantScope, TenantScope] {
  const live = liveScopeOf(scope);
  return [live, { organizationId: scope.organizationId, livemode: false } as TenantScope];
}

/**
 * For job workers (`*.worker.ts`) only: the organization of a row the job claimed from a queue that
 * spans organizations, so the work on that row is scoped like a request's. A test holds the list.
 */
export function jobTenantScope(organizationId: string, livemode: boolean): TenantScope {
  return { organizationId, livemode } as TenantScope;
}

/**
 * Ids of several organizations for one lookup (a job's round over every organization's rows): each set of ids with the
 * scope it belongs to, so the statement matches every row on its organization (and mode) as a scoped one does. Data
 * access that takes these first is scoped like one that takes a TenantScope (tenant-scope.spec.ts).
 */
export interface ScopedIds {
  readonly scope: TenantScope;
  readonly ids: readonly string[];
}

/** The pairs as parallel arrays, one element per id, for `unnest($1::text[], $2::boolean[], $3::text[])`. */
export function scopedColumns(keys: readonly ScopedIds[]): { organizationIds: string[]; livemodes: boolean[]; ids: string[] } {
  const columns = { organizationIds: [] as string[], livemodes: [] as boolean[], ids: [] as string[] };
  for (const { scope, ids } of keys)
    for (const id of new Set(ids)) {
      columns.organizationIds.push(scope.organizationId);
      columns.livemodes.push(scope.livemode);
      columns.ids.push(id);
    }
  return columns;
}
