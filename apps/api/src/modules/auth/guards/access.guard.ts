import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  ACCESS_METADATA,
  AccessRule,
  AppError,
  ErrorCode,
  type Principal,
  type RequestWithPrincipal,
  roleHas,
  type Scope,
} from '@app/common';
import { ApiKeysService } from '../../api-keys/index.js';
import { KeyCompanions, type RequestWithCompanion } from '../../global-lookups/index.js';
import { OAuthGrantsService } from '../../oauth/index.js';
import type { AccessTokenClaims, RequestWithBearer } from '../jwt.strategy.js';
import { SessionsService } from '../sessions.service.js';
import { parseAuthorization } from './credentials.js';
import { JwtAuthGuard } from './jwt-auth.guard.js';
import { keyPrincipal, PublishableKeyGate } from './publishable-key.gate.js';

type GuardedRequest = RequestWithBearer & RequestWithPrincipal & RequestWithCompanion & { user?: AccessTokenClaims; query?: unknown };

function hasAttendeeToken(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { token?: unknown }).token === 'string' &&
    (body as { token: string }).token !== ''
  );
}

/**
 * The one global guard. A route without an access rule is refused; otherwise the caller is
 * authenticated (API key or JWT session) and checked against the rule's scope or role permission.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
    private readonly sessions: SessionsService,
    private readonly jwtGuard: JwtAuthGuard,
    private readonly publishable: PublishableKeyGate,
    private readonly apps: OAuthGrantsService,
    private readonly companions: KeyCompanions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_METADATA, [context.getHandler(), context.getClass()]);
    if (!rule) throw AppError.forbidden('This endpoint is not available');
    const request = context.switchToHttp().getRequest<GuardedRequest>();
    if (rule.publishable) {
      await this.publishable.admit(request);
      return true;
    }
    if (rule.public) {
      // A publishable key is accepted on the (P) routes only, even where no credentials are needed.
      if (request.headers.authorization !== undefined && PUBLISHABLE_CREDENTIAL.test(String(request.headers.authorization))) {
        throw publishableKeyHere();
      }
      return true;
    }

    const credential = parseAuthorization(request.headers.authorization);
    if (credential.kind === 'none') {
      // Without credentials only the attendee's token can authenticate; the service checks it is the right one.
      if (rule.attendeeToken && hasAttendeeToken((request as { body?: unknown }).body)) return true;
      throw AppError.unauthorized('Send Authorization: ApiKey <key> or Authorization: Bearer <token>');
    }
    if (credential.kind === 'malformed') throw AppError.unauthorized('Malformed Authorization header');

    if (credential.kind === 'api_key') {
      request.principal = await this.apiKeyPrincipal(credential.value, rule, request);
      return true;
    }
    if (credential.kind === 'app_token') {
      // An app's access token acts exactly as an API key with its scopes would (contract § 20).
      const principal = await this.apps.authenticate(credential.value);
      requireScope(rule, principal.app!.scopes, 'an app’s access token');
      request.principal = principal;
      return true;
    }
    request.bearerToken = credential.value;
    await this.jwtGuard.canActivate(context);
    const principal = await this.sessions.principalForToken(request.user as AccessTokenClaims);
    if (rule.permission && !roleHas(principal.role!, rule.permission)) {
      throw AppError.forbidden(`The ${principal.role} role may not do this`);
    }
    request.principal = principal;
    return true;
  }

  private async apiKeyPrincipal(presented: string, rule: AccessRule, request: GuardedRequest): Promise<Principal> {
    const companion = this.companions.compose(rule.withKey, request);
    const key = await this.apiKeys.authenticate(presented, companion);
    if (key.publishable) throw publishableKeyHere();
    requireScope(rule, key.scopes, 'an API key');
    // Kept for the route only once the key may call it.
    if (companion) request.keyCompanion = { name: companion.name, params: companion.params, value: key.companion };
    return keyPrincipal(key);
  }
}

/** The one scope check of API keys and app tokens: a JWT-only route refuses both; a scoped route needs its scope. */
function requireScope(rule: AccessRule, scopes: readonly Scope[], holder: string): void {
  if (!rule.scope) throw AppError.forbidden(`This endpoint needs a user session (Authorization: Bearer <token>), not ${holder}`);
  if (rule.scope !== 'any' && !scopes.includes(rule.scope)) {
    throw new AppError(ErrorCode.INSUFFICIENT_SCOPE, `This ${holder.replace(/^an? /, '')} lacks the scope ${rule.scope}`);
  }
}

const PUBLISHABLE_CREDENTIAL = /^(ApiKey|Bearer) pk_/i;

function publishableKeyHere(): AppError {
  return AppError.forbidden('A publishable key may use the public booking routes (/v1/public/…) only');
}
