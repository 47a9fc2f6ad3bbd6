/** A receiver's Retry-After is honoured up to this; beyond it the endpoint is effectively down. */
export const MAX_RETRY_AFTER_SECONDS = 86_400;
const JITTER = 0.1;

export type AttemptOutcome =
  | { kind: 'succeeded' }
  /** 410: the receiver says the endpoint is gone; stop and disable the webhook. */
  | { kind: 'gone' }
  | { kind: 'retry'; delaySeconds: number }
  | { kind: 'failed' };

export interface AttemptFacts {
  /** null when no response arrived (network error, timeout, refused target). */
  status: number | null;
  retryAfter?: string | string[];
  /** Attempts made so far, this one included. */
  attempts: number;
  maxAttempts: number;
  schedule: readonly number[];
  nowMs: number;
  random?: () => number;
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | null {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return null;
  if (/^\d+$/.test(raw)) return Math.min(Number(raw), MAX_RETRY_AFTER_SECONDS);
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, (at - nowMs) / 1000), MAX_RETRY_AFTER_SECONDS);
}

/**
 * The delay before attempt `attempts + 1`: the schedule's entry for it, lengthened by up to 10 % so endpoints that
 * failed together are not retried in lockstep (never shortened: the schedule is a promise of "not sooner", contract
 * section 10), or the receiver's Retry-After when that is longer. Manual
 * retries can take a delivery past the schedule's end; its last delay then repeats.
 */
export function retryDelaySeconds(facts: Pick<AttemptFacts, 'attempts' | 'schedule' | 'retryAfter' | 'nowMs' | 'random'>): number {
  const { schedule } = facts;
  const base = schedule.length ? schedule[Math.min(facts.attempts - 1, schedule.length - 1)] : 0;
  const jittered = base * (1 + JITTER * (facts.random ?? Math.random)());
  const retryAfter = parseRetryAfter(facts.retryAfter, facts.nowMs) ?? 0;
  return Math.max(jittered, retryAfter);
}

export function decideOutcome(facts: AttemptFacts): AttemptOutcome {
  const { status } = facts;
  if (status !== null && status >= 200 && status < 300) return { kind: 'succeeded' };
  if (status === 410) return { kind: 'gone' };
  if (facts.attempts >= facts.maxAttempts) return { kind: 'failed' };
  return { kind: 'retry', delaySeconds: retryDelaySeconds(facts) };
}
