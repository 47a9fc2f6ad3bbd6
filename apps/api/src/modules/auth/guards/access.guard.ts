import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ACCESS_METADATA, AccessRule, AppError, ErrorCode, type Principal, type RequestWithPrincipal, roleHas } from '@app/common';
import { ApiKeysService } from '../../api-keys/api-keys.service.js';
import { AuthService } from '../auth.service.js';
import type { AccessTokenClaims, RequestWithBearer } from '../jwt.strategy.js';
import { parseAuthorization } from './credentials.js';
import { JwtAuthGuard } from './jwt-auth.guard.js';

type GuardedRequest = RequestWithBearer & RequestWithPrincipal & { user?: AccessTokenClaims };

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
    private readonly auth: AuthService,
    private readonly jwtGuard: JwtAuthGuard,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_METADATA, [context.getHandler(), context.getClass()]);
    if (!rule) throw AppError.forbidden('This endpoint is not available');
    if (rule.public) return true;

    const request = context.switchToHttp().getRequest<GuardedRequest>();
    const credential = parseAuthorization(request.headers.authorization);
    if (credential.kind === 'none') {
      // Without credentials only the attendee's token can authenticate; the service checks it is the right one.
      if (rule.attendeeToken && hasAttendeeToken((request as { body?: unknown }).body)) return true;
      throw AppError.unauthorized('Send Authorization: ApiKey <key> or Authorization: Bearer <token>');
    }
    if (credential.kind === 'malformed') throw AppError.unauthorized('Malformed Authorization header');

    if (credential.kind === 'api_key') {
      request.principal = await this.apiKeyPrincipal(credential.value, rule);
      return true;
    }
    request.bearerToken = credential.value;
    await this.jwtGuard.canActivate(context);
    const principal = await this.auth.principalForToken(request.user as AccessTokenClaims);
    if (rule.permission && !roleHas(principal.role!, rule.permission)) {
      throw AppError.forbidden(`The ${principal.role} role may not do this`);
    }
    request.principal = principal;
    return true;
  }

  private async apiKeyPrincipal(presented: string, rule: AccessRule): Promise<Principal> {
    const key = await this.apiKeys.authenticate(presented);
    if (!rule.scope) throw AppError.forbidden('This endpoint needs a user session (Authorization: Bearer <token>), not an API key');
    if (rule.scope !== 'any' && !key.scopes.includes(rule.scope)) {
      throw new AppError(ErrorCode.INSUFFICIENT_SCOPE, `This API key lacks the scope ${rule.scope}`);
    }
    return {
      type: 'api_key',
      organizationId: key.scope.organizationId,
      userId: key.createdByUserId,
      memberId: null,
      role: null,
      apiKey: { id: key.id, scopes: key.scopes, mode: key.mode, rateLimitPerMinute: key.rateLimitPerMinute, actor: key.actor },
      livemode: key.scope.livemode,
    };
  }
}
