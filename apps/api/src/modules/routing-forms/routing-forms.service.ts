import { Injectable } from '@nestjs/common';
import { parseInputTimestamp } from '@app/availability';
import {
  AppConfig,
  AppError,
  Clock,
  ErrorCode,
  isForeignKeyViolation,
  LIMIT_WINDOW_MS,
  admitWithinHour,
  newId,
  pageMeta,
  pageOffset,
  type PageRequest,
  type Principal,
  tenantScope,
  type TenantScope,
} from '@app/common';
import { TransactionHost } from '@app/database';
import { PeriodicJobs, RETENTION_INTERVAL_MS } from '../../jobs/index.js';
import { AuditTrail, changesBetween } from '../audit/index.js';
import { acceptedAnswers, type BookingAnswer } from '../booking-core/index.js';
import { type BookingQuestion, EventTypesService, normalizeQuestions } from '../event-types/index.js';
import { DomainEvents } from '../outbox/index.js';
import {
  CreateRoutingFormDto,
  ListResponsesQueryDto,
  PublicRoutingFormResponse,
  RouteDto,
  RouteTargetDto,
  RouteTargetView,
  RoutingFormListResponse,
  RoutingFormResponse,
  RoutingFormView,
  RoutingResponseListResponse,
  RoutingResponseView,
  RoutingTestResponse,
  SubmittedResponse,
  UpdateRoutingFormDto,
} from './dto/routing-form.dto.js';
import { RoutingForm, type RouteTarget } from './entities/routing-form.entity.js';
import { RoutingResponse } from './entities/routing-response.entity.js';
import { RoutingFormsRepository } from './routing-forms.repository.js';
import { type AnswerValue, routeFor, type RoutingRule, type RuleProblem, ruleProblems } from './routing-rules.js';

/** A response routes a booking for this long (contract § 22). */
export const RESPONSE_TTL_MS = 24 * 60 * 60 * 1000;

/** A visitor submits at most PUBLIC_BOOKINGS_PER_VISITOR_PER_HOUR × this many responses an hour per client address (contract § 22). */
export const RESPONSES_PER_BOOKING_LIMIT = 5;

/** Who submits through a publishable key: the key and the client address (an IPv4 address or an IPv6 /64). */
export interface ResponseVisitor {
  apiKeyId: string;
  clientAddress: string;
}

/** The routing forms a publishable key may use: its list, or every form of the organization (null). */
function keyRoutingForms(principal: Principal): string[] | null {
  return principal.apiKey?.publishable?.routingFormIds ?? null;
}

/** The route as an attendee sees it: never host ids (api-rules.md § Browser booking, attendee views). */
function attendeeRoute({ hostUserIds: _hosts, ...route }: RouteTargetView): RouteTargetView {
  return route;
}

const AUDITED_FIELDS = ['name', 'fields', 'routes', 'fallback'] as const;

function invalid(problems: RuleProblem[]): AppError {
  return new AppError(ErrorCode.VALIDATION_ERROR, 'The routing form’s rules do not fit', problems);
}

function formView(form: RoutingForm): RoutingFormView {
  return {
    id: form.id,
    name: form.name,
    fields: form.fields,
    routes: form.routes,
    fallback: form.fallback,
    createdAt: form.createdAt.toISOString(),
    updatedAt: form.updatedAt.toISOString(),
  };
}

function responseView(response: RoutingResponse): RoutingResponseView {
  return {
    id: response.id,
    answers: response.answers,
    route: response.route,
    matchedRoute: response.matchedRoute,
    bookingId: response.bookingId,
    createdAt: response.createdAt.toISOString(),
  };
}

/** The target as stored: exactly the kind's members, nothing the DTO class carries. */
function targetOf(dto: RouteTargetDto, path: string, problems: RuleProblem[]): RouteTarget {
  const kinds = [dto.eventTypeId, dto.message, dto.url].filter((value) => value !== undefined && value !== null).length;
  if (kinds !== 1) problems.push({ field: path, message: `${path} takes exactly one of eventTypeId, message, url` });
  if (dto.hostUserIds !== undefined && dto.eventTypeId === undefined) {
    problems.push({ field: `${path}.hostUserIds`, message: 'hostUserIds go with an eventTypeId' });
  }
  if (dto.eventTypeId !== undefined) {
    return dto.hostUserIds !== undefined
      ? { eventTypeId: dto.eventTypeId, hostUserIds: [...dto.hostUserIds] }
      : { eventTypeId: dto.eventTypeId };
  }
  return dto.message !== undefined ? { message: dto.message } : { url: dto.url ?? '' };
}

function answerMap(answers: readonly BookingAnswer[]): Map<string, AnswerValue> {
  return new Map(answers.map((answer) => [answer.id, answer.value]));
}

function instantOf(field: string, value: string | undefined): Date | null {
  if (value === undefined) return null;
  const instant = parseInputTimestamp(value, 'UTC');
  if (instant === null) throw AppError.validation(field, `${field} must be an ISO 8601 timestamp within the years 1 to 9999`);
  return new Date(instant);
}

/**
 * Routing forms (contract § 22): a form's rules are checked against its fields and the organization's event types at
 * every save; a submission is checked as booking answers, routed by routing-rules.ts, stored with its route and
 * announced (`routing_form.submitted`) in one transaction. Forms are organization data shared by both modes; responses
 * belong to the mode of the key that submitted them.
 */
@Injectable()
export class RoutingFormsService {
  constructor(
    private readonly repository: RoutingFormsRepository,
    private readonly eventTypes: EventTypesService,
    private readonly events: DomainEvents,
    private readonly clock: Clock,
    private readonly tx: TransactionHost,
    private readonly audit: AuditTrail,
    private readonly config: AppConfig,
    jobs: PeriodicJobs,
  ) {
    jobs.register('visitor-responses-cleanup', RETENTION_INTERVAL_MS, () =>
      this.repository.deleteVisitorResponsesBefore(new Date(this.clock.now().getTime() - LIMIT_WINDOW_MS)),
    );
  }

  async create(principal: Principal, dto: CreateRoutingFormDto): Promise<RoutingFormResponse> {
    const scope = tenantScope(principal);
    const now = this.clock.now();
    // Checked and stored in one transaction, as an update is: the event types are read where the form is written.
    const form = await this.tx.transaction(async () => {
      const created = Object.assign(new RoutingForm(), {
        id: newId('rtf'),
        organizationId: scope.organizationId,
        createdAt: now,
        updatedAt: now,
        ...(await this.checked(scope, dto.name, dto.fields, dto.routes, dto.fallback)),
      });
      await this.repository.insert(scope, created);
      return created;
    });
    return { routingForm: formView(form) };
  }

  async list(principal: Principal, page: PageRequest): Promise<RoutingFormListResponse> {
    const [forms, totalCount] = await this.repository.list(tenantScope(principal), pageOffset(page), page.limit);
    return { routingForms: forms.map(formView), ...pageMeta(page, totalCount) };
  }

  async get(principal: Principal, id: string): Promise<RoutingFormResponse> {
    return { routingForm: formView(await this.find(tenantScope(principal), id)) };
  }

  /** Any of name, fields, routes, fallback; the whole form is checked again (a field a route names may have gone). */
  async update(principal: Principal, id: string, dto: UpdateRoutingFormDto): Promise<RoutingFormResponse> {
    const scope = tenantScope(principal);
    const form = await this.tx.transaction(async () => {
      const existing = await this.repository.findForUpdate(scope, id);
      if (existing === null) throw AppError.notFound('Routing form');
      const checked = await this.checked(
        scope,
        dto.name ?? existing.name,
        dto.fields ?? existing.fields,
        dto.routes ?? existing.routes,
        dto.fallback ?? existing.fallback,
      );
      const updated = Object.assign(new RoutingForm(), existing, checked, { updatedAt: this.clock.now() });
      this.audit.describe({ changes: changesBetween(existing, updated, AUDITED_FIELDS) });
      await this.repository.update(scope, updated);
      return updated;
    });
    return { routingForm: formView(form) };
  }

  async remove(principal: Principal, id: string): Promise<void> {
    await this.tx.transaction(async () => {
      if (!(await this.repository.delete(tenantScope(principal), id))) throw AppError.notFound('Routing form');
    });
  }

  /** Where these answers would go; nothing is stored. */
  async test(principal: Principal, id: string, answers: Readonly<Record<string, unknown>>): Promise<RoutingTestResponse> {
    const form = await this.find(tenantScope(principal), id);
    return routeFor(form.fields, form.routes, form.fallback, answerMap(acceptedAnswers(form.fields, answers)));
  }

  /** Which of these ids are routing forms of the organization (a publishable key's list is checked against them). */
  existing(scope: TenantScope, ids: readonly string[]): Promise<Set<string>> {
    return this.repository.existingIds(scope, ids);
  }

  /** GET /public/routing-forms/:id: what the attendee fills in, nothing of the rules or their targets. */
  async publicForm(principal: Principal, id: string): Promise<PublicRoutingFormResponse> {
    this.assertKeyMayUse(principal, id);
    const form = await this.find(tenantScope(principal), id);
    return { routingForm: { id: form.id, name: form.name, fields: form.fields } };
  }

  /** POST /public/routing-forms/:id/responses: as a backend's submission, within the visitor's hourly limit; no host ids. */
  async submitFromPage(
    principal: Principal,
    id: string,
    answers: Readonly<Record<string, unknown>>,
    clientAddress: string,
  ): Promise<SubmittedResponse> {
    this.assertKeyMayUse(principal, id);
    const { response } = await this.submit(principal, id, answers, { apiKeyId: principal.apiKey!.id, clientAddress });
    return { response: { id: response.id, route: attendeeRoute(response.route) } };
  }

  /**
   * Checks, routes and stores a submission, and records `routing_form.submitted`, in one transaction; a visitor's
   * (publishable key) is first admitted under its hourly limit in that transaction.
   */
  async submit(
    principal: Principal,
    id: string,
    answers: Readonly<Record<string, unknown>>,
    visitor?: ResponseVisitor,
  ): Promise<SubmittedResponse> {
    const scope = tenantScope(principal);
    const form = await this.find(scope, id);
    const accepted = acceptedAnswers(form.fields, answers);
    const { route, matchedRoute } = routeFor(form.fields, form.routes, form.fallback, answerMap(accepted));
    const now = this.clock.now();
    const response = Object.assign(new RoutingResponse(), {
      id: newId('rtr'),
      organizationId: scope.organizationId,
      livemode: scope.livemode,
      routingFormId: form.id,
      answers: accepted,
      route,
      matchedRoute,
      bookingId: null,
      expiresAt: new Date(now.getTime() + RESPONSE_TTL_MS),
      createdAt: now,
    });
    await this.tx.transaction(async () => {
      if (visitor !== undefined) await this.admitVisitor(scope, visitor);
      // The form deleted since it was read: its foreign key refuses the response, and the form is gone (404).
      await this.repository.insertResponse(scope, response).catch((error: unknown) => {
        throw isForeignKeyViolation(error) ? AppError.notFound('Routing form') : error;
      });
      if (visitor !== undefined)
        await this.repository.insertVisitorResponse(scope, {
          responseId: response.id,
          ...visitor,
          organizationId: scope.organizationId,
          createdAt: now,
        });
      // The entry is about the response (the route's `id` names its form).
      this.audit.describe({ resourceId: response.id });
      await this.events.record(scope, {
        type: 'routing_form.submitted',
        data: { response: { ...responseView(response), routingFormId: form.id } },
      });
    });
    return { response: { id: response.id, route } };
  }

  async responses(principal: Principal, id: string, query: ListResponsesQueryDto): Promise<RoutingResponseListResponse> {
    const scope = tenantScope(principal);
    const filter = { from: instantOf('from', query.from), to: instantOf('to', query.to) };
    await this.find(scope, id);
    const [rows, totalCount] = await this.repository.listResponses(scope, id, filter, pageOffset(query), query.limit);
    return { responses: rows.map(responseView), ...pageMeta(query, totalCount) };
  }

  /**
   * An attendee's erasure (contract § 18): the answers of the scope's responses whose email-type answer is `email` are
   * emptied, inside the erasure's transaction, with their `routing_form.submitted` events and those events' webhook
   * deliveries (their payloads carry the answers) and the client addresses they were sent from. The route and the
   * booking link stay (they name no person). Returns how many deliveries went.
   */
  async eraseAnswersOf(scope: TenantScope, email: string): Promise<{ responseIds: string[]; deliveries: number }> {
    const responseIds = await this.repository.eraseAnswersOf(scope, email);
    return { responseIds, deliveries: await this.events.eraseAboutRoutingResponses(scope, responseIds) };
  }

  /** A form outside the key's list is, for the key, no form at all (404). */
  private assertKeyMayUse(principal: Principal, id: string): void {
    const allowed = keyRoutingForms(principal);
    if (allowed !== null && !allowed.includes(id)) throw AppError.notFound('Routing form');
  }

  /**
   * At most PUBLIC_BOOKINGS_PER_VISITOR_PER_HOUR × 5 responses per client address in any hour (whatever the key), counted in the
   * database under a lock of the visitor's (as public bookings are): concurrent submissions on any number of instances
   * cannot pass the count together, and a refused one counts for nothing. Else 429 RATE_LIMITED with Retry-After.
   */
  private async admitVisitor(scope: TenantScope, visitor: ResponseVisitor): Promise<void> {
    const limit = this.config.publicBookingsPerVisitorPerHour * RESPONSES_PER_BOOKING_LIMIT;
    const now = this.clock.now().getTime();
    await this.repository.lockVisitor(scope, visitor.clientAddress);
    const made = await this.repository.visitorResponsesSince(scope, visitor.clientAddress, new Date(now - LIMIT_WINDOW_MS), limit);
    admitWithinHour(made, limit, now, `At most ${limit} responses an hour from one visitor`);
  }

  private async find(scope: TenantScope, id: string): Promise<RoutingForm> {
    const form = await this.repository.find(scope, id);
    if (form === null) throw AppError.notFound('Routing form');
    return form;
  }

  /** The form as it is stored, or a 400 naming each problem: fields, then rules, then targets and their event types. */
  private async checked(
    scope: TenantScope,
    name: string,
    fieldInputs: readonly (BookingQuestion | CreateRoutingFormDto['fields'][number])[],
    routeInputs: readonly (RouteDto | RoutingRule<RouteTarget>)[],
    fallbackInput: RouteTargetDto | RouteTarget,
  ): Promise<Pick<RoutingForm, 'name' | 'fields' | 'routes' | 'fallback'>> {
    const fields = normalizeQuestions(fieldInputs, 'fields');
    const problems = ruleProblems(fields, routeInputs);
    const routes = routeInputs.map((route, index) => ({
      when: {
        ...(route.when.all !== undefined ? { all: route.when.all.map(({ field, op, value }) => ({ field, op, value })) } : {}),
        ...(route.when.any !== undefined ? { any: route.when.any.map(({ field, op, value }) => ({ field, op, value })) } : {}),
      },
      to: targetOf(route.to, `routes[${index}].to`, problems),
    }));
    const fallback = targetOf(fallbackInput, 'fallback', problems);
    if (problems.length > 0) throw invalid(problems);
    await this.checkEventTypes(scope, [
      ...routes.map((route, index) => [`routes[${index}].to`, route.to] as const),
      ['fallback', fallback],
    ]);
    return { name, fields, routes, fallback };
  }

  /** Each event type named is an active one of the organization; hosts, a subset of its hosts. */
  private async checkEventTypes(scope: TenantScope, targets: readonly (readonly [string, RouteTarget])[]): Promise<void> {
    const ids = [...new Set(targets.flatMap(([, to]) => ('eventTypeId' in to ? [to.eventTypeId] : [])))];
    if (ids.length === 0) return;
    const found = new Map((await this.eventTypes.active(scope, ids, ids.length)).map((eventType) => [eventType.id, eventType]));
    const problems: RuleProblem[] = [];
    for (const [path, to] of targets) {
      if (!('eventTypeId' in to)) continue;
      const eventType = found.get(to.eventTypeId);
      if (eventType === undefined) {
        problems.push({ field: `${path}.eventTypeId`, message: `${to.eventTypeId} is not an active event type of the organization` });
        continue;
      }
      const strangers = (to.hostUserIds ?? []).filter((userId) => !eventType.hostUserIds.includes(userId));
      if (strangers.length > 0) {
        problems.push({ field: `${path}.hostUserIds`, message: `not hosts of ${to.eventTypeId}: ${strangers.join(', ')}` });
      }
    }
    if (problems.length > 0) throw invalid(problems);
  }
}
