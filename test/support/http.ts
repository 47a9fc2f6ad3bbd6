import { responseContractFor } from './openapi.js';

export interface HttpResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is, for malformed or non-JSON bodies. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  token?: string;
  apiKey?: string;
}

/**
 * A tiny HTTP client over the real socket: what a customer's backend would send. Every answer is held to
 * the app's published OpenAPI document: a status or body the document does not describe fails the test.
 */
export class HttpClient {
  constructor(
    readonly baseUrl: string,
    private readonly options: {
      checkContract?: boolean;
      /** What the app's document is a function of (test/support/app.ts): apps of one file with the same key publish the same document. */
      documentKey?: string;
    } = { checkContract: true },
  ) {}

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    let body: string | Buffer | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.apiKey) headers.authorization = `ApiKey ${options.apiKey}`;
    const response = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = undefined;
    const contentType = response.headers.get('content-type') ?? '';
    // JSON and its +json kinds; not NDJSON (`application/x-ndjson`: many documents, one a line).
    if (text && /^application\/(?:[\w.-]+\+)?json\b/.test(contentType)) parsed = JSON.parse(text);
    if (this.options.checkContract !== false) {
      (await responseContractFor(this.baseUrl, this.options.documentKey)).check(
        method,
        this.baseUrl + path,
        response.status,
        contentType,
        parsed,
      );
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, options?: RequestOptions): Promise<HttpResponse<T>> {
    return this.request<T>('GET', path, options);
  }

  post<T = any>(path: string, body?: unknown, options: RequestOptions = {}): Promise<HttpResponse<T>> {
    return this.request<T>('POST', path, { ...options, body });
  }

  put<T = any>(path: string, body?: unknown, options: RequestOptions = {}): Promise<HttpResponse<T>> {
    return this.request<T>('PUT', path, { ...options, body });
  }

  patch<T = any>(path: string, body?: unknown, options: RequestOptions = {}): Promise<HttpResponse<T>> {
    return this.request<T>('PATCH', path, { ...options, body });
  }

  delete<T = any>(path: string, options?: RequestOptions): Promise<HttpResponse<T>> {
    return this.request<T>('DELETE', path, options);
  }
}
