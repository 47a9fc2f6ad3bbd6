import type { IncomingMessage } from 'node:http';
import { randomBase62 } from '../ids.js';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/** Keeps the caller's X-Request-Id when it is sane (it ends up in logs and headers), else makes one. */
export function requestIdFor(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  if (typeof given === 'string' && SANE_REQUEST_ID.test(given)) return given;
  return newRequestId();
}

export function newRequestId(): string {
  return `req_${randomBase62(20)}`;
}
