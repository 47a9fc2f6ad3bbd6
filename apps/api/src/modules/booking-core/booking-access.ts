import { Permission, type Principal, roleHas } from '@app/common';

/** API keys act for the organization; owners and admins see every booking and hold, members those they host. */
export function seesAllBookings(principal: Principal): boolean {
  return principal.type !== 'user' || (principal.role !== null && roleHas(principal.role, Permission.ManageAllBookings));
}

export function mayActOnBooking(principal: Principal, hostUserIds: readonly string[]): boolean {
  return seesAllBookings(principal) || hostUserIds.includes(principal.userId);
}
