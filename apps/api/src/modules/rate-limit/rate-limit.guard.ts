import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerRequest } from '@nestjs/throttler';
import type { FastifyReply } from 'fastify';
import { AppConfig, AppError, clientAddress, ErrorCode, type RequestWithPrincipal } from '@app/common';

export const RATE_LIMIT_WINDOW_MS = 60_000;

/**
 * Per API key, per user for sessions, per client address for everyone else (api-rules.md § Rate limits); a publishable
 * key counts per key and client address together, so one visitor cannot use up a site's limit (section 14). A client
 * address is an IPv4 address or an IPv6 /64 (clientAddress).
 */
export function rateLimitSubject(request: RequestWithPrincipal, config: AppConfig): { tracker: string; limit: number } {
  const principal = request.principal;
  if (principal?.apiKey?.publishable) {
    return { tracker: `key:${principal.apiKey.id}:ip:${clientAddress(request)}`, limit: principal.apiKey.rateLimitPerMinute };
  }
  if (principal?.apiKey) return { tracker: `key:${principal.apiKey.id}`, limit: principal.apiKey.rateLimitPerMinute };
  // A partner app's tokens share their grant's limit (contract § 20).
  if (principal?.app) return { tracker: `grant:${principal.app.grantId}`, limit: config.rateLimitAppPerMinute };
  if (principal) return { tracker: `user:${principal.userId}`, limit: config.rateLimitUserPerMinute };
  return { tracker: `ip:${clientAddress(request)}`, limit: config.rateLimitPublicPerMinute };
}

/**
 * Runs after the access guard, so it knows the caller. Overrides the throttler's reply: Reset is a
 * Unix timestamp (the throttler sends seconds-until-reset) and over the limit is our RATE_LIMITED error.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override async handleRequest({
    context,
    limit,
    ttl,
    throttler,
    blockDuration,
    getTracker,
    generateKey,
  }: ThrottlerRequest): Promise<boolean> {
    const { req, res } = this.getRequestResponse(context);
    const tracker = await getTracker(req, context);
    const key = generateKey(context, tracker, throttler.name ?? 'default');
    const { totalHits, timeToExpire } = await this.storageService.increment(key, ttl, limit, blockDuration, throttler.name ?? 'default');
    const reply = res as unknown as FastifyReply;
    const resetAt = Math.ceil(Date.now() / 1000) + timeToExpire;
    void reply.header('X-RateLimit-Limit', String(limit));
    void reply.header('X-RateLimit-Remaining', String(Math.max(0, limit - totalHits)));
    void reply.header('X-RateLimit-Reset', String(resetAt));
    if (totalHits > limit) {
      throw new AppError(ErrorCode.RATE_LIMITED, `Rate limit of ${limit} requests per minute exceeded`, undefined, {
        'Retry-After': String(timeToExpire),
      });
    }
    return true;
  }

  protected override getRequestResponse(context: ExecutionContext): { req: Record<string, unknown>; res: Record<string, unknown> } {
    const http = context.switchToHttp();
    return { req: http.getRequest(), res: http.getResponse() };
  }
}
