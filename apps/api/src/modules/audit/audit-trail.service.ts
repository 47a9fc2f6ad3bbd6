import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import { type AuditRule, Clock, newId, type Principal, setRequestObserver, type TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { AuditRepository, type AuditEntryInput } from './audit.repository.js';
import { type AuditChanges, redact, redactChanges } from './redact.js';

export type ActorType = 'user' | 'api_key' | 'app' | 'attendee' | 'system' | 'scim';

export interface AuditActor {
  type: ActorType;
  id: string | null;
  label: string | null;
}

/** What a service may add to its request's entry (AuditTrail.describe). */
export interface AuditDescription {
  actor?: AuditActor;
  resourceId?: string;
  changes?: AuditChanges;
  details?: Record<string, unknown>;
  /** The action when the service knows better than the route (e.g. a member's update that changed the role). */
  action?: string;
}

/** The id prefix of each resource type: a create's resource is the first id of its kind its request minted. */
const RESOURCE_PREFIXES = new Map<string, string>([
  ['organization', 'org'],
  ['user', 'usr'],
  ['member', 'mem'],
  ['api_key', 'key'],
  ['event_type', 'evt'],
  ['booking', 'bkg'],
  ['schedule', 'sch'],
  ['override', 'ovr'],
  ['webhook', 'wh'],
  ['webhook_delivery', 'whdel'],
  ['session', 'ses'],
  ['calendar', 'cal'],
  ['hold', 'hld'],
  ['series', 'ser'],
  ['out_of_office', 'ooo'],
  ['routing_form', 'rtf'],
  ['routing_response', 'rtr'],
  ['oauth_app', 'app'],
  ['oauth_grant', 'grt'],
  ['oauth_request', 'oar'],
]);

/** One write request's entry while it runs: what the route declared, what the request showed, what services added. */
export interface RequestAudit {
  rule: AuditRule;
  principal: Principal | undefined;
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
  resourceId: string | null;
  minted: Map<string, string>;
  verifiedOrganizationId: string | null;
  description: AuditDescription;
  /** `pending`: written in a transaction not yet settled; `recorded`: committed; `closed`: the handler has returned. */
  state: 'open' | 'pending' | 'recorded';
  closed: boolean;
}

/** One store per process: the id and scope observers are process-wide (libs/common request-observer.ts). */
const requests = new AsyncLocalStorage<RequestAudit>();

setRequestObserver({
  idMinted(prefix, id) {
    const audit = requests.getStore();
    if (audit && !audit.closed && !audit.minted.has(prefix)) audit.minted.set(prefix, id);
  },
  scopeVerified(organizationId) {
    const audit = requests.getStore();
    if (audit && !audit.closed) audit.verifiedOrganizationId ??= organizationId;
  },
});

/**
 * The audit log's one writer (contract § 18). The interceptor opens a RequestAudit for every write request; this
 * participant of every transaction writes the request's entry just before the request's first write transaction
 * commits, in it: a change that rolls back leaves no entry, and an entry exists only with its change. A request that
 * committed no transaction (a send, a sync) gets its entry in a transaction of its own when it succeeds.
 */
@Injectable()
export class AuditTrail {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repository: AuditRepository,
    private readonly clock: Clock,
  ) {
    tx.participate({
      beforeCommit: () => this.beforeCommit(),
      settled: (committed) => this.settled(committed),
    });
  }

  /** Runs `work` as one write request's (the interceptor). */
  run<T>(audit: RequestAudit, work: () => T): T {
    return requests.run(audit, work);
  }

  /**
   * Adds to the current request's entry: the actor when the route has no principal (a sign-in), the resource, the
   * `changes` of an update, details (counts). Outside a write request it does nothing.
   */
  describe(description: AuditDescription): void {
    const audit = requests.getStore();
    if (!audit) return;
    Object.assign(audit.description, description);
  }

  /**
   * Runs `work` outside the request's audit context: a transaction it commits writes no entry. For bookkeeping that
   * commits while its request fails (an Idempotency-Key's stored refusal), which must not look like the change.
   */
  unrecorded<T>(work: () => T): T {
    return requests.exit(work);
  }

  /**
   * Erasure (contract § 18), in the caller's transaction: the `ip` and `userAgent` of the entries about these bookings
   * and routing responses (and the holds of the same browser) written by the attendee or a publishable key become null;
   * the entries stay.
   */
  forgetAttendeeClients(scope: TenantScope, resourceIds: readonly string[], publishableKeyIds: readonly string[]): Promise<number> {
    return this.repository.forgetClients(scope, resourceIds, publishableKeyIds);
  }

  /**
   * A change that arrives on no write route (single sign-on's callback is a GET, contract § 21): `work` runs as one
   * audited write request of `action`; when it throws, `failure` is recorded with what it described, outside its
   * rolled-back work.
   */
  async recordAround<T>(
    action: string,
    failure: string,
    client: { requestId: string | null; ip: string | null; userAgent: string | null },
    work: () => Promise<T>,
  ): Promise<T> {
    const audit: RequestAudit = {
      rule: { action, failure },
      principal: undefined,
      ...client,
      resourceId: null,
      minted: new Map(),
      verifiedOrganizationId: null,
      description: {},
      state: 'open',
      closed: false,
    };
    try {
      const result = await this.run(audit, work);
      audit.closed = true;
      await this.recordAlone(audit);
      return result;
    } catch (error) {
      audit.closed = true;
      await this.recordFailure(audit, failure);
      throw error;
    }
  }

  /** After a successful request that committed no transaction: its entry alone. */
  async recordAlone(audit: RequestAudit): Promise<void> {
    if (audit.state === 'recorded' || this.organizationOf(audit) === null) return;
    audit.closed = false;
    try {
      await requests.run(audit, () => this.tx.transaction(async () => undefined));
    } finally {
      audit.closed = true;
    }
  }

  /** A failed sign-in: its entry outside the request's rolled-back work. */
  async recordFailure(audit: RequestAudit, action: string): Promise<void> {
    const entry = this.entryOf(audit, action);
    if (entry) await this.repository.insertOutside(entry);
  }

  private async beforeCommit(): Promise<void> {
    const audit = requests.getStore();
    if (!audit || audit.closed || audit.state !== 'open') return;
    const entry = this.entryOf(audit, audit.description.action ?? audit.rule.action);
    if (!entry) return;
    // Pending before the insert: a second transaction of the request committing meanwhile writes no second entry.
    audit.state = 'pending';
    await this.repository.insert(entry);
  }

  private settled(committed: boolean): void {
    const audit = requests.getStore();
    if (!audit || audit.state !== 'pending') return;
    audit.state = committed ? 'recorded' : 'open';
  }

  private organizationOf(audit: RequestAudit): string | null {
    return audit.principal?.organizationId ?? audit.verifiedOrganizationId ?? audit.minted.get('org') ?? null;
  }

  private entryOf(audit: RequestAudit, action: string): AuditEntryInput | null {
    const organizationId = this.organizationOf(audit);
    if (organizationId === null) return null;
    const resourceType = audit.rule.resource ?? action.slice(0, action.indexOf('.'));
    const prefix = RESOURCE_PREFIXES.get(resourceType);
    const resourceId =
      audit.description.resourceId ?? audit.resourceId ?? (prefix === undefined ? undefined : audit.minted.get(prefix)) ?? null;
    const actor = audit.description.actor ?? actorOf(audit.principal);
    return {
      id: newId('aud'),
      organizationId,
      occurredAt: this.clock.now(),
      action,
      actorType: actor.type,
      actorId: actor.id,
      actorLabel: actor.label,
      resourceType,
      resourceId,
      requestId: audit.requestId,
      ip: audit.ip,
      userAgent: audit.userAgent,
      changes: audit.description.changes === undefined ? null : redactChanges(audit.description.changes),
      details: audit.description.details === undefined ? null : redact(audit.description.details),
    };
  }
}

/** Who acted: the key (with its name and prefix), the partner app (with its name), the signed-in user (with the email), or, without either, the attendee of a token. */
function actorOf(principal: Principal | undefined): AuditActor {
  if (!principal) return { type: 'attendee', id: null, label: null };
  if (principal.type === 'api_key') return { type: 'api_key', id: principal.apiKey?.id ?? null, label: principal.label ?? null };
  if (principal.type === 'app') return { type: 'app', id: principal.app?.id ?? null, label: principal.app?.name ?? null };
  return { type: 'user', id: principal.userId, label: principal.label ?? null };
}
