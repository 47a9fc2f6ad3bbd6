import type { Schemas } from '../api/client';

export type Scope = Schemas['OAuthAppView']['scopes'][number];

/** Each scope in words, as an organization reads what an app asks for (the API's own list: contract § 4). */
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
