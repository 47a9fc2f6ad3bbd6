import { LRUCache } from 'lru-cache';
import { Injectable } from '@nestjs/common';
import {
  ALL_SCOPES,
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
} from '@app/common';
import { type ApiKeyCredential, GlobalLookups } from '../global-lookups/index.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { ApiKeyListResponse, ApiKeyView, CreateApiKeyDto, CreatedApiKeyResponse } from './dto/api-key.dto.js';
import { ApiKey } from './entities/api-key.entity.js';

export const API_KEY_PATTERN = /^mk_(live|test)_[0-9A-Za-z]{32,128}$/;
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
  };
}

@Injectable()
export class ApiKeysService {
  /** When this instance last wrote each key's lastUsedAt: requests racing the write do not write again. */
  private readonly touched = new LRUCache<string, number>({ max: 10_000 });

  constructor(
    private readonly repository: ApiKeysRepository,
    private readonly lookups: GlobalLookups,
    private readonly clock: Clock,
  ) {}

  async create(principal: Principal, dto: CreateApiKeyDto): Promise<CreatedApiKeyResponse> {
    const now = this.clock.now();
    if (dto.expiresAt && dto.expiresAt.getTime() <= now.getTime())
      throw AppError.validation('expiresAt', 'expiresAt must be in the future');
    const mode = dto.mode ?? 'live';
    const apiKey = `mk_${mode}_${randomBase62(40)}`;
    const key = Object.assign(new ApiKey(), {
      id: newId('key'),
      organizationId: principal.organizationId,
      createdByUserId: principal.userId,
      name: dto.name,
      keyPrefix: apiKey.slice(0, 12),
      keyHash: sha256(apiKey),
      scopes: dto.scopes ?? [...ALL_SCOPES],
      rateLimitPerMinute: dto.rateLimitPerMinute ?? 60,
      mode,
      expiresAt: dto.expiresAt ?? null,
      lastUsedAt: null,
      revokedAt: null,
      createdAt: now,
    } satisfies ApiKey);
    await this.repository.insert(tenantScope(principal), key);
    const { lastUsedAt: _unused, ...shown } = view(key);
    return { apiKey, key: shown };
  }

  async list(principal: Principal, page: PageRequest): Promise<ApiKeyListResponse> {
    const [keys, total] = await this.repository.listActive(tenantScope(principal), page);
    return { keys: keys.map(view), ...pageMeta(page, total) };
  }

  async revoke(principal: Principal, id: string): Promise<void> {
    if (!(await this.repository.revoke(tenantScope(principal), id, this.clock.now()))) throw AppError.notFound('API key');
  }

  /** Checks a presented key. Revocation and expiry are read from the row on every call, so they hold at once everywhere. */
  async authenticate(presented: string): Promise<ApiKeyCredential> {
    if (!API_KEY_PATTERN.test(presented)) throw AppError.unauthorized('Invalid API key');
    const key = await this.lookups.apiKeyByHash(sha256(presented));
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
