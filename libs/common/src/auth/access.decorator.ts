import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension, ApiSecurity } from '@nestjs/swagger';
import { ALL_ROLES, roleHas, type Permission } from './roles.js';
import type { Scope } from './scopes.js';

export const ACCESS_METADATA = 'access:rule';

/**
 * What a route needs. The global guard denies any route without one.
 * - `public`: anyone (rate-limited per IP).
 * - `scope`: the scope an API key must hold (`'any'`: any valid key); without it API keys are
 *   refused (JWT-only route).
 * - `permission`: what a JWT caller's role must allow (the role table in roles.ts); without it any
 *   signed-in member may call.
 * - `attendeeToken`: also reachable without credentials when the body carries an attendee token;
 *   the service checks the token.
 */
export interface AccessRule {
  public?: true;
  scope?: Scope | 'any';
  permission?: Permission;
  attendeeToken?: true;
}

/** Declares the rule for the guard and shows it in the OpenAPI document (security, scope, roles). */
export const Access = (rule: AccessRule): MethodDecorator & ClassDecorator => {
  if (rule.public) return applyDecorators(SetMetadata(ACCESS_METADATA, rule), ApiExtension('x-access', 'public'));
  const roles = ALL_ROLES.filter((role) => !rule.permission || roleHas(role, rule.permission));
  const decorators = [
    SetMetadata(ACCESS_METADATA, rule),
    ApiBearerAuth('bearer'),
    ApiExtension('x-jwt-roles', roles),
    ApiExtension('x-required-scope', rule.scope ?? 'none: API keys are refused (JWT only)'),
  ];
  if (rule.scope) decorators.push(ApiSecurity('ApiKey'));
  if (rule.attendeeToken) decorators.push(ApiExtension('x-attendee-token', 'accepted in the body instead of credentials'));
  return applyDecorators(...decorators);
};

export const Public = (): MethodDecorator & ClassDecorator => Access({ public: true });
