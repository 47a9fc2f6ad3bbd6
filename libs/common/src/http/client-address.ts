import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import type { TrustProxy } from '../config/app-config.js';

/**
 * The client address every per-client rule counts by (api-rules.md § Browser booking: public rate limits, a
 * publishable key's limit per client, holds and bookings per visitor, login lockout): an IPv4 address as it is, an
 * IPv6 address as its /64 prefix (`2001:db8:1:2::/64`), since one subscriber is usually given a whole /64 and could
 * otherwise count as 2^64 visitors. An IPv4-mapped IPv6 address is its IPv4 address. The address is the one Fastify
 * reports as `request.ip`: the TCP peer, or behind proxies the one TRUST_PROXY derives (fastifyTrustProxy).
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
