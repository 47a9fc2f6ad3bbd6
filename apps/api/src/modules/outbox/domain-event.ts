/** What a domain event is: its types, the notification channel, and the shapes the outbox writes and reads. */
export const DOMAIN_EVENT_TYPES = [
  'booking.created',
  'booking.cancelled',
  'booking.rescheduled',
  'booking.confirmed',
  'booking.declined',
  'booking.no_show',
  'booking.reassigned',
  'booking.reminder',
  'event_type.created',
  'event_type.updated',
  'event_type.deleted',
  'member.invited',
  'member.joined',
  'member.updated',
  'member.removed',
  'calendar.sync_failed',
  'attendee.erased',
  'routing_form.submitted',
] as const;
export type DomainEventType = (typeof DOMAIN_EVENT_TYPES)[number];

export const DOMAIN_EVENTS_CHANNEL = 'domain_events';

/** A committed event as the webhooks dispatcher fans it out. */
export interface PendingEvent {
  id: string;
  organizationId: string;
  livemode: boolean;
  type: string;
  data: Record<string, unknown>;
  createdAt: Date;
  /** The W3C traceparent of the span that recorded it (tracing on), for the deliveries it fans out to. */
  traceParent: string | null;
}

/** A pending event as the dispatcher claims it: its claim (id and lease, LeaseQueue) and the fan-outs that claimed it. */
export interface ClaimedEvent extends PendingEvent {
  lease: string;
  attempts: number;
}

export interface DomainEventInput {
  type: DomainEventType;
  /** The payload's `data`, e.g. `{ booking }` rendered as the API shows it. */
  data: Record<string, unknown>;
}
