import type { TestApp } from './app.js';
import { responseContractFor } from './openapi.js';

export interface VisitorResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any;
}

/**
 * A request from a chosen client address, IPv4 or IPv6 (the machine's loopback offers only 127.0.0.0/8 and ::1), through
 * Fastify's `inject`: the whole app runs as for a socket, and the per-client rules see `remoteAddress`. The answer is
 * held to the published document like the HTTP client's.
 */
export async function fromAddress(
  t: TestApp,
  remoteAddress: string,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<VisitorResponse> {
  const res = await t.app.inject({
    method,
    url: path,
    remoteAddress,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  const contentType = String(res.headers['content-type'] ?? '');
  const parsed: unknown = res.body && contentType.includes('json') ? JSON.parse(res.body) : undefined;
  (await responseContractFor(t.url)).check(method, t.url + path, res.statusCode, contentType, parsed);
  return { status: res.statusCode, headers: res.headers, body: parsed };
}
