import { Injectable } from '@nestjs/common';
import { AppError, Clock, type TenantScope } from '@app/common';
import type { BookingAnswer } from '../booking-core/index.js';
import type { BookingQuestion } from '../event-types/index.js';
import { type RoutedResponse, RoutedResponsesRepository } from './routed-responses.repository.js';

/** A response as GET /availability reads it (without its answers), possibly in another module's statement. */
export type RouteOfResponse = Omit<RoutedResponse, 'answers'>;

/** The request field every refusal of a response names (contract § 22). */
export const ROUTING_RESPONSE_FIELD = 'routingResponseId';

/** What a usable response allows: the hosts of its event type it routes to, and the answers that may prefill a booking. */
export interface Routing {
  readonly responseId: string;
  /** The hosts the response routes to; null: every host of the event type (a route without hostUserIds). */
  readonly hostUserIds: readonly string[] | null;
  readonly answers: readonly BookingAnswer[];
}

function unusable(message: string): AppError {
  return AppError.validation(ROUTING_RESPONSE_FIELD, message);
}

/**
 * The booking's answers with the response's filling the questions it leaves unanswered (contract § 22): an answer of the
 * response fills the question with its id and type; the booking's own answer always wins. The result is checked as any
 * booking's answers (acceptedAnswers), so a prefilled value that no longer fits a question is refused naming it.
 */
export function routedAnswers(
  questions: readonly BookingQuestion[],
  given: Readonly<Record<string, unknown>> | undefined,
  routing: Routing | null,
): Readonly<Record<string, unknown>> {
  const answers: Record<string, unknown> = { ...(given ?? {}) };
  if (routing === null) return answers;
  const byId = new Map(routing.answers.map((answer) => [answer.id, answer]));
  for (const question of questions) {
    const answer = byId.get(question.id);
    if (answer !== undefined && answer.type === question.type && !Object.hasOwn(answers, question.id)) {
      answers[question.id] = answer.value;
    }
  }
  return answers;
}

/**
 * Routed bookings (contract § 22, api-rules.md § Routed bookings): whether a routing response may route a request for an
 * event type, and the one booking it routes. Every unusable response (unknown, another organization's or mode's,
 * expired, routing to a message or url or to another event type, already booked) is 400 VALIDATION_ERROR naming
 * `routingResponseId`. A booking locks the response's row after its hosts' locks and links it in its own transaction,
 * so two bookings through one response, on any instances, make exactly one booking.
 */
@Injectable()
export class RoutedBookingsService {
  constructor(
    private readonly repository: RoutedResponsesRepository,
    private readonly clock: Clock,
  ) {}

  /** For GET /availability: the response, read without a lock. */
  async forAvailability(scope: TenantScope, responseId: string, eventTypeId: string): Promise<Routing> {
    return this.usable(await this.repository.findRoute(scope, responseId), responseId, eventTypeId);
  }

  /** For GET /availability when the response was read with the cache's fingerprint (SlotReadModel.routedFingerprint). */
  fromRead(response: RouteOfResponse | null, responseId: string, eventTypeId: string): Routing {
    return this.usable(response && { ...response, answers: [] }, responseId, eventTypeId);
  }

  /** For a booking or a hold, inside its transaction and after its hosts' locks: the response, its row locked. */
  async forBooking(scope: TenantScope, responseId: string, eventTypeId: string): Promise<Routing> {
    return this.usable(await this.repository.findForUpdate(scope, responseId), responseId, eventTypeId);
  }

  /** Links the response (locked by forBooking) to the booking made through it, with the booking's writes. */
  claim(scope: TenantScope, routing: Routing, bookingId: string): Promise<void> {
    return this.repository.claim(scope, routing.responseId, bookingId);
  }

  private usable(response: RoutedResponse | null, responseId: string, eventTypeId: string): Routing {
    if (response === null) throw unusable(`${responseId} is no routing response of this organization and mode`);
    if (response.expiresAt.getTime() <= this.clock.now().getTime())
      throw unusable(`${responseId} has expired (24 hours after it was submitted)`);
    if (response.bookingId !== null) throw unusable(`${responseId} has already routed a booking`);
    const route = response.route;
    if (!('eventTypeId' in route))
      throw unusable(`${responseId} routes to a ${'message' in route ? 'message' : 'url'}, not to an event type`);
    if (route.eventTypeId !== eventTypeId) throw unusable(`${responseId} routes to another event type`);
    return { responseId: response.id, hostUserIds: route.hostUserIds ?? null, answers: response.answers };
  }
}
