import { createHash, timingSafeEqual } from 'node:crypto';

/** For high-entropy secrets (API keys, refresh and invitation tokens) a fast hash is enough: no one brute-forces 190 bits. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
