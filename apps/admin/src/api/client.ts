import createClient from 'openapi-fetch';
import type { components, paths } from '@app/api-types';

export type Schemas = components['schemas'];
export type { paths };
export type ErrorBody = Schemas['ErrorResponseDto'];

/** An answer other than 2xx, with the API's error body when it sent one. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody | undefined,
  ) {
    super(body?.message ?? `The server answered ${status}`);
  }

  get code(): string | undefined {
    return this.body?.code;
  }
}

let accessToken: string | null = null;
let onUnauthorized: () => void = () => undefined;

export function setAccessToken(token: string | null): void {
  accessToken = token;
}

/** Called when the API refuses the session (expired, revoked): the console goes back to sign-in. */
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

/** The generated client: every path, parameter and body below is typed by schema.ts (generated at build). */
export const api = createClient<paths>({ baseUrl: '' });

api.use({
  onRequest({ request }) {
    if (accessToken) request.headers.set('Authorization', `Bearer ${accessToken}`);
    return request;
  },
  onResponse({ request, response }) {
    if (response.status === 401 && !new URL(request.url).pathname.startsWith('/v1/auth/console/')) onUnauthorized();
    return response;
  },
});

/** The data of a 2xx answer, or an ApiFailure. */
export async function unwrap<D, E>(request: Promise<{ data?: D; error?: E; response: Response }>): Promise<D> {
  const { data, error, response } = await request;
  if (!response.ok) throw new ApiFailure(response.status, isErrorBody(error) ? error : undefined);
  return data as D;
}

function isErrorBody(value: unknown): value is ErrorBody {
  return typeof value === 'object' && value !== null && 'code' in value && 'message' in value;
}

/** The API's largest page (`limit`). */
export const MAX_PAGE = 100;

/**
 * Every item of a paged list: page after page until the API answers `hasMore: false`, so a busy week is never cut
 * off. An item met twice (a row added before the current page while paging) is kept once.
 */
export async function allPages<P extends { hasMore: boolean }, I extends { id: string }>(
  load: (page: number) => Promise<P>,
  items: (answer: P) => I[],
): Promise<I[]> {
  const seen = new Map<string, I>();
  for (let page = 1; ; page += 1) {
    const answer = await load(page);
    const found = items(answer);
    for (const item of found) seen.set(item.id, item);
    if (!answer.hasMore || found.length === 0) return [...seen.values()];
  }
}
