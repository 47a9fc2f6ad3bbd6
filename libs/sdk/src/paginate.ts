import type { paths, SchedulingClient } from './client.js';
import { unwrap } from './errors.js';

type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;
type PageOfOperation<O> = O extends { responses: { 200: infer R } } ? JsonOf<R> : never;

/** The API's paged lists: GET operations whose answer has `hasMore` (`?page=&limit=`). */
export type PagedPath = {
  [P in keyof paths]: paths[P] extends { get: infer O } ? (PageOfOperation<O> extends { hasMore: boolean } ? P : never) : never;
}[keyof paths];

type GetOf<P extends PagedPath> = paths[P] extends { get: infer O } ? O : never;
export type PageOf<P extends PagedPath> = PageOfOperation<GetOf<P>>;
/** The element type of a page's one array (`bookings`, `eventTypes`, …). */
export type ItemOf<P extends PagedPath> = {
  [K in keyof PageOf<P>]: PageOf<P>[K] extends ReadonlyArray<infer I> ? I : never;
}[keyof PageOf<P>];
type Parameters<P extends PagedPath> = GetOf<P> extends { parameters: infer Q } ? Q : never;
type QueryOf<P extends PagedPath> = Omit<NonNullable<Parameters<P> extends { query?: infer Q } ? Q : never>, 'page'>;
type PathParamsOf<P extends PagedPath> = Parameters<P> extends { path: infer Q } ? Q : never;

export type PaginateOptions<P extends PagedPath> = {
  /** The list's filters (and `limit`, the page size: the API's largest, 100, by default); `page` is the iterator's. */
  query?: QueryOf<P>;
} & ([PathParamsOf<P>] extends [never] ? { path?: undefined } : { path: PathParamsOf<P> });

/**
 * Every item of a paged list, page after page until `hasMore` is false:
 * `for await (const booking of paginate(client, '/v1/bookings', { query: { status: 'confirmed' } }))`.
 */
export async function* paginate<P extends PagedPath>(
  client: SchedulingClient,
  path: P,
  ...[options]: [PathParamsOf<P>] extends [never] ? [PaginateOptions<P>?] : [PaginateOptions<P>]
): AsyncGenerator<ItemOf<P>, void, undefined> {
  const get = client.GET as unknown as (
    path: string,
    init: { params: { query: Record<string, unknown>; path?: unknown } },
  ) => Promise<{ data?: Record<string, unknown>; error?: unknown; response: Response }>;
  const query = { limit: 100, ...(options?.query as Record<string, unknown> | undefined) };
  let key: string | undefined;
  for (let page = 1; ; page++) {
    const data = unwrap(await get(path, { params: { query: { ...query, page }, path: options?.path } }))!;
    key ??= Object.keys(data).find((name) => Array.isArray(data[name]));
    if (key === undefined) throw new Error(`${path}: the page has no list`);
    yield* data[key] as Array<ItemOf<P>>;
    if (data.hasMore !== true) return;
  }
}
