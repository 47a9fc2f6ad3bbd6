/** Member roles and what each may do as a JWT caller: the role table of api-rules.md § Keys, as data. */
export const Role = { Owner: 'owner', Admin: 'admin', Member: 'member' } as const;
export type Role = (typeof Role)[keyof typeof Role];
export const ALL_ROLES: readonly Role[] = [Role.Owner, Role.Admin, Role.Member];

export const Permission = {
  ManageApiKeys: 'api_keys:manage',
  ManageWebhooks: 'webhooks:manage',
  UpdateOrganization: 'organization:update',
  DeleteOrganization: 'organization:delete',
  ReadOrganization: 'organization:read',
  ManageMembers: 'members:manage',
  ManageEventTypes: 'event_types:manage',
  ManageOwnAvailability: 'availability:own',
  ManageOthersAvailability: 'availability:others',
  CreateBookings: 'bookings:create',
  /** Read, cancel, reschedule, confirm and decline every booking of the organization, not only hosted ones. */
  ManageAllBookings: 'bookings:all',
  ManageHostedBookings: 'bookings:hosted',
  ReadAuditLog: 'audit:read',
  /** Single sign-on and SCIM provisioning (contract § 21): owners only. */
  ManageIdentity: 'identity:manage',
} as const;
export type Permission = (typeof Permission)[keyof typeof Permission];

export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  owner: Object.values(Permission),
  admin: Object.values(Permission).filter((p) => p !== Permission.DeleteOrganization && p !== Permission.ManageIdentity),
  member: [Permission.ReadOrganization, Permission.ManageOwnAvailability, Permission.CreateBookings, Permission.ManageHostedBookings],
};

export function roleHas(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}

/** Admins manage members but cannot grant `owner` nor touch an owner (api-rules.md § Keys). */
export function canManageMember(actor: Role, targetRole: Role, newRole?: Role): boolean {
  if (!roleHas(actor, Permission.ManageMembers)) return false;
  if (actor === Role.Owner) return true;
  return targetRole !== Role.Owner && newRole !== Role.Owner;
}
