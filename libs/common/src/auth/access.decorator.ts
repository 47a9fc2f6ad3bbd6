import { SetMetadata } from '@nestjs/common';
import type { Permission } from './roles.js';
import type { Scope } from './scopes.js';

export const ACCESS_METADATA = 'access:rule';

/**
 * What a route needs. The global guard denies any route without one.
 * - `public`: anyone (rate-limited per IP).
 * - `scope`: the scope an API key must hold (`'any'`: any valid key); without it API keys are
 *   refused (JWT-only route).
 * - `permission`: what a JWT caller's role must allow (the role table in roles.ts).
 * - `attendeeToken`: also reachable without credentials when the body carries an attendee token;
 *   the service checks the token.
 */
export interface AccessRule {
  public?: true;
  scope?: Scope | 'any';
  permission?: Permission;
  attendeeToken?: true;
}

export const Access = (rule: AccessRule): MethodDecorator & ClassDecorator => SetMetadata(ACCESS_METADATA, rule);

export const Public = (): MethodDecorator & ClassDecorator => Access({ public: true });
