import { DAVClient, type DAVCalendar } from 'tsdav';
import { checkWebhookUrl, UnsafeUrlError } from '@app/common';
import { GuardedHttp, ResponseTooLargeError } from './guarded-http.js';
import { SourceError } from './ics-source.js';

/** What one CalDAV response may hold: a REPORT over the 731-day window of a busy calendar is a few MiB. */
const MAX_DAV_RESPONSE_BYTES = 20 * 1024 * 1024;
/** Statuses whose Response may not carry a body. */
const NO_BODY = new Set([101, 204, 205, 304]);

/** One calendar of a CalDAV account, as the member configured it. */
export interface RemoteCalendar {
  id: string;
  displayName: string;
  blocksAvailability: boolean;
  isDestination: boolean;
}

export interface DavAccount {
  url: string;
  username: string;
  password: string;
}

/** `Basic` credentials as RFC 7617 sends them: `user:password` in UTF-8, base64; any character a person may type. */
function basicAuthorization(account: { username: string; password: string }): string {
  return `Basic ${Buffer.from(`${account.username}:${account.password}`, 'utf8').toString('base64')}`;
}

/** A 401/403 from the server: the username or password is wrong. */
class CredentialsRefused extends Error {}

/**
 * A CalDAV account through `tsdav` (RFC 4791): discovery (principal, calendar home, calendars) and
 * busy times by a calendar-query REPORT with a time range. Every request it makes passes the URL rules of
 * webhooks first, goes to the addresses checked (as ICS fetches do), reads at most 20 MiB and gives up
 * after the timeout.
 */
export class CalDavReader {
  private readonly http: GuardedHttp;

  constructor(
    private readonly allowPrivate: boolean,
    private readonly timeoutMs: number,
  ) {
    this.http = new GuardedHttp(allowPrivate);
  }

  close(): void {
    this.http.close();
  }

  /** The account's calendars, as the service lists them (all blocking, none the destination, by default). */
  async discover(account: DavAccount): Promise<RemoteCalendar[]> {
    const calendars = await this.run(account, (client) => client.fetchCalendars());
    const usable = calendars.filter((calendar) => !calendar.components || calendar.components.includes('VEVENT'));
    if (usable.length === 0) throw new SourceError('url', 'the account has no calendars');
    return usable.map((calendar) => ({
      id: calendar.url,
      displayName: displayNameOf(calendar),
      blocksAvailability: true,
      isDestination: false,
    }));
  }

  /**
   * The account's calendars (with the flags `known` had for them; new ones block) and the iCalendar
   * objects with events overlapping [from, to) in those that block.
   */
  async objects(
    account: DavAccount,
    known: readonly RemoteCalendar[],
    from: Date,
    to: Date,
  ): Promise<{ calendars: RemoteCalendar[]; texts: string[] }> {
    return this.run(account, async (client) => {
      const found = (await client.fetchCalendars()).filter((calendar) => !calendar.components || calendar.components.includes('VEVENT'));
      if (found.length === 0) throw new SourceError('url', 'the account has no calendars');
      const flags = new Map(known.map((calendar) => [calendar.id, calendar]));
      const calendars = found.map((calendar) => ({
        id: calendar.url,
        displayName: displayNameOf(calendar),
        blocksAvailability: flags.get(calendar.url)?.blocksAvailability ?? true,
        isDestination: flags.get(calendar.url)?.isDestination ?? false,
      }));
      const texts: string[] = [];
      for (const calendar of found.filter((c) => calendars.find((k) => k.id === c.url)?.blocksAvailability)) {
        const objects = await client.fetchCalendarObjects({ calendar, timeRange: { start: from.toISOString(), end: to.toISOString() } });
        for (const object of objects) if (typeof object.data === 'string' && object.data.length > 0) texts.push(object.data);
      }
      return { calendars, texts };
    });
  }

  /** PUT (create or replace) or DELETE `<calendar>/<name>`; a DELETE of what is not there is done too. */
  async write(account: DavAccount, calendarId: string, name: string, ics: string | null): Promise<void> {
    const url = new URL(
      encodeURIComponent(name),
      new URL(calendarId.endsWith('/') ? calendarId : `${calendarId}/`, account.url),
    ).toString();
    const signal = AbortSignal.timeout(this.timeoutMs);
    const fetchGuarded = this.guardedFetch(signal);
    const authorization = basicAuthorization(account);
    let response: Response;
    try {
      response = await fetchGuarded(url, {
        method: ics === null ? 'DELETE' : 'PUT',
        headers: { authorization, ...(ics === null ? {} : { 'content-type': 'text/calendar; charset=utf-8' }) },
        body: ics ?? undefined,
      });
    } catch (error) {
      if (error instanceof SourceError) throw error;
      if (error instanceof CredentialsRefused) throw new SourceError('password', 'the server refused the username or password');
      throw new SourceError(
        'url',
        signal.aborted ? `the server did not answer within ${this.timeoutMs} ms` : 'the CalDAV server could not be reached',
      );
    }
    if (ics === null && response.status === 404) return;
    if (response.status < 200 || response.status >= 300) throw new SourceError('url', `the server answered HTTP ${response.status}`);
  }

  private async run<T>(account: DavAccount, work: (client: DAVClient) => Promise<T>): Promise<T> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    const client = new DAVClient({
      serverUrl: account.url,
      credentials: { username: account.username, password: account.password },
      // tsdav's own Basic encodes Latin-1 and throws on anything else; RFC 7617 says UTF-8.
      authMethod: 'Custom',
      authFunction: async () => ({ authorization: basicAuthorization(account) }),
      defaultAccountType: 'caldav',
      fetch: this.guardedFetch(signal),
    });
    try {
      await client.login();
      return await work(client);
    } catch (error) {
      if (error instanceof SourceError) throw error;
      if (error instanceof CredentialsRefused) throw new SourceError('password', 'the server refused the username or password');
      if (signal.aborted) throw new SourceError('url', `the server did not answer within ${this.timeoutMs} ms`);
      throw new SourceError('url', 'the CalDAV server could not be read');
    }
  }

  /**
   * fetch for tsdav: the URL rules on every request, the socket pinned to the checked addresses, one
   * deadline for the whole exchange, redirects not followed, credentials refused noticed.
   */
  private guardedFetch(signal: AbortSignal): typeof fetch {
    return async (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url;
      let target;
      try {
        target = await checkWebhookUrl(url, { allowPrivate: this.allowPrivate });
      } catch (error) {
        if (error instanceof UnsafeUrlError) throw new SourceError('url', error.message);
        throw error;
      }
      const headers = Object.fromEntries(new Headers(init?.headers).entries());
      const body = typeof init?.body === 'string' ? init.body : init?.body == null ? undefined : String(init.body);
      let raw;
      try {
        raw = await this.http.request(target.url, target.addresses, {
          method: init?.method ?? 'GET',
          headers,
          body,
          signal,
          maxBytes: MAX_DAV_RESPONSE_BYTES,
        });
      } catch (error) {
        if (error instanceof ResponseTooLargeError) throw new SourceError('url', 'the server answered with more than 20 MiB');
        throw error;
      }
      if (raw.status === 401 || raw.status === 403) throw new CredentialsRefused();
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(raw.headers)) {
        for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) responseHeaders.append(name, item);
      }
      return new Response(NO_BODY.has(raw.status) ? null : new Uint8Array(raw.body), { status: raw.status, headers: responseHeaders });
    };
  }
}

function displayNameOf(calendar: DAVCalendar): string {
  const name = calendar.displayName;
  return typeof name === 'string' && name.trim() !== '' ? name.slice(0, 200) : 'Calendar';
}
