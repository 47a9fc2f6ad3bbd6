import type { IncomingMessage } from 'node:http';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import type { TrustProxy } from '../config/app-config.js';

/**
 * The client address every per-client rule counts by (api-rules.md § Browser booking: public rate limits, a
 * publishable key's limit per client, holds and bookings per visitor, login lockout): an IPv4 address as it is, an
 * IPv6 address as its /64 prefix (`2001:db8:1:2::/64`), since one subscriber is usually given a whole /64 and could
 * otherwise count as 2^64 visitors. An IPv4-mapped IPv6 address is its IPv4 address. The address is the one Fastify
 * reports as `request.ip`: the TCP peer, or behind proxies the one TRUST_PROXY derives (fastifyTrustProxy) from the
 * trusted form of X-Forwarded-For (normalizeForwardedFor).
 */
export function clientAddressOf(ip: string | undefined): string {
  if (ip === undefined || ip === '') return 'unknown';
  // A link-local peer carries its zone (`fe80::1%eth0`), which names this host's interface, not the client.
  const bare = ip.split('%')[0];
  if (!ipaddr.isValid(bare)) return ip;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const prefix = new ipaddr.IPv6([...v6.parts.slice(0, 4), 0, 0, 0, 0]);
  return `${prefix.toString()}/64`;
}

/** The client address of this request, as every per-client rule counts it (clientAddressOf). */
export function clientAddress(request: { ip?: string }): string {
  return clientAddressOf(request.ip);
}

/** The request's client address as a controller parameter. */
export const ClientAddress = createParamDecorator((_data: unknown, context: ExecutionContext): string =>
  clientAddress(context.switchToHttp().getRequest<{ ip?: string }>()),
);

const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{1,5}))?$/;
const BRACKETED_IPV6 = /^\[([0-9A-Fa-f:.]+)\](?::(\d{1,5}))?$/;

/**
 * One `X-Forwarded-For` entry as the address it names (api-rules.md § Running in production): `203.0.113.7`,
 * `203.0.113.7:51234` (a proxy that writes the client's port), `2001:db8::1`, `[2001:db8::1]` and `[2001:db8::1]:443`
 * are their address; anything else (`unknown`, a host name, `10.1`, a zone, a port over 65535) is no address: undefined.
 */
export function forwardedAddress(entry: string): string | undefined {
  const text = entry.trim();
  const v4 = IPV4_WITH_PORT.exec(text);
  const v6 = v4 ? null : BRACKETED_IPV6.exec(text);
  const [address, port] = v4 ? [v4[1], v4[2]] : v6 ? [v6[1], v6[2]] : [text, undefined];
  if (port !== undefined && Number(port) > 65535) return undefined;
  if (v4) return ipaddr.IPv4.isValidFourPartDecimal(address) ? address : undefined;
  return ipaddr.IPv6.isValid(address) && !address.includes('%') ? ipaddr.IPv6.parse(address).toString() : undefined;
}

/**
 * `X-Forwarded-For` as the trusted hops may read it: each entry as its address (forwardedAddress), read from the end
 * (the nearest proxy's entry) and cut at the first entry that is no address, with all before it (written by whoever
 * that proxy trusted no more). A proxy walk that reaches the cut stops at the last hop it trusts: the client is then
 * that hop's address as the next proxy saw it, or the TCP peer. Undefined: no entry left.
 */
export function trustedForwardedFor(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const entries = (Array.isArray(header) ? header.join(',') : header).split(',');
  const kept: string[] = [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const address = forwardedAddress(entries[i]);
    if (address === undefined) break;
    kept.unshift(address);
  }
  return kept.length > 0 ? kept.join(', ') : undefined;
}

/**
 * Fastify's `rewriteUrl`, used for the one thing Fastify lets run on every request (served or injected) before it builds
 * the request and its `ip`: the `X-Forwarded-For` header is replaced by its trusted form (trustedForwardedFor), so
 * `request.ip`, the logs and every per-client rule see addresses only. The URL is left as it is.
 */
export function normalizeForwardedFor(request: IncomingMessage): string {
  const header = request.headers['x-forwarded-for'];
  if (header !== undefined) {
    const trusted = trustedForwardedFor(header);
    if (trusted === undefined) delete request.headers['x-forwarded-for'];
    else request.headers['x-forwarded-for'] = trusted;
  }
  return request.url ?? '/';
}

/**
 * Fastify's `trustProxy` for TRUST_PROXY: Fastify walks `X-Forwarded-For` from its end (proxy-addr) while this says the
 * hop is a proxy, and reports the first address that is not as `request.ip`; every per-client rule then counts by it.
 * A hop count is a function of the hop's place (the TCP peer is hop 0): Fastify takes a bare number as "trust no one".
 */
export function fastifyTrustProxy(trust: TrustProxy | undefined): false | string[] | ((address: string, hop: number) => boolean) {
  if (trust === undefined) return false;
  if ('hops' in trust) {
    const { hops } = trust;
    return (_address, hop) => hop < hops;
  }
  return trust.proxies;
}
