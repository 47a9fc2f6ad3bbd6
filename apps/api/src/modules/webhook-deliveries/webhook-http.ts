import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { checkWebhookUrl, describeSendError, pinnedLookup, type Resolver, UnsafeUrlError } from '@app/common';

export interface WebhookRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Aborts the attempt when the process shuts down. */
  interrupt: AbortSignal;
}

export interface WebhookResponse {
  /** null when no response arrived. */
  status: number | null;
  retryAfter: string | string[] | undefined;
  /** Short, for the attempt log: never the body, the secret or the signature. */
  error: string | null;
  durationMs: number;
  /** True when stopped by `interrupt`: the attempt did not fail, it was not finished. */
  interrupted: boolean;
}

const USER_AGENT = 'scheduling-api-webhooks/1';

class AttemptAborted extends Error {
  constructor(readonly reason: 'timeout' | 'interrupt') {
    super(reason);
  }
}

function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * One POST to a receiver. The SSRF guard runs first on every attempt and the socket is pinned to the
 * addresses it approved; the request-filtering agents check the address actually dialled once more.
 * Redirects are never followed (node:http does not), timeouts cover DNS, connect and the response.
 */
export class WebhookHttpClient {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(
    private readonly allowPrivate: boolean,
    private readonly resolve?: Resolver,
  ) {
    const filter = { allowPrivateIPAddress: allowPrivate, allowMetaIPAddress: allowPrivate, keepAlive: false };
    this.httpAgent = new RequestFilteringHttpAgent(filter);
    this.httpsAgent = new RequestFilteringHttpsAgent(filter);
  }

  async post(request: WebhookRequest): Promise<WebhookResponse> {
    const started = performance.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new AttemptAborted('timeout')), request.timeoutMs);
    const onInterrupt = (): void => controller.abort(new AttemptAborted('interrupt'));
    if (request.interrupt.aborted) onInterrupt();
    else request.interrupt.addEventListener('abort', onInterrupt, { once: true });
    const done = (): void => {
      clearTimeout(timer);
      request.interrupt.removeEventListener('abort', onInterrupt);
    };
    const finish = (result: Omit<WebhookResponse, 'durationMs' | 'interrupted'>): WebhookResponse => ({
      ...result,
      durationMs: Math.round(performance.now() - started),
      interrupted: controller.signal.reason instanceof AttemptAborted && controller.signal.reason.reason === 'interrupt',
    });

    try {
      const target = await abortable(
        checkWebhookUrl(request.url, { allowPrivate: this.allowPrivate, resolve: this.resolve }),
        controller.signal,
      );
      const response = await this.send(target.url, target.addresses, request, controller.signal, done);
      return finish(response);
    } catch (error) {
      done();
      return finish({ status: null, retryAfter: undefined, error: this.describe(error, controller.signal, request.timeoutMs) });
    }
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private send(
    url: URL,
    addresses: LookupAddress[] | null,
    request: WebhookRequest,
    signal: AbortSignal,
    done: () => void,
  ): Promise<Omit<WebhookResponse, 'durationMs' | 'interrupted'>> {
    const secure = url.protocol === 'https:';
    const options: http.RequestOptions = {
      method: 'POST',
      agent: secure ? this.httpsAgent : this.httpAgent,
      headers: {
        ...request.headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(request.body)),
        'user-agent': USER_AGENT,
      },
      signal,
      ...(addresses ? { lookup: pinnedLookup(addresses) } : {}),
    };
    return new Promise((resolve, reject) => {
      const req = (secure ? https : http).request(url, options, (res) => {
        const status = res.statusCode ?? null;
        // The status decides; the body is drained (bounded by the same timeout) and thrown away.
        res.on('error', () => undefined);
        res.once('close', done);
        res.resume();
        resolve({
          status,
          retryAfter: res.headers['retry-after'],
          error: status !== null && status >= 200 && status < 300 ? null : `HTTP ${status ?? 'without status'}`,
        });
      });
      req.on('error', reject);
      req.end(request.body);
    });
  }

  private describe(error: unknown, signal: AbortSignal, timeoutMs: number): string {
    const reason: unknown = signal.reason;
    if (reason instanceof AttemptAborted) {
      return reason.reason === 'timeout' ? `Timed out after ${timeoutMs} ms` : 'Interrupted by shutdown';
    }
    if (error instanceof UnsafeUrlError) return error.detail;
    return describeSendError(error).reason;
  }
}
