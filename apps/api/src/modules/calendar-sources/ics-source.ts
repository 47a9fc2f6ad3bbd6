import type { LookupAddress } from 'node:dns';
import { checkWebhookUrl, UnsafeUrlError } from '@app/common';
import { GuardedHttp, ResponseTooLargeError } from './guarded-http.js';

export const MAX_ICS_BYTES = 5 * 1024 * 1024;
const MAX_REDIRECTS = 3;
const USER_AGENT = 'scheduling-api-calendars/1';

/** Why a source could not be read; `message` is shown to the member and carries no secret. */
export class SourceError extends Error {
  constructor(
    readonly field: 'url' | 'password',
    message: string,
    /** For the log only: what the network said (ECONNREFUSED …), which the caller must not learn about any address. */
    readonly detail?: string,
  ) {
    super(message);
  }
}

export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

export type FetchResult = { notModified: true } | { notModified: false; text: string; validators: Validators };

/** One HTTP exchange of a fetch, to the checked addresses (null: any, when private addresses are allowed). */
export interface IcsResponse {
  status: number;
  body: string;
  location?: string;
  etag: string | null;
  lastModified: string | null;
}
export type IcsTransport = (
  url: URL,
  addresses: LookupAddress[] | null,
  validators: Validators | null,
  signal: AbortSignal,
) => Promise<IcsResponse>;

/** `webcal://` is the same feed over https. */
export function normaliseSourceUrl(raw: string): string {
  return raw.replace(/^webcals?:\/\//i, 'https://');
}

/**
 * Reads an ICS feed: the URL rules of webhooks on the URL and on each of at most 3 redirects (the socket
 * pinned to the addresses checked), a timeout over the whole exchange, a 5 MiB cap, and conditional
 * requests with the previous response's validators (a 304 keeps what is stored).
 */
export class IcsFetcher {
  private readonly http: GuardedHttp;
  private readonly transport: IcsTransport;

  /** `transport` replaces the HTTP exchange (tests of the redirect rules with a public first hop). */
  constructor(
    private readonly allowPrivate: boolean,
    private readonly timeoutMs: number,
    transport?: IcsTransport,
  ) {
    this.transport = transport ?? ((url, addresses, validators, signal) => this.request(url, addresses, validators, signal));
    this.http = new GuardedHttp(allowPrivate);
  }

  async fetch(rawUrl: string, validators: Validators | null): Promise<FetchResult> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    let url = normaliseSourceUrl(rawUrl);
    for (let redirects = 0; ; redirects++) {
      let target;
      try {
        target = await checkWebhookUrl(url, { allowPrivate: this.allowPrivate });
      } catch (error) {
        if (error instanceof UnsafeUrlError)
          throw new SourceError('url', redirects === 0 ? error.message : `a redirect was refused: ${error.message}`);
        throw error;
      }
      const response = await this.transport(target.url, target.addresses, validators, signal);
      if (response.status >= 300 && response.status < 400 && response.status !== 304 && response.location) {
        if (redirects >= MAX_REDIRECTS) throw new SourceError('url', `more than ${MAX_REDIRECTS} redirects`);
        url = new URL(response.location, target.url).toString();
        continue;
      }
      if (response.status === 304 && validators) return { notModified: true };
      if (response.status === 401 || response.status === 403)
        throw new SourceError('url', `the calendar refused access (HTTP ${response.status})`);
      if (response.status < 200 || response.status >= 300) throw new SourceError('url', `the calendar answered HTTP ${response.status}`);
      return { notModified: false, text: response.body, validators: { etag: response.etag, lastModified: response.lastModified } };
    }
  }

  close(): void {
    this.http.close();
  }

  private async request(
    url: URL,
    addresses: LookupAddress[] | null,
    validators: Validators | null,
    signal: AbortSignal,
  ): Promise<IcsResponse> {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: 'text/calendar, */*;q=0.5' };
    if (validators?.etag) headers['if-none-match'] = validators.etag;
    if (validators?.lastModified) headers['if-modified-since'] = validators.lastModified;
    try {
      const res = await this.http.request(url, addresses, { method: 'GET', headers, signal, maxBytes: MAX_ICS_BYTES });
      const header = (name: string): string | null => (typeof res.headers[name] === 'string' ? (res.headers[name] as string) : null);
      return {
        status: res.status,
        body: res.body.toString('utf8'),
        location: header('location') ?? undefined,
        etag: header('etag'),
        lastModified: header('last-modified'),
      };
    } catch (error) {
      if (error instanceof ResponseTooLargeError) throw new SourceError('url', 'the calendar is larger than 5 MiB');
      if (signal.aborted) throw new SourceError('url', `the calendar did not answer within ${this.timeoutMs} ms`);
      throw new SourceError('url', 'the calendar could not be reached', describe(error));
    }
  }
}

function describe(error: unknown): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : undefined;
  return code ?? (error instanceof Error ? error.name : 'error');
}
