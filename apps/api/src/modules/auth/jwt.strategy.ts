import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import type { FastifyRequest } from 'fastify';
import { AppConfig, AppError, Clock, ErrorCode } from '@app/common';

export const JWT_ISSUER = 'scheduling-api';
export const JWT_AUDIENCE = 'scheduling-api';

export interface AccessTokenClaims {
  sub: string;
  org: string;
  sid: string;
  iat: number;
  exp: number;
  iss: string;
  aud: string;
}

/** The access guard has already split the Authorization header; passport reads the token it found. */
export interface RequestWithBearer extends FastifyRequest {
  bearerToken?: string;
}

@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    config: AppConfig,
    private readonly clock: Clock,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromExtractors([(request: RequestWithBearer) => request.bearerToken ?? null]),
      secretOrKey: config.jwtSecret ?? '',
      algorithms: ['HS256'],
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
      // Expiry is checked below against the injected clock, so tests can move time.
      ignoreExpiration: true,
    });
  }

  validate(claims: AccessTokenClaims): AccessTokenClaims {
    const valid =
      ['sub', 'org', 'sid'].every((k) => typeof claims[k as keyof AccessTokenClaims] === 'string') && typeof claims.exp === 'number';
    if (!valid) throw AppError.unauthorized('Invalid access token');
    if (claims.exp * 1000 <= this.clock.now().getTime()) throw new AppError(ErrorCode.TOKEN_EXPIRED, 'The access token has expired');
    return claims;
  }
}
