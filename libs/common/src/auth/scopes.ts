/** API-key scopes, `resource:action` (api-rules.md § Keys). The only place they are spelled. */
export const Scope = {
  BookingsRead: 'bookings:read',
  BookingsWrite: 'bookings:write',
  EventTypesRead: 'event_types:read',
  EventTypesWrite: 'event_types:write',
  AvailabilityRead: 'availability:read',
  AvailabilityWrite: 'availability:write',
  TeamRead: 'team:read',
  TeamWrite: 'team:write',
  WebhooksRead: 'webhooks:read',
  WebhooksWrite: 'webhooks:write',
  AuditRead: 'audit:read',
} as const;
export type Scope = (typeof Scope)[keyof typeof Scope];

export const ALL_SCOPES: readonly Scope[] = Object.values(Scope);

/** What a key gets when its creator names no scopes: every scope but `audit:read`, which is asked for by name. */
export const DEFAULT_SCOPES: readonly Scope[] = ALL_SCOPES.filter((scope) => scope !== Scope.AuditRead);

/** Each scope in words, as the consent page and the OpenAPI document's oauth2 scheme show it (contract § 20). */
export const SCOPE_WORDS: Record<Scope, string> = {
  'bookings:read': 'See bookings',
  'bookings:write': 'Create, cancel, reschedule, confirm and decline bookings',
  'event_types:read': 'See event types',
  'event_types:write': 'Create, change and delete event types',
  'availability:read': 'See availability, schedules and date overrides',
  'availability:write': 'Change schedules and date overrides',
  'team:read': 'See the organization and its members',
  'team:write': 'Rename the organization; invite, re-role and remove members',
  'webhooks:read': 'See webhooks and their deliveries',
  'webhooks:write': 'Create, change, test and delete webhooks; retry deliveries',
  'audit:read': 'Read the audit log',
};
