import { AppError, ErrorCode } from '@app/common';

/** What an attendee may still change with its token (contract § 17): allowed at all, and how long before the start. */
export interface ChangePolicy {
  allowed: boolean;
  /** 0..43200: the change is refused when fewer minutes than this remain before the booking's start. */
  noticeMinutes: number;
}

export const MAX_NOTICE_MINUTES = 43_200;
export const DEFAULT_CHANGE_POLICY: ChangePolicy = { allowed: true, noticeMinutes: 0 };

export type AttendeeChange = 'cancellation' | 'rescheduling';

/** An event type's two policies, as every booking view and the attendee routes need them. */
export interface ChangePolicies {
  attendeeCancellation: ChangePolicy;
  attendeeRescheduling: ChangePolicy;
}

/** A write's partial policy merged over the one in force (a missing field keeps its value). */
export function mergePolicy(current: ChangePolicy, change: Partial<ChangePolicy> | undefined): ChangePolicy {
  return { allowed: change?.allowed ?? current.allowed, noticeMinutes: change?.noticeMinutes ?? current.noticeMinutes };
}

/** The last instant the attendee may make the change, or null when the policy forbids it. */
export function changeDeadline(policy: ChangePolicy, startsAt: Date): Date | null {
  return policy.allowed ? new Date(startsAt.getTime() - policy.noticeMinutes * 60_000) : null;
}

/** `attendeeCanCancelUntil` and `attendeeCanRescheduleUntil` of a booking starting at `startsAt`. */
export function changeDeadlines(
  policies: ChangePolicies | undefined,
  startsAt: Date,
): { attendeeCanCancelUntil: string | null; attendeeCanRescheduleUntil: string | null } {
  const cancel = changeDeadline(policies?.attendeeCancellation ?? DEFAULT_CHANGE_POLICY, startsAt);
  const reschedule = changeDeadline(policies?.attendeeRescheduling ?? DEFAULT_CHANGE_POLICY, startsAt);
  return { attendeeCanCancelUntil: cancel?.toISOString() ?? null, attendeeCanRescheduleUntil: reschedule?.toISOString() ?? null };
}

/** 409 CHANGE_NOT_ALLOWED unless the attendee may make `change` at `now` to a booking starting at `startsAt`. */
export function assertAttendeeMayChange(policy: ChangePolicy, change: AttendeeChange, startsAt: Date, now: Date): void {
  if (!policy.allowed) {
    throw new AppError(ErrorCode.CHANGE_NOT_ALLOWED, `This event type does not allow ${change} by the attendee`, [
      { field: 'startsAt', message: `${change} by the attendee is not allowed` },
    ]);
  }
  if (startsAt.getTime() - now.getTime() < policy.noticeMinutes * 60_000) {
    throw new AppError(ErrorCode.CHANGE_NOT_ALLOWED, `Too late for ${change} by the attendee`, [
      { field: 'startsAt', message: `${change} needs ${policy.noticeMinutes} minutes' notice` },
    ]);
  }
}
