import { lookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Resolves a host name to every address a connection might use (A and AAAA, /etc/hosts included). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    lookup(hostname, { all: true, family: 0, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

/** A webhook URL the service refuses to call. `message` is for the API caller; `detail` only for the attempt log. */
export class UnsafeUrlError extends Error {
  constructor(
    message: string,
    readonly detail: string = message,
  ) {
    super(message);
    this.name = 'UnsafeUrlError';
  }
}

/** Refusals say the same whether the host is private or does not resolve, so the API cannot map internal DNS. */
export const NOT_PUBLIC_MESSAGE = 'url must be an https URL whose host resolves only to public addresses';
export const MAX_URL_LENGTH = 2048;

/** Syntax only: an absolute http(s) URL without credentials. Returns the reason it is not, or null. */
export function webhookUrlProblem(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_URL_LENGTH) {
    return `url must be an absolute http or https URL of at most ${MAX_URL_LENGTH} characters`;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute http or https URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'url must be an absolute http or https URL';
  if (!url.hostname) return 'url must name a host';
  // URLs are shown in responses and may reach logs; credentials belong in the signature, not here.
  if (url.username || url.password) return 'url must not contain credentials';
  return null;
}

/**
 * Public unicast only. IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is judged by the IPv4 address it carries;
 * every other special IPv6 range (NAT64, 6to4, Teredo, unique-local …) is refused as ipaddr.js names it.
 */
export function addressRange(address: string): string {
  if (!ipaddr.isValid(address)) return 'invalid';
  return ipaddr.process(address).range();
}

export function isPublicAddress(address: string): boolean {
  return addressRange(address) === 'unicast';
}

/** The checked addresses, with IPv4-mapped IPv6 unwrapped so the connection uses the address judged. */
export interface CheckedTarget {
  url: URL;
  /** null when private addresses are allowed: the system resolver is used as is. */
  addresses: LookupAddress[] | null;
}

export interface CheckOptions {
  allowPrivate: boolean;
  resolve?: Resolver;
}

function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * The SSRF guard of api-rules.md § Webhooks, for create, PATCH and every delivery attempt. Unless private
 * targets are allowed, the URL must be https and EVERY address its host resolves to must be public:
 * one private record among public ones is enough for an attacker who controls the DNS answer.
 */
export async function checkWebhookUrl(raw: string, options: CheckOptions): Promise<CheckedTarget> {
  const problem = webhookUrlProblem(raw);
  if (problem) throw new UnsafeUrlError(problem);
  const url = new URL(raw);
  if (options.allowPrivate) return { url, addresses: null };
  if (url.protocol !== 'https:') throw new UnsafeUrlError(NOT_PUBLIC_MESSAGE, 'refused: plain http is not allowed');

  const host = hostOf(url);
  let addresses: LookupAddress[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await (options.resolve ?? systemResolver)(host);
    } catch (error) {
      const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'error';
      throw new UnsafeUrlError(NOT_PUBLIC_MESSAGE, `refused: host did not resolve (${code})`);
    }
  }
  if (addresses.length === 0) throw new UnsafeUrlError(NOT_PUBLIC_MESSAGE, 'refused: host has no addresses');
  const checked: LookupAddress[] = [];
  for (const { address } of addresses) {
    const range = addressRange(address);
    if (range !== 'unicast') throw new UnsafeUrlError(NOT_PUBLIC_MESSAGE, `refused: host resolves to a ${range} address`);
    const parsed = ipaddr.process(address);
    checked.push({ address: parsed.toString(), family: parsed.kind() === 'ipv4' ? 4 : 6 });
  }
  return { url, addresses: checked };
}
