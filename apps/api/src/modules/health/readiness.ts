import { Injectable } from '@nestjs/common';

/** A readiness probe this recent means something routes by it (a balancer's health check): worth draining for. */
export const PROBED_RECENTLY_MS = 60_000;

/**
 * Whether this instance should get new requests (contract § 19: an instance stops being ready before it stops
 * accepting). From the shutdown's first moment `GET /health/ready` answers 503 while everything else is still served;
 * the HTTP server closes only after `drain`, so a balancer's check has seen the 503 and sends nothing new by then.
 * Wall-clock time, never the injectable Clock: this is the process's own shutdown, not the service's time.
 */
@Injectable()
export class Readiness {
  private stoppingSince: number | undefined;
  private lastProbeAt: number | undefined;

  get stopping(): boolean {
    return this.stoppingSince !== undefined;
  }

  /** A readiness probe came in (called by GET /health/ready). */
  probed(): void {
    this.lastProbeAt = Date.now();
  }

  /**
   * Not ready from now on; resolves `drainMs` later when a readiness probe came in the last minute (a balancer checks
   * this instance), at once otherwise (nothing routes by readiness: the quick start, a test, a worker).
   */
  async drain(drainMs: number): Promise<void> {
    this.stoppingSince ??= Date.now();
    const probed = this.lastProbeAt !== undefined && Date.now() - this.lastProbeAt < PROBED_RECENTLY_MS;
    if (!probed || drainMs <= 0) return;
    const left = this.stoppingSince + drainMs - Date.now();
    if (left > 0) await new Promise((done) => setTimeout(done, left));
  }
}
