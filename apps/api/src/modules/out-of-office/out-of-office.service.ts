import { Injectable } from '@nestjs/common';
import { parseInputTimestamp } from '@app/availability';
import {
  AppError,
  Clock,
  ErrorCode,
  isExclusionViolation,
  newId,
  pageMeta,
  pageOffset,
  Permission,
  postgresError,
  type Principal,
  roleHas,
  tenantScope,
  type TenantScope,
} from '@app/common';
import { TransactionHost } from '@app/database';
import { BookingCounts } from '../booking-occupancy/index.js';
import { TeamService } from '../team/index.js';
import {
  CreateOutOfOfficeDto,
  ListOutOfOfficeQueryDto,
  MAX_AFFECTED_BOOKINGS,
  MAX_EXTERNAL_ID_LENGTH,
  MAX_OUT_OF_OFFICE_DAYS,
  OutOfOfficeListResponse,
  OutOfOfficeResponse,
  OutOfOfficeView,
  UpdateOutOfOfficeDto,
} from './dto/out-of-office.dto.js';
import { OutOfOfficeEntry } from './entities/out-of-office-entry.entity.js';
import { OUT_OF_OFFICE_OVERLAP_CONSTRAINT, OutOfOfficeRepository } from './out-of-office.repository.js';
import { AuditTrail, changesBetween } from '../audit/index.js';

/** What an entry's audit `changes` compare. */
const AUDITED_FIELDS = ['userId', 'startsAt', 'endsAt', 'note', 'redirectToUserId'] as const;

const DAY_MS = 86_400_000;

interface Span {
  startsAt: Date;
  endsAt: Date;
}

function instantOf(field: string, value: string): Date {
  const instant = parseInputTimestamp(value, 'UTC');
  if (instant === null) throw AppError.validation(field, `${field} must be an ISO 8601 timestamp within the years 1 to 9999`);
  return new Date(instant);
}

function checkSpan({ startsAt, endsAt }: Span): void {
  if (startsAt.getTime() >= endsAt.getTime()) throw AppError.validation('endsAt', 'endsAt must be after startsAt');
  if (endsAt.getTime() - startsAt.getTime() > MAX_OUT_OF_OFFICE_DAYS * DAY_MS) {
    throw AppError.validation('endsAt', `an entry spans at most ${MAX_OUT_OF_OFFICE_DAYS} days`);
  }
}

function overlap(): AppError {
  return new AppError(ErrorCode.OUT_OF_OFFICE_OVERLAP, 'The member has another out-of-office entry at that time', [
    { field: 'startsAt', message: 'overlaps another entry of the same user' },
  ]);
}

/**
 * Out-of-office entries (contract § 17): a member's own, or anyone's for owners, admins and API keys. The database
 * refuses overlapping entries of one user (exclusion constraint), so a race cannot make two. An entry is written under
 * its user's booking locks (both modes, as every booking of the user takes one of them before it reads the entries):
 * a booking either committed before the entry, and is among its `affectedBookings`, or reads the entry and is refused
 * (or goes to the stand-in). A member's removal drops the redirects to it, in the removal's transaction.
 */
@Injectable()
export class OutOfOfficeService {
  constructor(
    private readonly repository: OutOfOfficeRepository,
    private readonly team: TeamService,
    private readonly bookings: BookingCounts,
    private readonly clock: Clock,
    private readonly tx: TransactionHost,
    private readonly audit: AuditTrail,
  ) {
    team.onMemberRemoved((scope, userId) => this.repository.clearRedirectsTo(scope, userId, this.clock.now()));
  }

  async create(principal: Principal, dto: CreateOutOfOfficeDto): Promise<OutOfOfficeResponse> {
    const entry = await this.newEntry(principal, dto, null);
    await this.write(() =>
      this.tx.transaction(async () => {
        await this.bookings.lockHosts(tenantScope(principal), [entry.userId]);
        await this.repository.insert(tenantScope(principal), entry);
      }),
    );
    return { outOfOffice: (await this.views(tenantScope(principal), [entry]))[0] };
  }

  /** Creates the entry with this external id or replaces its fields; the same body again changes nothing. */
  async put(principal: Principal, externalId: string, dto: CreateOutOfOfficeDto): Promise<OutOfOfficeResponse> {
    // Characters are code points: 200 emoji are 200 characters (400 UTF-16 units).
    const characters = typeof externalId === 'string' ? [...externalId].length : 0;
    if (typeof externalId !== 'string' || characters < 1 || characters > MAX_EXTERNAL_ID_LENGTH || externalId.includes('/')) {
      throw AppError.validation('externalId', `externalId must be 1 to ${MAX_EXTERNAL_ID_LENGTH} characters`);
    }
    const scope = tenantScope(principal);
    const wanted = await this.newEntry(principal, dto, externalId);
    const entry = await this.write(() =>
      this.tx.transaction(async () => {
        await this.repository.lockExternalId(scope, externalId);
        const existing = await this.repository.findByExternalIdForUpdate(scope, externalId);
        // The user's booking locks (the entry's old user's too, when it moves to another) before anything is written.
        await this.bookings.lockHosts(scope, existing === null ? [wanted.userId] : [existing.userId, wanted.userId]);
        if (existing === null) {
          await this.repository.insert(scope, wanted);
          return wanted;
        }
        // The audit entry names the entry replaced (a create's is the id it minted).
        this.audit.describe({ resourceId: existing.id, changes: changesBetween(existing, wanted, AUDITED_FIELDS) });
        // The entry may move to another user only for those who may manage both.
        this.assertMayManage(principal, existing.userId);
        if (sameFields(existing, wanted)) return existing;
        const replaced = Object.assign(new OutOfOfficeEntry(), existing, {
          memberId: wanted.memberId,
          userId: wanted.userId,
          startsAt: wanted.startsAt,
          endsAt: wanted.endsAt,
          note: wanted.note,
          redirectToUserId: wanted.redirectToUserId,
          updatedAt: wanted.updatedAt,
        } satisfies Partial<OutOfOfficeEntry>);
        await this.repository.update(scope, replaced);
        return replaced;
      }),
    );
    return { outOfOffice: (await this.views(scope, [entry]))[0] };
  }

  async list(principal: Principal, query: ListOutOfOfficeQueryDto): Promise<OutOfOfficeListResponse> {
    const scope = tenantScope(principal);
    const mayListAll = principal.role === null || roleHas(principal.role, Permission.ManageOthersAvailability);
    const userId = query.userId ?? (mayListAll ? null : principal.userId);
    if (userId !== null) this.assertMayManage(principal, userId);
    const from = query.from === undefined ? null : instantOf('from', query.from);
    const to = query.to === undefined ? null : instantOf('to', query.to);
    const [entries, totalCount] = await this.repository.list(scope, { userId, from, to }, pageOffset(query), query.limit);
    return { outOfOffice: await this.views(scope, entries), ...pageMeta(query, totalCount) };
  }

  async get(principal: Principal, id: string): Promise<OutOfOfficeResponse> {
    const entry = await this.findManaged(principal, id);
    return { outOfOffice: (await this.views(tenantScope(principal), [entry]))[0] };
  }

  async update(principal: Principal, id: string, dto: UpdateOutOfOfficeDto): Promise<OutOfOfficeResponse> {
    const scope = tenantScope(principal);
    // Checked before the transaction (404/403, the fields' own shape); everything else from the entry as locked.
    await this.findManaged(principal, id);
    const wanted = {
      startsAt: dto.startsAt === undefined ? undefined : instantOf('startsAt', dto.startsAt),
      endsAt: dto.endsAt === undefined ? undefined : instantOf('endsAt', dto.endsAt),
    };
    const updated = await this.write(() =>
      this.tx.transaction(async () => {
        // The row first, then its user's booking locks: the order a PUT takes them in (no deadlock between the two),
        // and the user cannot change under us. A concurrent PATCH or PUT waits for us and then reads what we wrote; a
        // concurrent DELETE either waits for us or leaves nothing to find (404).
        const entry = await this.repository.findForUpdate(scope, id);
        if (!entry) throw AppError.notFound('Out-of-office entry');
        this.assertMayManage(principal, entry.userId);
        await this.bookings.lockHosts(scope, [entry.userId]);
        const span = { startsAt: wanted.startsAt ?? entry.startsAt, endsAt: wanted.endsAt ?? entry.endsAt };
        checkSpan(span);
        const redirectToUserId = dto.redirectToUserId === undefined ? entry.redirectToUserId : dto.redirectToUserId;
        if (dto.redirectToUserId !== undefined) await this.checkRedirect(scope, entry.userId, redirectToUserId);
        const next = Object.assign(new OutOfOfficeEntry(), entry, {
          ...span,
          note: dto.note === undefined ? entry.note : dto.note,
          redirectToUserId,
          updatedAt: this.clock.now(),
        });
        this.audit.describe({ changes: changesBetween(entry, next, AUDITED_FIELDS) });
        await this.repository.update(scope, next);
        return next;
      }),
    );
    return { outOfOffice: (await this.views(scope, [updated]))[0] };
  }

  async remove(principal: Principal, id: string): Promise<void> {
    await this.findManaged(principal, id);
    if (!(await this.tx.transaction(() => this.repository.delete(tenantScope(principal), id))))
      throw AppError.notFound('Out-of-office entry');
  }

  /** The validated entry a create or PUT would write. */
  private async newEntry(principal: Principal, dto: CreateOutOfOfficeDto, externalId: string | null): Promise<OutOfOfficeEntry> {
    const scope = tenantScope(principal);
    const span = { startsAt: instantOf('startsAt', dto.startsAt), endsAt: instantOf('endsAt', dto.endsAt) };
    checkSpan(span);
    const userId = dto.userId ?? principal.userId;
    this.assertMayManage(principal, userId);
    const memberId =
      userId === principal.userId && principal.memberId ? principal.memberId : (await this.team.findActiveMember(scope, userId))?.id;
    if (memberId === undefined) throw AppError.notFound('Member');
    await this.checkRedirect(scope, userId, dto.redirectToUserId ?? null);
    const now = this.clock.now();
    return Object.assign(new OutOfOfficeEntry(), {
      id: newId('ooo'),
      organizationId: scope.organizationId,
      memberId,
      userId,
      ...span,
      note: dto.note ?? null,
      redirectToUserId: dto.redirectToUserId ?? null,
      externalId,
      createdAt: now,
      updatedAt: now,
    } satisfies OutOfOfficeEntry);
  }

  private async checkRedirect(scope: TenantScope, userId: string, redirectToUserId: string | null): Promise<void> {
    if (redirectToUserId === null) return;
    if (redirectToUserId === userId)
      throw AppError.validation('redirectToUserId', 'redirectToUserId must be another member than the absent one');
    if (!(await this.team.findActiveMember(scope, redirectToUserId))) {
      throw AppError.validation('redirectToUserId', 'redirectToUserId must be an active member of the organization');
    }
  }

  /** The entry, when the caller may see and change it: another organization's is 404, another member's 403 for members. */
  private async findManaged(principal: Principal, id: string): Promise<OutOfOfficeEntry> {
    const entry = await this.repository.find(tenantScope(principal), id);
    if (!entry) throw AppError.notFound('Out-of-office entry');
    this.assertMayManage(principal, entry.userId);
    return entry;
  }

  /** Runs a write, turning the exclusion constraint's refusal into 409 OUT_OF_OFFICE_OVERLAP. */
  private async write<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isExclusionViolation(error) && postgresError(error)?.constraint === OUT_OF_OFFICE_OVERLAP_CONSTRAINT) throw overlap();
      throw error;
    }
  }

  private async views(scope: TenantScope, entries: readonly OutOfOfficeEntry[]): Promise<OutOfOfficeView[]> {
    const affected = await this.bookings.hostedWithin(scope, entries, this.clock.now(), MAX_AFFECTED_BOOKINGS);
    return entries.map((entry, index) => ({
      id: entry.id,
      userId: entry.userId,
      startsAt: entry.startsAt.toISOString(),
      endsAt: entry.endsAt.toISOString(),
      note: entry.note,
      redirectToUserId: entry.redirectToUserId,
      externalId: entry.externalId,
      affectedBookings: (affected[index] ?? []).map((booking) => ({
        id: booking.id,
        startsAt: booking.startsAt.toISOString(),
        status: booking.status,
      })),
      createdAt: entry.createdAt.toISOString(),
      updatedAt: entry.updatedAt.toISOString(),
    }));
  }

  private assertMayManage(principal: Principal, userId: string): void {
    if (userId === principal.userId || principal.role === null) return;
    if (!roleHas(principal.role, Permission.ManageOthersAvailability)) {
      throw AppError.forbidden('Members may only see and change their own out-of-office entries');
    }
  }
}

function sameFields(a: OutOfOfficeEntry, b: OutOfOfficeEntry): boolean {
  return (
    a.userId === b.userId &&
    a.startsAt.getTime() === b.startsAt.getTime() &&
    a.endsAt.getTime() === b.endsAt.getTime() &&
    a.note === b.note &&
    a.redirectToUserId === b.redirectToUserId
  );
}
