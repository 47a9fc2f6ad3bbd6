import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { pinnedLookup } from '@app/common';

/** The answer of one exchange, its body read whole (up to the cap). */
export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** The body went past `maxBytes`; the exchange was cut there. */
export class ResponseTooLargeError extends Error {}

/**
 * HTTP to calendar servers (ICS feeds, CalDAV): the socket goes to the addresses the URL guard checked
 * (`pinnedLookup`, so a second DNS answer cannot point it elsewhere) through agents that refuse private
 * addresses again at connect time, unless private addresses are allowed.
 */
export class GuardedHttp {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(allowPrivate: boolean) {
    const filter = { allowPrivateIPAddress: allowPrivate, allowMetaIPAddress: allowPrivate, keepAlive: false };
    this.httpAgent = new RequestFilteringHttpAgent(filter);
    this.httpsAgent = new RequestFilteringHttpsAgent(filter);
  }

  request(
    url: URL,
    addresses: LookupAddress[] | null,
    options: { method: string; headers: Record<string, string>; body?: string | Buffer; signal: AbortSignal; maxBytes: number },
  ): Promise<RawResponse> {
    const secure = url.protocol === 'https:';
    return new Promise((resolve, reject) => {
      const req = (secure ? https : http).request(
        url,
        {
          method: options.method,
          headers: options.headers,
          signal: options.signal,
          agent: secure ? this.httpsAgent : this.httpAgent,
          ...(addresses ? { lookup: pinnedLookup(addresses) } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > options.maxBytes) {
              req.destroy();
              reject(new ResponseTooLargeError(`more than ${options.maxBytes} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          res.on('error', reject);
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        },
      );
      req.on('error', reject);
      req.end(options.body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
