import { ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { AppError } from '@app/common';
import type { AccessTokenClaims } from '../jwt.strategy.js';

/** Runs the passport-jwt strategy; every failure that is not already ours is a plain 401. */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  override handleRequest<T = AccessTokenClaims>(error: unknown, claims: T | false, _info: unknown, _context: ExecutionContext): T {
    if (error instanceof AppError) throw error;
    if (error || !claims) throw AppError.unauthorized('Invalid access token');
    return claims;
  }
}
