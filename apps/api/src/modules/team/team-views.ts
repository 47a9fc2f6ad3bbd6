import type { MemberView, OrganizationView } from './dto/team.dto.js';
import type { Member } from './entities/member.entity.js';
import type { Organization } from './entities/organization.entity.js';

export function organizationView(organization: Organization): OrganizationView {
  return {
    id: organization.id,
    name: organization.name,
    slug: organization.slug,
    defaultLocale: organization.defaultLocale,
    createdAt: organization.createdAt.toISOString(),
  };
}

/** What GET shows and member.* events carry. An active member's names follow its user's profile (syncProfileNames). */
export function memberView(member: Member): MemberView {
  const view: MemberView = {
    id: member.id,
    email: member.email,
    firstName: member.firstName,
    lastName: member.lastName,
    role: member.role,
    status: member.status,
    bookingLimits: member.bookingLimits ?? null,
    updatedAt: member.updatedAt.toISOString(),
  };
  if (member.status === 'active') {
    if (member.userId) view.userId = member.userId;
    if (member.joinedAt) view.joinedAt = member.joinedAt.toISOString();
  } else if (member.invitedAt) {
    view.invitedAt = member.invitedAt.toISOString();
  }
  return view;
}
