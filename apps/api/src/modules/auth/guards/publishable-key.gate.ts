import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode, type Principal, type RequestWithPrincipal } from '@app/common';
import { ApiKeysService } from '../../api-keys/index.js';
import { type ApiKeyCredential, KeyCompanions, type RequestWithCompanion } from '../../global-lookups/index.js';
import { parseAuthorization } from './credentials.js';

export interface GatedRequest extends RequestWithPrincipal, RequestWithCompanion {
  headers: Record<string, string | string[] | undefined>;
  query?: unknown;
}

/** The principal an API key acts as: the organization, in the key's mode, within its scopes. */
export function keyPrincipal(key: ApiKeyCredential): Principal {
  return {
    type: 'api_key',
    organizationId: key.scope.organizationId,
    userId: key.createdByUserId,
    memberId: null,
    role: null,
    label: key.label,
    apiKey: {
      id: key.id,
      scopes: key.scopes,
      mode: key.mode,
      rateLimitPerMinute: key.rateLimitPerMinute,
      actor: key.actor,
      ...(key.publishable ? { publishable: key.publishable } : {}),
    },
    livemode: key.scope.livemode,
  };
}

/**
 * The (P) routes' door (api-rules.md § Browser booking): a publishable key, presented from one of its allowed origins.
 * Runs before any CORS header is written (a Fastify preHandler hook ahead of @fastify/cors), so a page on
 * another origin never gets to read the answer, and again from the access guard, which finds the principal
 * it set.
 */
@Injectable()
export class PublishableKeyGate {
  constructor(
    private readonly apiKeys: ApiKeysService,
    private readonly companions: KeyCompanions,
  ) {}

  /** `withKey`: the route's first read to send with the key's lookup (AccessRule), kept on the request once admitted. */
  async admit(request: GatedRequest, withKey?: string): Promise<Principal> {
    if (request.principal) return request.principal;
    const credential = parseAuthorization(request.headers.authorization);
    if (credential.kind === 'none') throw AppError.unauthorized('Send Authorization: ApiKey pk_… (a publishable key)');
    if (credential.kind === 'malformed') throw AppError.unauthorized('Malformed Authorization header');
    if (credential.kind === 'jwt') throw publishableOnly();
    const origins = originsOf(request);
    // Without an origin the key is refused whatever it is: nothing more is read for it.
    const companion = origins.length > 0 ? this.companions.compose(withKey, request) : null;
    const key = await this.apiKeys.authenticate(credential.value, companion);
    if (!key.publishable) throw publishableOnly();
    if (!origins.some((origin) => key.publishable!.allowedOrigins.includes(origin))) {
      throw new AppError(
        ErrorCode.ORIGIN_NOT_ALLOWED,
        'This publishable key does not answer this Origin; list it in the key’s allowedOrigins',
      );
    }
    if (companion) request.keyCompanion = { name: companion.name, params: companion.params, value: key.companion };
    request.principal = keyPrincipal(key);
    return request.principal;
  }
}

/**
 * Where the request comes from, as a browser tells it: `Origin`; or, for a page on this very origin (a browser sends
 * no `Origin` on a same-origin GET, e.g. the console's preview of the booker), this host as the page saw it, which
 * `Sec-Fetch-Site: same-origin` vouches for (a page cannot set either header; a server can set any, which is why
 * backends use secret keys). None for a server-to-server call.
 */
function originsOf(request: GatedRequest): string[] {
  const { origin, host } = request.headers;
  if (typeof origin === 'string') return [origin];
  if (request.headers['sec-fetch-site'] !== 'same-origin' || typeof host !== 'string') return [];
  return [`https://${host}`, `http://${host}`];
}

function publishableOnly(): AppError {
  return AppError.forbidden('Public routes take a publishable key (pk_…); backends use the other routes with a secret key');
}
