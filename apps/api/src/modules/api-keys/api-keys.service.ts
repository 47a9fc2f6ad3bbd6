import { LRUCache } from 'lru-cache';
import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@app/database';
import {
  DEFAULT_SCOPES,
  AppError,
  Clock,
  ErrorCode,
  newId,
  PageRequest,
  pageMeta,
  Principal,
  randomBase62,
  sha256,
  tenantScope,
  type TenantScope,
} from '@app/common';
import { type ApiKeyCredential, type ComposedCompanion, GlobalLookups } from '../global-lookups/index.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { EventTypesService } from '../event-types/index.js';
import { RoutingFormsService } from '../routing-forms/index.js';
import {
  ApiKeyListResponse,
  ApiKeyResponse,
  ApiKeyView,
  CreateApiKeyDto,
  CreatedApiKeyResponse,
  UpdateApiKeyDto,
} from './dto/api-key.dto.js';
import { ApiKey } from './entities/api-key.entity.js';
import { parseOrigin } from './origins.js';
import { AuditTrail, changesBetween } from '../audit/index.js';

export const API_KEY_PATTERN = /^(mk|pk)_(live|test)_[0-9A-Za-z]{32,128}$/;
const LAST_USED_RESOLUTION_MS = 60_000;

function view(key: ApiKey): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    keyPrefix: key.keyPrefix,
    scopes: key.scopes,
    rateLimitPerMinute: key.rateLimitPerMinute,
    mode: key.mode,
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    kind: key.kind,
    allowedOrigins: key.allowedOrigins,
    eventTypeIds: key.eventTypeIds,
    routingFormIds: key.routingFormIds,
    // A publishable key is public by design: its item shows it in full.
    ...(key.publishableKey !== null ? { apiKey: key.publishableKey } : {}),
  };
}

/** The origins as a browser sends them, or 400 naming allowedOrigins. */
function originsOf(values: readonly string[]): string[] {
  const origins = values.map((value) => {
    const origin = parseOrigin(value);
    if (origin === null) {
      throw AppError.validation(
        'allowedOrigins',
        `'${value}' is not an origin: use https://host[:port], or http://localhost[:port] / http://127.0.0.1[:port], without path or wildcard`,
      );
    }
    return origin;
  });
  if (new Set(origins).size !== origins.length) throw AppError.validation('allowedOrigins', 'allowedOrigins lists an origin twice');
  return origins;
}

@Injectable()
export class ApiKeysService {
  /** When this instance last wrote each key's lastUsedAt: requests racing the write do not write again. */
  private readonly touched = new LRUCache<string, number>({ max: 10_000 });

  constructor(
    private readonly audit: AuditTrail,
    private readonly repository: ApiKeysRepository,
    private readonly lookups: GlobalLookups,
    private readonly eventTypes: EventTypesService,
    private readonly routingForms: RoutingFormsService,
    private readonly clock: Clock,
    private readonly tx: TransactionHost,
  ) {}

  async create(principal: Principal, dto: CreateApiKeyDto): Promise<CreatedApiKeyResponse> {
    const now = this.clock.now();
    if (dto.expiresAt && dto.expiresAt.getTime() <= now.getTime())
      throw AppError.validation('expiresAt', 'expiresAt must be in the future');
    const mode = dto.mode ?? 'live';
    const kind = dto.kind ?? 'secret';
    const publishable = kind === 'publishable';
    if (publishable && dto.scopes !== undefined)
      throw AppError.validation('scopes', 'A publishable key takes no scopes: it may use the public routes only');
    if (publishable && dto.allowedOrigins === undefined)
      throw AppError.validation('allowedOrigins', 'A publishable key needs allowedOrigins');
    if (!publishable && dto.allowedOrigins !== undefined)
      throw AppError.validation('allowedOrigins', 'allowedOrigins is for publishable keys');
    if (!publishable && dto.eventTypeIds !== undefined) throw AppError.validation('eventTypeIds', 'eventTypeIds is for publishable keys');
    if (!publishable && dto.routingFormIds !== undefined)
      throw AppError.validation('routingFormIds', 'routingFormIds is for publishable keys');
    const scope = tenantScope(principal);
    const allowedOrigins = publishable ? originsOf(dto.allowedOrigins!) : null;
    const eventTypeIds = publishable ? await this.ownEventTypes(scope, dto.eventTypeIds ?? null) : null;
    const routingFormIds = publishable ? await this.ownRoutingForms(scope, dto.routingFormIds ?? null) : null;
    const apiKey = `${publishable ? 'pk' : 'mk'}_${mode}_${randomBase62(40)}`;
    const key = Object.assign(new ApiKey(), {
      id: newId('key'),
      organizationId: principal.organizationId,
      createdByUserId: principal.userId,
      name: dto.name,
      keyPrefix: apiKey.slice(0, 12),
      keyHash: sha256(apiKey),
      scopes: publishable ? [] : (dto.scopes ?? [...DEFAULT_SCOPES]),
      rateLimitPerMinute: dto.rateLimitPerMinute ?? (publishable ? 600 : 60),
      mode,
      expiresAt: dto.expiresAt ?? null,
      lastUsedAt: null,
      revokedAt: null,
      createdAt: now,
      kind,
      publishableKey: publishable ? apiKey : null,
      allowedOrigins,
      eventTypeIds,
      routingFormIds,
    } satisfies ApiKey);
    await this.tx.transaction(() => this.repository.insert(scope, key));
    const { lastUsedAt: _unused, apiKey: _shown, ...shown } = view(key);
    return { apiKey, key: shown };
  }

  /** PATCH /api-keys/:id: a key's name; a publishable key's origins and event types too. */
  async update(principal: Principal, id: string, dto: UpdateApiKeyDto): Promise<ApiKeyResponse> {
    const scope = tenantScope(principal);
    const key = await this.repository.findActive(scope, id);
    if (!key) throw AppError.notFound('API key');
    if (key.kind !== 'publishable' && dto.allowedOrigins !== undefined)
      throw AppError.validation('allowedOrigins', 'allowedOrigins is for publishable keys');
    if (key.kind !== 'publishable' && dto.eventTypeIds !== undefined)
      throw AppError.validation('eventTypeIds', 'eventTypeIds is for publishable keys');
    if (key.kind !== 'publishable' && dto.routingFormIds !== undefined)
      throw AppError.validation('routingFormIds', 'routingFormIds is for publishable keys');
    const changes: Partial<Pick<ApiKey, 'name' | 'allowedOrigins' | 'eventTypeIds' | 'routingFormIds'>> = {};
    if (dto.name !== undefined) changes.name = dto.name;
    if (dto.allowedOrigins !== undefined) changes.allowedOrigins = originsOf(dto.allowedOrigins);
    if (dto.eventTypeIds !== undefined) changes.eventTypeIds = await this.ownEventTypes(scope, dto.eventTypeIds);
    if (dto.routingFormIds !== undefined) changes.routingFormIds = await this.ownRoutingForms(scope, dto.routingFormIds);
    this.audit.describe({ changes: changesBetween(key, changes) });
    if (Object.keys(changes).length > 0 && !(await this.tx.transaction(() => this.repository.update(scope, id, changes))))
      throw AppError.notFound('API key');
    return { key: view(Object.assign(key, changes)) };
  }

  async list(principal: Principal, page: PageRequest): Promise<ApiKeyListResponse> {
    const [keys, total] = await this.repository.listActive(tenantScope(principal), page);
    return { keys: keys.map(view), ...pageMeta(page, total) };
  }

  async revoke(principal: Principal, id: string): Promise<void> {
    const revoked = await this.tx.transaction(() => this.repository.revoke(tenantScope(principal), id, this.clock.now()));
    if (!revoked) throw AppError.notFound('API key');
  }

  /**
   * The organization's publishable keys, revoked ones and both modes included: an attendee's browser acts through them,
   * so erasure (contract § 18) clears the client address of the audit entries they wrote about the attendee's bookings.
   */
  publishableIds(scope: TenantScope): Promise<string[]> {
    return this.repository.publishableIds(scope);
  }

  /** A publishable key's event types must be this organization's (any other id → 400 naming eventTypeIds). */
  private async ownEventTypes(scope: TenantScope, ids: readonly string[] | null): Promise<string[] | null> {
    if (ids === null) return null;
    const known = await this.eventTypes.summaries(scope, ids);
    const foreign = ids.filter((id) => !known.has(id));
    if (foreign.length > 0) throw AppError.validation('eventTypeIds', `Not event types of this organization: ${foreign.join(', ')}`);
    return [...ids];
  }

  /** A publishable key's routing forms must be this organization's (any other id → 400 naming routingFormIds). */
  private async ownRoutingForms(scope: TenantScope, ids: readonly string[] | null): Promise<string[] | null> {
    if (ids === null) return null;
    const known = await this.routingForms.existing(scope, ids);
    const foreign = ids.filter((id) => !known.has(id));
    if (foreign.length > 0) throw AppError.validation('routingFormIds', `Not routing forms of this organization: ${foreign.join(', ')}`);
    return [...ids];
  }

  /**
   * Checks a presented key. Revocation and expiry are read from the row on every call, so they hold at once everywhere.
   * A companion (KeyCompanions) is read in the same statement; its value is on the key, for the caller to keep only
   * once every check of its own has passed too.
   */
  async authenticate(presented: string, companion?: ComposedCompanion | null): Promise<ApiKeyCredential> {
    if (!API_KEY_PATTERN.test(presented)) throw AppError.unauthorized('Invalid API key');
    const key = await this.lookups.apiKeyByHash(sha256(presented), companion);
    if (!key) throw AppError.unauthorized('Invalid API key');
    if (key.revokedAt) throw new AppError(ErrorCode.KEY_REVOKED, 'This API key has been revoked');
    const now = this.clock.now();
    if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) throw new AppError(ErrorCode.KEY_EXPIRED, 'This API key has expired');
    const stale = (at: number | undefined): boolean => at === undefined || now.getTime() - at >= LAST_USED_RESOLUTION_MS;
    if (stale(key.lastUsedAt?.getTime()) && stale(this.touched.get(key.id))) {
      // Off the request's critical path; a lost write only delays lastUsedAt by a minute.
      this.touched.set(key.id, now.getTime());
      this.repository.touch(key.scope, key.id, now).catch(() => undefined);
    }
    return key;
  }
}
