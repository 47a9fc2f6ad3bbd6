import { createHash, timingSafeEqual } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { AppConfig, AppError, ErrorCode } from '@app/common';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** A request's client address is a loopback one (127.0.0.0/8, ::1, or 127.x written as IPv4-mapped IPv6). */
export function isLoopback(ip: string | undefined): boolean {
  if (ip === undefined || !ipaddr.isValid(ip)) return false;
  return ipaddr.process(ip).range() === 'loopback';
}

/**
 * Who may scrape `/metrics` (contract § 19), the one rule of the API's route (MetricsEndpoint) and the worker's own
 * server (apps/worker/src/metrics-server.ts): with METRICS_TOKEN, whoever sends it as a Bearer token (compared in
 * constant time); without, loopback clients only, judged by the TCP peer alone (a forwarded address is the client's to
 * write, whatever TRUST_PROXY believes), and in production not at all (404, as for no route) unless
 * METRICS_ALLOW_LOOPBACK=true: a proxy on the same host makes every visitor a loopback peer.
 */
export class MetricsAccess {
  private readonly tokenDigest: Buffer | undefined;
  private readonly loopbackAllowed: boolean;

  constructor(config: Pick<AppConfig, 'metricsToken' | 'metricsAllowLoopback' | 'isProduction'>) {
    this.tokenDigest = config.metricsToken === undefined ? undefined : digest(config.metricsToken);
    this.loopbackAllowed = !config.isProduction || config.metricsAllowLoopback;
  }

  /** Why a scrape with this Authorization header from this TCP peer is refused, or undefined when it may read. */
  refusal(authorization: string | undefined, peerAddress: string | undefined): AppError | undefined {
    if (this.tokenDigest) {
      const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
      if (match && timingSafeEqual(digest(match[1]), this.tokenDigest)) return undefined;
      return new AppError(ErrorCode.UNAUTHORIZED, 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>', undefined, {
        'WWW-Authenticate': 'Bearer realm="metrics"',
      });
    }
    if (!this.loopbackAllowed) return new AppError(ErrorCode.NOT_FOUND, 'Resource not found');
    if (isLoopback(peerAddress)) return undefined;
    return new AppError(ErrorCode.FORBIDDEN, 'Without METRICS_TOKEN, GET /metrics answers loopback clients only');
  }
}
