import http from 'node:http';
import https from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { checkWebhookUrl, pinnedLookup } from '@app/common';

const MAX_BYTES = 1024 * 1024;
const TIMEOUT_MS = 10_000;

/**
 * The `fetch` openid-client uses for discovery, the token endpoint and the JWKS (contract § 21 with § 12's outbound
 * rules): every URL passes the SSRF guard (https and public addresses only, unless private ones are allowed), the socket
 * goes to the addresses it checked, agents refuse private addresses again at connect time, no redirects are followed,
 * answers are capped at 1 MiB and the exchange at 10 seconds.
 */
export function guardedFetch(allowPrivate: boolean): (url: string, options: RequestInit) => Promise<Response> {
  const filter = { allowPrivateIPAddress: allowPrivate, allowMetaIPAddress: allowPrivate, keepAlive: false };
  const httpAgent = new RequestFilteringHttpAgent(filter);
  const httpsAgent = new RequestFilteringHttpsAgent(filter);
  return async (raw, options) => {
    const target = await checkWebhookUrl(raw, { allowPrivate });
    const secure = target.url.protocol === 'https:';
    const headers: Record<string, string> = {};
    new Headers(options.headers).forEach((value, name) => (headers[name] = value));
    const body =
      typeof options.body === 'string' ? options.body : options.body instanceof URLSearchParams ? options.body.toString() : undefined;
    const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(TIMEOUT_MS)]) : AbortSignal.timeout(TIMEOUT_MS);
    return new Promise<Response>((resolve, reject) => {
      const req = (secure ? https : http).request(
        target.url,
        {
          method: options.method ?? 'GET',
          headers,
          signal,
          agent: secure ? httpsAgent : httpAgent,
          ...(target.addresses ? { lookup: pinnedLookup(target.addresses) } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_BYTES) {
              req.destroy();
              reject(new Error(`the identity provider answered more than ${MAX_BYTES} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          res.on('error', reject);
          res.on('end', () => {
            const responseHeaders = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              if (typeof value === 'string') responseHeaders.set(name, value);
              else if (Array.isArray(value)) for (const item of value) responseHeaders.append(name, item);
            }
            const status = res.statusCode ?? 502;
            const nullBody = status === 204 || status === 304;
            resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status, headers: responseHeaders }));
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  };
}
