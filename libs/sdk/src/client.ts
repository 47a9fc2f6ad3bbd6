import createFetchClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../api-types/src/schema.js';

export type { paths };
/** The typed client: `GET`, `POST`, `PUT`, `PATCH`, `DELETE` over the API's paths (`/v1/…`), from the generated types. */
export type SchedulingClient = Client<paths, 'application/json'>;

export interface ClientOptions {
  /** The API's origin, e.g. `https://api.example.com` (paths start with `/v1/`). */
  baseUrl: string;
  /** A secret (`mk_live_…`, `mk_test_…`) or publishable (`pk_…`) key: sent as `Authorization: ApiKey <key>`. */
  apiKey?: string;
  /** A user session's JWT or a partner app's access token (`oat_…`), or a function that returns the current one. */
  accessToken?: string | (() => string | Promise<string>);
  /** Retries of a 429 or 503 (and of a network failure) for requests safe to repeat; 0 turns retrying off. */
  maxRetries?: number;
  /** The longest wait between two attempts, in milliseconds; a `Retry-After` beyond it ends the retries. */
  maxRetryDelayMs?: number;
  /** Another fetch (a proxy, a test double); the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * POSTs that take an `Idempotency-Key` (the document's `Idempotency-Key` header parameter): each call gets a key of its
 * own unless the caller gave one, and its retries reuse it, so a retried booking is made once. test/sdk keeps this list
 * in step with the document.
 */
export const IDEMPOTENT_POSTS: readonly RegExp[] = [
  /^\/v1\/bookings$/,
  /^\/v1\/bookings\/[^/]+\/reschedule$/,
  /^\/v1\/holds$/,
  /^\/v1\/public\/holds$/,
  /^\/v1\/public\/bookings$/,
];

const RETRIED_STATUSES = new Set([429, 503]);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

function randomKey(): string {
  return globalThis.crypto.randomUUID();
}

/** How long before attempt `attempt + 1`: the server's Retry-After, else exponential backoff with full jitter. */
function delayFor(response: Response | undefined, attempt: number): number {
  const header = response?.headers.get('retry-after') ?? null;
  if (header !== null) {
    if (/^\s*\d+\s*$/.test(header)) return Number(header) * 1000;
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, date - Date.now());
  }
  return Math.random() * Math.min(8_000, 500 * 2 ** attempt);
}

function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A fetch that signs each request and retries what is safe to retry. */
function retryingFetch(options: ClientOptions): (request: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const maxRetries = options.maxRetries ?? 3;
  const maxDelay = options.maxRetryDelayMs ?? 60_000;
  return async (input: Request) => {
    const request = input.clone();
    if (!request.headers.has('authorization')) {
      if (options.apiKey !== undefined) request.headers.set('authorization', `ApiKey ${options.apiKey}`);
      else if (options.accessToken !== undefined) {
        const token = typeof options.accessToken === 'function' ? await options.accessToken() : options.accessToken;
        request.headers.set('authorization', `Bearer ${token}`);
      }
    }
    const method = request.method.toUpperCase();
    const path = new URL(request.url).pathname;
    if (method === 'POST' && !request.headers.has('idempotency-key') && IDEMPOTENT_POSTS.some((pattern) => pattern.test(path))) {
      request.headers.set('idempotency-key', randomKey());
    }
    const retryable = SAFE_METHODS.has(method) || (method === 'POST' && request.headers.has('idempotency-key'));
    for (let attempt = 0; ; attempt++) {
      const last = !retryable || attempt >= maxRetries;
      let response: Response;
      try {
        response = await send(last ? request : request.clone());
      } catch (error) {
        // A network failure (fetch's TypeError) is retried like a 503; an abort is not.
        if (last || !(error instanceof TypeError)) throw error;
        await sleep(delayFor(undefined, attempt), request.signal);
        continue;
      }
      if (last || !RETRIED_STATUSES.has(response.status)) return response;
      const delay = delayFor(response, attempt);
      if (delay > maxDelay) return response;
      await response.body?.cancel();
      await sleep(delay, request.signal);
    }
  };
}

/**
 * A client of the Scheduling API typed by its OpenAPI document: `client.GET('/v1/bookings', { params: { query } })`
 * resolves to `{ data, error, response }` (see `unwrap`). It authenticates every request, retries 429 and 503 honouring
 * `Retry-After` for GET/HEAD/PUT/DELETE and for POSTs that carry an `Idempotency-Key`, and gives each booking or hold
 * attempt an `Idempotency-Key` of its own, reused on its retries.
 */
export function createClient(options: ClientOptions): SchedulingClient {
  return createFetchClient<paths, 'application/json'>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: retryingFetch(options),
  });
}
