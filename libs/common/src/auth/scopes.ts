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
