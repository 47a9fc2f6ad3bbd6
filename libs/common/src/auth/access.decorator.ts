import { applyDecorators, SetMetadata } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiBearerAuth, ApiExtension, ApiOAuth2, ApiSecurity } from '@nestjs/swagger';
import { BROWSER_CORS, type BrowserRouteConfig } from '../http/cors.js';
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
 *   the service checks the token. Browsers of any origin may call it (CORS), unless `crossOrigin: false`: the CORS
 *   list of api-rules.md § Browser booking is cancel, reschedule and the public booking page, and no other route.
 * - `publishable`: a (P) route of api-rules.md § Browser booking: only a publishable key, from one of its allowed
 *   origins, which alone get CORS headers.
 * - `browser`: a public route that browsers of any origin may call (CORS), e.g. with a token of its own.
 * - `withKey`: the name of the route's first read (a KeyCompanion of the global-lookups module), which an API key's
 *   lookup then carries in its own statement: one round trip to PostgreSQL instead of two.
 */
export interface AccessRule {
  public?: true;
  scope?: Scope | 'any';
  permission?: Permission;
  attendeeToken?: true;
  crossOrigin?: false;
  publishable?: true;
  browser?: true;
  withKey?: string;
}

const BROWSER_ROUTE: BrowserRouteConfig = { cors: BROWSER_CORS };
const PUBLISHABLE_ROUTE: BrowserRouteConfig = { cors: BROWSER_CORS, publishableKey: true };

/** Declares the rule for the guard and shows it in the OpenAPI document (security, scope, roles). */
export const Access = (rule: AccessRule): MethodDecorator & ClassDecorator => {
  const cors = (rule.attendeeToken && rule.crossOrigin !== false) || rule.browser ? [RouteConfig(BROWSER_ROUTE)] : [];
  if (rule.public) return applyDecorators(SetMetadata(ACCESS_METADATA, rule), ApiExtension('x-access', 'public'), ...cors);
  if (rule.publishable) {
    return applyDecorators(
      SetMetadata(ACCESS_METADATA, rule),
      RouteConfig(rule.withKey === undefined ? PUBLISHABLE_ROUTE : { ...PUBLISHABLE_ROUTE, withKey: rule.withKey }),
      ApiSecurity('PublishableKey'),
      ApiExtension('x-access', 'publishable key from one of its allowedOrigins'),
    );
  }
  const roles = ALL_ROLES.filter((role) => !rule.permission || roleHas(role, rule.permission));
  const decorators = [
    SetMetadata(ACCESS_METADATA, rule),
    ApiBearerAuth('bearer'),
    ApiExtension('x-jwt-roles', roles),
    ApiExtension('x-required-scope', rule.scope ?? 'none: API keys are refused (JWT only)'),
  ];
  // A partner app's access token is accepted wherever an API key is, with the same scope (contract § 20).
  if (rule.scope) decorators.push(ApiSecurity('ApiKey'), ApiOAuth2(rule.scope === 'any' ? [] : [rule.scope], 'oauth2'));
  if (rule.attendeeToken) decorators.push(ApiExtension('x-attendee-token', 'accepted in the body instead of credentials'));
  return applyDecorators(...decorators, ...cors);
};

export const Public = (): MethodDecorator & ClassDecorator => Access({ public: true });
